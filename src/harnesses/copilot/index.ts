// VS Code agent mode (GitHub Copilot Chat), docs/harnesses.md: Claude-Code-style hook commands from
// a hook file Baton owns, transcripts under VS Code's workspaceStorage, sessions keyed by chat
// session id, each runSubagent call a child session.

import * as path from 'node:path';
import type { HarnessLineage } from '../../core/lineage';
import type { Harness } from '../harness';
import { copilotHooks, HARNESS } from './hooks';
import { installVscode, uninstallVscode } from './install';
import { COPILOT_JSONL, copilotTranscript } from './transcript';

export { HARNESS as COPILOT };

/** VS Code flavours whose user data lives in `<config>/<name>/User` on Linux. */
const VSCODE_FLAVOURS = ['Code', 'Code - Insiders', 'Code - OSS', 'VSCodium'];

/**
 * Where agent mode's transcripts and chat sessions live: each VS Code user data folder's
 * `User/workspaceStorage` (desktop VS Code's flavours, code-server), plus the user data folders in
 * $BATON_VSCODE_USER_DATA_DIRS (path-list: a `--user-data-dir` VS Code or code-server was started with).
 */
export function vscodeWorkspaceStorageRoots(env: NodeJS.ProcessEnv, home: string): string[] {
  const config = env.XDG_CONFIG_HOME || path.join(home, '.config');
  const data = env.XDG_DATA_HOME || path.join(home, '.local', 'share');
  const userDataDirs = [
    ...VSCODE_FLAVOURS.map((name) => path.join(config, name)),
    ...VSCODE_FLAVOURS.map((name) => path.join(home, 'Library', 'Application Support', name)),
    path.join(data, 'code-server'),
    ...(env.BATON_VSCODE_USER_DATA_DIRS ?? '').split(path.delimiter).filter((d) => d.trim() !== ''),
  ];
  return userDataDirs.map((dir) => path.join(path.resolve(dir), 'User', 'workspaceStorage'));
}

// Lineage: SubagentStart carries the parent's chat session id, sent as the explicit parent; the
// chat session log (import) re-parents nothing, so no fallback and no recency guess.
export const copilotLineage: HarnessLineage = { reparentSource: 'copilot-subagent' };

export const copilot: Harness = {
  id: HARNESS,
  displayName: 'VS Code agent mode (Copilot)',
  transcripts: {
    parser: copilotTranscript,
    fallbackFormat: COPILOT_JSONL,
    matchesName: (name) => /copilot|vscode-agent/i.test(name),
    roots: vscodeWorkspaceStorageRoots,
  },
  lineage: copilotLineage,
  hooks: copilotHooks,
  install: {
    scopes: ['user'],
    aliases: ['vscode'],
    install(ctx) {
      const result = installVscode({ command: ctx.command, settingsFile: ctx.settingsFile, hostSettings: ctx.hostSettings });
      const messages = [`Wrote Baton's VS Code hook file (${result.events.join(', ')}) to ${result.file}`];
      if (result.settingsFile)
        messages.push(
          result.settingsChanged
            ? `Added ~/.baton/vscode-hooks to chat.hookFilesLocations in ${result.settingsFile}`
            : `chat.hookFilesLocations in ${result.settingsFile} already lists ~/.baton/vscode-hooks`,
        );
      return { ...result, messages };
    },
    uninstall(ctx) {
      const result = uninstallVscode({ settingsFile: ctx.settingsFile, hostSettings: ctx.hostSettings });
      return { file: result.file, removed: result.removed, hostSettings: result.hostSettings, messages: [] };
    },
    menu: [{ label: 'VS Code agent mode (Copilot) — user hooks', description: '~/.baton/vscode-hooks, listed in chat.hookFilesLocations', scope: 'user' }],
    notice: ' VS Code agent mode runs them from the next chat request.',
    neverFiredHint:
      'No VS Code agent mode hook has reached Baton: VS Code runs hook files only from 1.110 on, from the folders chat.hookFilesLocations lists. Run `baton install vscode` again (for the settings.json of the VS Code you use: --settings-file), or check that the setting lists ~/.baton/vscode-hooks.',
  },
};
