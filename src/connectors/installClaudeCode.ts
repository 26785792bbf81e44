// `baton install claude-code`: merges Baton's hooks into a Claude Code settings file, keeping
// every hook the user already had; running it twice changes nothing; uninstall removes only ours.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CLAUDE_CODE_EVENTS } from './claudeCode';
import { readJsonFile, shellQuote, writeJsonFile } from './settingsFile';

export interface HookCommandOptions {
  nodePath: string;
  cliPath: string;
  dataDir?: string;
  /** An environment assignment put before the command (e.g. ELECTRON_RUN_AS_NODE=1 for VS Code's runtime). */
  envPrefix?: string;
}

export interface InstallTarget {
  scope: 'project' | 'user';
  projectDir?: string;
  /** Claude Code's config dir for user scope (default ~/.claude, or $CLAUDE_CONFIG_DIR). */
  configDir?: string;
}

export interface HttpHookOptions {
  url: string;
  tokenEnvVar: string;
}

export type HookEntry = { type: string; command?: string; url?: string; timeout?: number; headers?: Record<string, string>; allowedEnvVars?: string[] };
export type Matcher = { matcher?: string; hooks?: HookEntry[] };

const OURS = / hook (?:claude-code|codex)\b|hook\.js'? (?:claude-code|codex)\b|\/api\/hooks\/claude-code\b/;

export function settingsPath(target: InstallTarget): string {
  if (target.scope === 'project') return path.join(path.resolve(target.projectDir ?? process.cwd()), '.claude', 'settings.json');
  return path.join(target.configDir ?? process.env.CLAUDE_CONFIG_DIR ?? path.join(os.homedir(), '.claude'), 'settings.json');
}

/** `node …/dist/hook.js claude-code`: the light hook bundle beside the CLI (falls back to `cli.js hook`). */
export function hookCommand(opts: HookCommandOptions, harness: 'claude-code' | 'codex' = 'claude-code'): string {
  const hookJs = path.join(path.dirname(opts.cliPath), 'hook.js');
  const parts = fs.existsSync(hookJs) ? [opts.nodePath, hookJs, harness] : [opts.nodePath, opts.cliPath, 'hook', harness];
  if (opts.dataDir) parts.push('--data-dir', opts.dataDir);
  return (opts.envPrefix ? opts.envPrefix + ' ' : '') + parts.map(shellQuote).join(' ');
}

function isOurs(entry: HookEntry): boolean {
  return OURS.test(entry.command ?? '') || OURS.test(entry.url ?? '');
}

/** Removes Baton's entries from a hooks object; drops matchers and events left empty. */
export function withoutOurs(hooks: Record<string, Matcher[]>): Record<string, Matcher[]> {
  const out: Record<string, Matcher[]> = {};
  for (const [event, matchers] of Object.entries(hooks)) {
    const kept = (Array.isArray(matchers) ? matchers : [])
      .map((m) => ({ ...m, hooks: (m.hooks ?? []).filter((h) => !isOurs(h)) }))
      .filter((m) => m.hooks.length > 0);
    if (kept.length > 0) out[event] = kept;
  }
  return out;
}

/** Where Claude Code reads MCP servers: the project's .mcp.json, or the user's ~/.claude.json. */
export function mcpConfigPath(target: InstallTarget): string {
  if (target.scope === 'project') return path.join(path.resolve(target.projectDir ?? process.cwd()), '.mcp.json');
  const configDir = target.configDir ?? process.env.CLAUDE_CONFIG_DIR;
  return configDir ? path.join(configDir, '.claude.json') : path.join(os.homedir(), '.claude.json');
}

function mcpServerEntry(opts: HookCommandOptions) {
  const [name, value] = (opts.envPrefix ?? '').split('=');
  return {
    type: 'stdio',
    command: opts.nodePath,
    args: [opts.cliPath, 'mcp', ...(opts.dataDir ? ['--data-dir', opts.dataDir] : [])],
    ...(name && value ? { env: { [name]: value } } : {}),
  };
}

export function installClaudeCode(target: InstallTarget, command: HookCommandOptions, http?: HttpHookOptions): { file: string; mcpFile: string; events: string[] } {
  const file = settingsPath(target);
  const settings = readJsonFile(file);
  const mcpFile = mcpConfigPath(target);
  const mcp = readJsonFile(mcpFile);
  writeJsonFile(mcpFile, { ...mcp, mcpServers: { ...((mcp.mcpServers as Record<string, unknown>) ?? {}), baton: mcpServerEntry(command) } });
  if (target.scope === 'project') {
    // Project MCP servers need the user's approval; installing Baton is that approval.
    const enabled = Array.isArray(settings.enabledMcpjsonServers) ? (settings.enabledMcpjsonServers as string[]) : [];
    if (!enabled.includes('baton')) settings.enabledMcpjsonServers = [...enabled, 'baton'];
  }
  const hooks = withoutOurs((settings.hooks as Record<string, Matcher[]>) ?? {});
  const entry: HookEntry = http
    ? { type: 'http', url: `${http.url}/api/hooks/claude-code`, headers: { Authorization: `Bearer $${http.tokenEnvVar}` }, allowedEnvVars: [http.tokenEnvVar], timeout: 5 }
    : { type: 'command', command: hookCommand(command), timeout: 5 };
  for (const event of CLAUDE_CODE_EVENTS) hooks[event] = [...(hooks[event] ?? []), { hooks: [entry] }];
  writeJsonFile(file, { ...settings, hooks });
  return { file, mcpFile, events: [...CLAUDE_CODE_EVENTS] };
}

export function uninstallClaudeCode(target: InstallTarget): { file: string; removed: boolean } {
  const file = settingsPath(target);
  const settings = readJsonFile(file);
  const before = JSON.stringify(settings);
  const next = { ...settings };
  const hooks = withoutOurs((settings.hooks as Record<string, Matcher[]>) ?? {});
  if (Object.keys(hooks).length > 0) next.hooks = hooks;
  else delete next.hooks;
  if (Array.isArray(next.enabledMcpjsonServers)) {
    const rest = (next.enabledMcpjsonServers as string[]).filter((n) => n !== 'baton');
    if (rest.length > 0) next.enabledMcpjsonServers = rest;
    else delete next.enabledMcpjsonServers;
  }
  let removed = JSON.stringify(next) !== before;
  if (removed) writeJsonFile(file, next);
  const mcpFile = mcpConfigPath(target);
  const mcp = readJsonFile(mcpFile);
  const servers = mcp.mcpServers as Record<string, unknown> | undefined;
  if (servers && 'baton' in servers) {
    const { baton: _ours, ...others } = servers;
    writeJsonFile(mcpFile, { ...mcp, mcpServers: others });
    removed = true;
  }
  return { file, removed };
}
