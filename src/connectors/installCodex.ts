// `baton install codex`: Baton's hook command in $CODEX_HOME/hooks.json (Codex reads the
// Claude-style shape there), keeping the user's own hooks. Codex skips hooks it does not trust,
// silently: the install says how to trust them.

import * as os from 'node:os';
import * as path from 'node:path';
import { hookCommand, withoutOurs, type HookCommandOptions, type Matcher } from './installClaudeCode';
import { readJsonFile, writeJsonFile } from './settingsFile';

export const CODEX_EVENTS = ['SessionStart', 'UserPromptSubmit', 'SubagentStart', 'SubagentStop', 'Stop', 'PreCompact', 'PostCompact', 'SessionEnd'] as const;

export function codexHooksPath(codexHome = process.env.CODEX_HOME || path.join(os.homedir(), '.codex')): string {
  return path.join(codexHome, 'hooks.json');
}

export function installCodex(command: HookCommandOptions, codexHome?: string): { file: string; events: string[] } {
  const file = codexHooksPath(codexHome);
  const settings = readJsonFile(file);
  const hooks = withoutOurs((settings.hooks as Record<string, Matcher[]>) ?? {});
  const entry = { type: 'command', command: hookCommand(command, 'codex'), timeout: 5 };
  for (const event of CODEX_EVENTS) hooks[event] = [...(hooks[event] ?? []), { hooks: [entry] }];
  writeJsonFile(file, { ...settings, hooks });
  return { file, events: [...CODEX_EVENTS] };
}

export function uninstallCodex(codexHome?: string): { file: string; removed: boolean } {
  const file = codexHooksPath(codexHome);
  const settings = readJsonFile(file);
  if (!settings.hooks) return { file, removed: false };
  const hooks = withoutOurs(settings.hooks as Record<string, Matcher[]>);
  const removed = JSON.stringify(hooks) !== JSON.stringify(settings.hooks);
  if (removed) {
    const next = { ...settings };
    if (Object.keys(hooks).length > 0) next.hooks = hooks;
    else delete next.hooks;
    writeJsonFile(file, next);
  }
  return { file, removed };
}
