// `baton install codex`: Baton's hook command in $CODEX_HOME/hooks.json (Codex reads the
// Claude-style shape there), keeping the user's own hooks, and Baton's MCP server in
// $CODEX_HOME/config.toml (docs/harnesses.md). Codex skips hooks it does not trust, silently: the
// install records Codex's trust for exactly the entries it wrote (trust.ts), unless told not to.
// Idempotent; removal takes out only Baton's entries, their trust and its MCP server.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { writeFileAtomic } from '../../node/fsync';
import type { HookCommandOptions } from '../harness';
import { hookCommand, mcpArgs, withOurEntry, withoutOurs, type Matcher } from '../hookCommand';
import { readJsonFile, writeJsonFile } from '../settingsFile';
import { removeTomlTables } from './tomlTables';
import { batonHookTrust, CODEX_SESSION_END_MAX_TIMEOUT, removeCodexTrust } from './trust';
import { CODEX_HOOK_EVENTS, CODEX_MATCHERS, HARNESS } from './hooks';

/** Codex's harness id, as its hook command line names it. */

export const CODEX_EVENTS = CODEX_HOOK_EVENTS;

/** Codex's folder: $CODEX_HOME, else ~/.codex. */
export function codexHome(env: NodeJS.ProcessEnv = process.env, home = os.homedir()): string {
  return env.CODEX_HOME || path.join(home, '.codex');
}

export function codexHooksPath(home = codexHome()): string {
  return path.join(home, 'hooks.json');
}

export function installCodex(command: HookCommandOptions, home?: string): { file: string; events: string[] } {
  const file = codexHooksPath(home);
  const settings = readJsonFile(file);
  const hooks = withoutOurs((settings.hooks as Record<string, Matcher[]>) ?? {}, HARNESS);
  // Codex caps a SessionEnd hook at 3 s: writing the capped value keeps the entry identical to what
  // Codex hashes for trust.
  const entry = (event: string) => ({
    type: 'command',
    command: hookCommand(command, HARNESS),
    timeout: event === 'SessionEnd' ? CODEX_SESSION_END_MAX_TIMEOUT : 5,
  });
  for (const event of CODEX_EVENTS) withOurEntry(hooks, event, entry(event), CODEX_MATCHERS[event]);
  writeJsonFile(file, { ...settings, hooks });
  return { file, events: [...CODEX_EVENTS] };
}

/** Removes Baton's hook entries and the trust Codex holds for them (keyed by their positions, so read first). */
export function uninstallCodex(home?: string): { file: string; removed: boolean; trustRemoved: boolean } {
  const file = codexHooksPath(home);
  const settings = readJsonFile(file);
  if (!settings.hooks) return { file, removed: false, trustRemoved: false };
  const trustRemoved = removeCodexTrust(
    codexConfigPath(home),
    batonHookTrust(file, HARNESS).map((t) => t.key),
  );
  const hooks = withoutOurs(settings.hooks as Record<string, Matcher[]>, HARNESS);
  const removed = JSON.stringify(hooks) !== JSON.stringify(settings.hooks);
  if (removed) {
    const next = { ...settings };
    if (Object.keys(hooks).length > 0) next.hooks = hooks;
    else delete next.hooks;
    writeJsonFile(file, next);
  }
  return { file, removed, trustRemoved };
}

const BEGIN = '# >>> baton mcp (managed by `baton install codex`)';
const END = '# <<< baton mcp';

export function codexConfigPath(home = codexHome()): string {
  return path.join(home, 'config.toml');
}

function tomlString(value: string): string {
  return JSON.stringify(value); // a TOML basic string is a JSON string for our characters
}

/** The file without Baton's MCP block: its marker lines and its [mcp_servers.baton] table only. Codex
 * writes tables of its own (e.g. hooks.state) where it likes, also between the markers: they stay. */
function withoutBlock(text: string): string {
  if (!text.includes(BEGIN)) return text;
  const unmarked = text
    .split('\n')
    .filter((line) => line.trim() !== END && !line.startsWith(BEGIN))
    .join('\n');
  return removeTomlTables(unmarked, [['mcp_servers', 'baton']]).replace(/\n{3,}/g, '\n\n');
}

export function registerCodexMcp(opts: HookCommandOptions, home?: string): { file: string; registered: boolean; reason?: string } {
  const file = codexConfigPath(home);
  const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const rest = withoutBlock(text);
  if (/^\s*\[mcp_servers\.baton\]/m.test(rest)) return { file, registered: false, reason: 'config.toml already has an [mcp_servers.baton] of its own' };
  const block = [BEGIN, '[mcp_servers.baton]', `command = ${tomlString(opts.nodePath)}`, `args = [${mcpArgs(opts).map(tomlString).join(', ')}]`, END].join(
    '\n',
  );
  const next = `${rest.trimEnd()}${rest.trim() ? '\n\n' : ''}${block}\n`;
  if (next !== text) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    writeFileAtomic(file, next, fs.existsSync(file) ? fs.statSync(file).mode & 0o777 : 0o600);
  }
  return { file, registered: true };
}

export function unregisterCodexMcp(home?: string): boolean {
  const file = codexConfigPath(home);
  if (!fs.existsSync(file)) return false;
  const text = fs.readFileSync(file, 'utf8');
  const next = withoutBlock(text);
  if (next === text) return false;
  writeFileAtomic(file, next.trimEnd() + (next.trim() ? '\n' : ''), fs.statSync(file).mode & 0o777);
  return true;
}
