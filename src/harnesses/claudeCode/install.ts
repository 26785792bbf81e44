// `baton install claude-code`: merges Baton's hooks into a Claude Code settings file, keeping
// every hook the user already had, and registers Baton's MCP server (docs/harnesses.md); running
// it twice changes nothing; uninstall removes only ours. By default the events Claude Code posts
// over HTTP get `type: "http"` entries, the others the hook command; the token they name is
// written only where a project never commits it (docs/security.md, "The hooks token").

import * as os from 'node:os';
import * as path from 'node:path';
import { HOOK_TOKEN_ENV, HTTP_HOOK_TIMEOUT_S, type HookCommandOptions, type HttpHookOptions } from '../harness';
import { hookCommand, mcpArgs, withOurEntry, withoutOurs, type HookEntry, type Matcher } from '../hookCommand';
import { readJsonFile, writeJsonFile } from '../settingsFile';
import { CLAUDE_CODE_HOOK_EVENTS, CLAUDE_CODE_MATCHERS, HARNESS } from './hooks';
import { keepOutOfGit, readHookToken, setSettingsEnv } from './hookToken';

export { HOOK_TOKEN_ENV, type HookCommandOptions, type HttpHookOptions };

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

/**
 * Events whose `type: "http"` hooks Claude Code 2.1.328 skips (its debug log: "HTTP hooks are not
 * supported for SessionStart"): they keep the hook command. Its `type: "mcp_tool"` hooks are no way
 * round it: at a session's start or resume they are skipped before any MCP server is connected.
 * Every other event was checked to deliver over HTTP with the real CLI (docs/harnesses.md, "HTTP hooks").
 */
export const HTTP_UNSUPPORTED_EVENTS: ReadonlySet<string> = new Set(['SessionStart', 'Setup']);

/**
 * Where the hooks token is written: a file Claude Code reads `env` from and a project never commits.
 * Project scope: `.claude/settings.local.json` (kept out of git, below); user scope: the user's
 * settings.json, outside every project. (Claude Code does not read a user-level settings.local.json.)
 */
export function tokenFilePath(target: InstallTarget): string {
  if (target.scope === 'project') return path.join(path.resolve(target.projectDir ?? process.cwd()), '.claude', 'settings.local.json');
  return settingsPath(target);
}

/** Baton's entry for one event: an HTTP hook where Claude Code honours it and `http` is given, else the hook command. */
function entryFor(event: string, command: HookCommandOptions, http: HttpHookOptions | undefined): HookEntry {
  if (http && !HTTP_UNSUPPORTED_EVENTS.has(event))
    return {
      type: 'http',
      url: `${http.url}/api/hooks/${HARNESS}`,
      headers: { Authorization: `Bearer $${http.tokenEnvVar}` },
      allowedEnvVars: [http.tokenEnvVar],
      timeout: HTTP_HOOK_TIMEOUT_S,
    };
  return { type: 'command', command: hookCommand(command, HARNESS), timeout: 5 };
}

export async function installClaudeCode(
  target: InstallTarget,
  command: HookCommandOptions,
  http?: HttpHookOptions,
): Promise<{ file: string; mcpFile: string; events: string[]; httpEvents: string[]; tokenFile?: string; gitExclude?: ReturnType<typeof keepOutOfGit> }> {
  const file = settingsPath(target);
  const settings = readJsonFile(file);
  const mcpFile = mcpConfigPath(target);
  const mcp = readJsonFile(mcpFile);
  // The token first: when it cannot be issued, nothing is written.
  const token = http?.issueToken ? await http.issueToken(readHookToken(tokenFilePath(target), http.tokenEnvVar)) : undefined;
  writeJsonFile(mcpFile, { ...mcp, mcpServers: { ...((mcp.mcpServers as Record<string, unknown>) ?? {}), baton: mcpServerEntry(command) } });
  if (target.scope === 'project') {
    // Project MCP servers need the user's approval; installing Baton is that approval.
    const enabled = Array.isArray(settings.enabledMcpjsonServers) ? (settings.enabledMcpjsonServers as string[]) : [];
    if (!enabled.includes('baton')) settings.enabledMcpjsonServers = [...enabled, 'baton'];
  }
  const hooks = withoutOurs((settings.hooks as Record<string, Matcher[]>) ?? {}, HARNESS);
  const httpEvents: string[] = [];
  for (const event of CLAUDE_CODE_EVENTS) {
    const entry = entryFor(event, command, http);
    if (entry.type === 'http') httpEvents.push(event);
    withOurEntry(hooks, event, entry, CLAUDE_CODE_MATCHERS[event]);
  }
  writeJsonFile(file, { ...settings, hooks });
  if (!http || token === undefined) return { file, mcpFile, events: [...CLAUDE_CODE_EVENTS], httpEvents };
  // The token never goes into the project's settings.json, which projects commit (docs/security.md, "The hooks token").
  const tokenFile = tokenFilePath(target);
  setSettingsEnv(tokenFile, http.tokenEnvVar, token);
  const gitExclude = target.scope === 'project' ? keepOutOfGit(tokenFile) : undefined;
  return { file, mcpFile, events: [...CLAUDE_CODE_EVENTS], httpEvents, tokenFile, gitExclude };
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
  // The hooks token goes with the hooks (it stays valid in the store until `baton token revoke`).
  if (readHookToken(tokenFilePath(target)) !== undefined && setSettingsEnv(tokenFilePath(target), HOOK_TOKEN_ENV, undefined)) removed = true;
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
