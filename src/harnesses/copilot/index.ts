// VS Code agent mode (GitHub Copilot Chat), docs/harnesses.md: Claude-Code-style hook commands from
// a hook file Baton owns, transcripts under VS Code's workspaceStorage, sessions keyed by chat
// session id, each runSubagent call a child session.

import * as path from 'node:path';
import type { HarnessLineage } from '../../core/lineage';
import type { Harness } from '../harness';
import { copilotHooks, HARNESS } from './hooks';
import { chatSessionFiles, importCopilotChatSessions, type CopilotImportResult } from './import';
import { installVscode, uninstallVscode } from './install';
import { COPILOT_JSONL, copilotTranscript } from './transcript';
import { vscodeWorkspaceStorageRoots } from './workspaceStorage';

export { HARNESS as COPILOT, vscodeWorkspaceStorageRoots };

function summary(result: CopilotImportResult): string {
  const known = result.sessions - result.created;
  return (
    `imported ${result.sessions} session(s) (${result.subagents} sub-agent(s)) from ${result.files} chat session file(s), ${result.turnsAdded} turn(s) added` +
    (known > 0 ? `; ${known} already stored` : '') +
    (result.skipped > 0 ? `; ${result.skipped} file(s) skipped` : '')
  );
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
  importer: {
    description: "import VS Code agent mode's chat sessions (workspaceStorage/*/chatSessions) and their sub-agents",
    label: 'VS Code agent mode',
    source: {
      as: 'option',
      help: 'a chatSessions folder or file, a workspaceStorage/<hash> folder or a workspaceStorage folder (default: every VS Code and code-server one found)',
    },
    run: (source, io) => importCopilotChatSessions({ ...io, source }),
    // The counts of every import, plus the chat session files read (importCopilotChatSessions' result).
    summary: (result) => summary(result as CopilotImportResult),
    // This workspace's chats as VS Code saves them, imported live by the extension (src/vscode/chatSessionImport.ts).
    workspace: { folder: (workspaceStorage) => path.join(workspaceStorage, 'chatSessions'), pattern: '*.{jsonl,json}', files: chatSessionFiles },
  },
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
