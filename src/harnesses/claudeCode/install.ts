// `baton install claude-code`: merges Baton's hooks into a Claude Code settings file, keeping
// every hook the user already had, and registers Baton's MCP server (docs/harnesses.md); running
// it twice changes nothing; uninstall removes only ours.

import * as os from 'node:os';
import * as path from 'node:path';
import type { HookCommandOptions, HttpHookOptions } from '../harness';
import { hookCommand, mcpArgs, withoutOurs, type HookEntry, type Matcher } from '../hookCommand';
import { readJsonFile, writeJsonFile } from '../settingsFile';
import { CLAUDE_CODE_HOOK_EVENTS, CLAUDE_CODE_MATCHERS, HARNESS } from './hooks';

export type { HookCommandOptions, HttpHookOptions };

export const CLAUDE_CODE_EVENTS = CLAUDE_CODE_HOOK_EVENTS;

export interface InstallTarget {
  scope: 'project' | 'user';
  projectDir?: string;
  /** Claude Code's config dir for user scope (default ~/.claude, or $CLAUDE_CONFIG_DIR). */
  configDir?: string;
}

/** Claude Code's config folder: $CLAUDE_CONFIG_DIR, else ~/.claude. */
export function claudeConfigDir(env: NodeJS.ProcessEnv = process.env, home = os.homedir()): string {
  return env.CLAUDE_CONFIG_DIR || path.join(home, '.claude');
}

export function settingsPath(target: InstallTarget): string {
  if (target.scope === 'project') return path.join(path.resolve(target.projectDir ?? process.cwd()), '.claude', 'settings.json');
  return path.join(target.configDir ?? process.env.CLAUDE_CONFIG_DIR ?? path.join(os.homedir(), '.claude'), 'settings.json');
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
    args: mcpArgs(opts),
    ...(name && value ? { env: { [name]: value } } : {}),
  };
}

export function installClaudeCode(
  target: InstallTarget,
  command: HookCommandOptions,
  http?: HttpHookOptions,
): { file: string; mcpFile: string; events: string[] } {
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
  const hooks = withoutOurs((settings.hooks as Record<string, Matcher[]>) ?? {}, HARNESS);
  const entry: HookEntry = http
    ? {
        type: 'http',
        url: `${http.url}/api/hooks/${HARNESS}`,
        headers: { Authorization: `Bearer $${http.tokenEnvVar}` },
        allowedEnvVars: [http.tokenEnvVar],
        timeout: 5,
      }
    : { type: 'command', command: hookCommand(command, HARNESS), timeout: 5 };
  for (const event of CLAUDE_CODE_EVENTS) {
    const matcher = CLAUDE_CODE_MATCHERS[event];
    hooks[event] = [...(hooks[event] ?? []), matcher ? { matcher, hooks: [entry] } : { hooks: [entry] }];
  }
  writeJsonFile(file, { ...settings, hooks });
  return { file, mcpFile, events: [...CLAUDE_CODE_EVENTS] };
}

export function uninstallClaudeCode(target: InstallTarget): { file: string; removed: boolean } {
  const file = settingsPath(target);
  const settings = readJsonFile(file);
  const before = JSON.stringify(settings);
  const next = { ...settings };
  const hooks = withoutOurs((settings.hooks as Record<string, Matcher[]>) ?? {}, HARNESS);
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
