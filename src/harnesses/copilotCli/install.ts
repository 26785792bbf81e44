// `baton install copilot-cli`: a hook file of Baton's own, `baton.json`, in the folder GitHub
// Copilot CLI loads hook files from ($COPILOT_HOME/hooks for the user, <repo>/.github/hooks for a
// repository), one entry per event, each naming its event on the command line (the camelCase
// payloads do not); user scope also registers Baton's MCP server in $COPILOT_HOME/mcp-config.json
// (docs/harnesses.md, "GitHub Copilot CLI"). Baton owns that one file: rewriting it is idempotent,
// the user's other hook files and MCP servers are never touched, and a `baton.json` that is not
// Baton's is refused, never overwritten.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BatonError } from '../../core/errors';
import { fsyncDir, writeFileAtomic } from '../../node/fsync';
import type { Harness, HookCommandOptions, InstallContext, InstallResult, InstallScope, UninstallResult } from '../harness';
import { hookCommand, isOurEntry, mcpArgs } from '../hookCommand';
import { COPILOT_CLI_EVENTS, HARNESS } from './hooks';
import { copilotHome } from './paths';

/** Baton's hook file's name, in either hooks folder. */
export const HOOK_FILE_NAME = 'baton.json';

/** The MCP server's name in mcp-config.json. */
export const MCP_SERVER_NAME = 'baton';

/** Each hook's budget in Copilot CLI (its `timeoutSec`); the hook itself answers well within it. */
const HOOK_TIMEOUT_SEC = 10;

/** What the hook file's entries are: Copilot CLI's command hook (`bash` on POSIX, `powershell` on Windows). */
interface CopilotHookEntry {
  type: string;
  bash?: string;
  powershell?: string;
  command?: string;
  timeoutSec?: number;
}

type JsonObject = Record<string, unknown>;

export interface CopilotCliInstallResult extends InstallResult {
  /** The hook file written. */
  file: string;
  events: string[];
  /** User scope: the MCP config Baton's server was registered in (or left alone). */
  mcpFile?: string;
}

/** `$COPILOT_HOME/hooks/baton.json` (user) or `<projectDir>/.github/hooks/baton.json` (project). */
export function copilotCliHookFilePath(scope: InstallScope, projectDir?: string, env: NodeJS.ProcessEnv = process.env, home = os.homedir()): string {
  if (scope === 'project') return path.join(path.resolve(projectDir ?? process.cwd()), '.github', 'hooks', HOOK_FILE_NAME);
  return path.join(copilotHome(env, home), 'hooks', HOOK_FILE_NAME);
}

/** `$COPILOT_HOME/mcp-config.json`: the user's MCP servers. */
export function copilotCliMcpConfigPath(env: NodeJS.ProcessEnv = process.env, home = os.homedir()): string {
  return path.join(copilotHome(env, home), 'mcp-config.json');
}

/** The hook file: `{version: 1, hooks: {event: [entry]}}`, one command entry per event, each with `--event`. */
export function copilotCliHookFileContent(command: HookCommandOptions): string {
  const hooks = Object.fromEntries(
    COPILOT_CLI_EVENTS.map((event) => [event, [{ type: 'command', bash: hookCommand(command, HARNESS, event), timeoutSec: HOOK_TIMEOUT_SEC }]]),
  );
  return JSON.stringify({ version: 1, hooks }, null, 2) + '\n';
}

/** True when the entry runs Baton's hook command for Copilot CLI (isOurEntry reads `command`; Copilot's are `bash`/`powershell`). */
function isOurCopilotEntry(entry: unknown): boolean {
  if (!entry || typeof entry !== 'object') return false;
  const e = entry as CopilotHookEntry;
  return [e.bash, e.powershell, e.command].some((text) => typeof text === 'string' && isOurEntry({ type: 'command', command: text }, HARNESS));
}

type Ownership = { state: 'absent' } | { state: 'ours'; text: string } | { state: 'foreign'; why: string };

/** Whether the file at `file` is Baton's hook file: it holds at least one entry running Baton's hook command. */
function hookFileOwnership(file: string): Ownership {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'absent' };
    return { state: 'foreign', why: `it cannot be read (${(err as Error).message})` };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { state: 'foreign', why: 'it is not JSON' };
  }
  const hooks = parsed && typeof parsed === 'object' ? (parsed as JsonObject).hooks : undefined;
  const entries = hooks && typeof hooks === 'object' ? Object.values(hooks as JsonObject).flatMap((list) => (Array.isArray(list) ? list : [])) : [];
  return entries.some(isOurCopilotEntry) ? { state: 'ours', text } : { state: 'foreign', why: "none of its hooks runs Baton's hook command" };
}

/** Creates the folders missing above `file`, readable by the user only. */
function ensureDir(file: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
}

function fileMode(file: string, fallback: number): number {
  try {
    return fs.statSync(file).mode & 0o777;
  } catch {
    return fallback;
  }
}

/** Writes Baton's hook file; `changed` is false when the same bytes were already there. Refuses a `baton.json` that is not Baton's. */
function writeHookFile(file: string, content: string): { changed: boolean } {
  const owner = hookFileOwnership(file);
  if (owner.state === 'foreign') {
    throw new BatonError('conflict', `${file} exists and is not Baton's hook file (${owner.why}); move it away before installing Baton's Copilot CLI hooks`);
  }
  if (owner.state === 'ours' && owner.text === content) return { changed: false };
  ensureDir(file);
  writeFileAtomic(file, content, fileMode(file, 0o600));
  return { changed: true };
}

/** True when mcp-config.json's `baton` server is the one Baton registers (the CLI's `mcp` bridge). */
function isOurMcpServer(server: unknown): boolean {
  if (!server || typeof server !== 'object') return false;
  const args = (server as JsonObject).args;
  return Array.isArray(args) && args[1] === 'mcp';
}

/** Baton's MCP server as Copilot CLI starts it: a local process, all its tools allowed. */
function mcpServerEntry(opts: HookCommandOptions): JsonObject {
  // Inside VS Code the node binary is Electron's: the prefix that makes it run as node goes into `env`.
  const [name, value] = (opts.envPrefix ?? '').split('=');
  return {
    type: 'local',
    command: opts.nodePath,
    args: mcpArgs(opts),
    ...(name && value ? { env: { [name]: value } } : {}),
    tools: ['*'],
  };
}

type McpConfig = { state: 'absent' } | { state: 'ok'; config: JsonObject; servers: JsonObject } | { state: 'unusable'; why: string };

/** mcp-config.json as an object with an `mcpServers` object; anything else is left alone, never overwritten. */
function readMcpConfig(file: string): McpConfig {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'absent' };
    return { state: 'unusable', why: `it cannot be read (${(err as Error).message})` };
  }
  if (!text.trim()) return { state: 'absent' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return { state: 'unusable', why: `it is not valid JSON (${(err as Error).message})` };
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return { state: 'unusable', why: 'it does not hold a JSON object' };
  const config = parsed as JsonObject;
  const servers = config.mcpServers ?? {};
  if (!servers || typeof servers !== 'object' || Array.isArray(servers)) return { state: 'unusable', why: 'its mcpServers is not an object' };
  return { state: 'ok', config, servers: servers as JsonObject };
}

/** Writes mcp-config.json (its mode kept; new: the user's only), with a one-time backup of the user's original. */
function writeMcpConfig(file: string, config: JsonObject): void {
  ensureDir(file);
  const backup = `${file}.baton-backup`;
  if (fs.existsSync(file) && !fs.existsSync(backup)) fs.copyFileSync(file, backup);
  writeFileAtomic(file, JSON.stringify(config, null, 2) + '\n', fileMode(file, 0o600));
}

/** Registers Baton's MCP server, keeping every other server and key; one message for the user. */
function registerMcp(file: string, opts: HookCommandOptions): string {
  const current = readMcpConfig(file);
  if (current.state === 'unusable')
    return `Left ${file} alone: ${current.why}; fix it, then run \`baton install copilot-cli --user\` again to register the Baton MCP server`;
  const config = current.state === 'ok' ? current.config : {};
  const servers = current.state === 'ok' ? current.servers : {};
  if (MCP_SERVER_NAME in servers && !isOurMcpServer(servers[MCP_SERVER_NAME])) {
    return `Left the MCP servers in ${file} alone: it already has a "${MCP_SERVER_NAME}" server of its own`;
  }
  const next = { ...config, mcpServers: { ...servers, [MCP_SERVER_NAME]: mcpServerEntry(opts) } };
  if (current.state === 'ok' && JSON.stringify(next) === JSON.stringify(config)) return `The Baton MCP server in ${file} is up to date`;
  writeMcpConfig(file, next);
  return `Registered the Baton MCP server in ${file}`;
}

/** Removes Baton's MCP server only; a message when something was done or left alone, else null. */
function unregisterMcp(file: string): string | null {
  const current = readMcpConfig(file);
  if (current.state === 'unusable') return `Left ${file} alone: ${current.why}`;
  if (current.state === 'absent' || !isOurMcpServer(current.servers[MCP_SERVER_NAME])) return null;
  const { [MCP_SERVER_NAME]: _ours, ...others } = current.servers;
  writeMcpConfig(file, { ...current.config, mcpServers: others });
  return `Removed the Baton MCP server from ${file}`;
}

/** How repo hooks come to run: Copilot CLI loads .github/hooks in `copilot -p` only in a trusted folder. */
const TRUST_MESSAGE =
  'Copilot CLI runs repository hooks in `copilot -p` only in a trusted folder: pass `--trust-folder` (copilot --trust-folder -p …), set COPILOT_ALLOW_ALL=true, or trust the folder when an interactive copilot asks';

/** Installs Baton's hook file (and, user scope, its MCP server). `env`/`home` locate $COPILOT_HOME. */
export function installCopilotCli(ctx: InstallContext, env: NodeJS.ProcessEnv = process.env, home = os.homedir()): CopilotCliInstallResult {
  const file = copilotCliHookFilePath(ctx.scope, ctx.projectDir, env, home);
  const events = [...COPILOT_CLI_EVENTS];
  const { changed } = writeHookFile(file, copilotCliHookFileContent(ctx.command));
  const messages = [changed ? `Installed Baton hooks (${events.join(', ')}) in ${file}` : `The Baton hooks in ${file} are up to date`];
  if (ctx.http) messages.push('Copilot CLI has no HTTP hooks: its hooks run the hook command (--http ignored)');
  if (ctx.scope === 'project') {
    messages.push(TRUST_MESSAGE, 'The Baton MCP server is registered by the user install (`baton install copilot-cli --user`)');
    return { file, events, messages };
  }
  const mcpFile = copilotCliMcpConfigPath(env, home);
  messages.push(registerMcp(mcpFile, ctx.command));
  return { file, events, mcpFile, messages };
}

/** Removes Baton's hook file (only when it is Baton's) and, user scope, its MCP server; everything else stays. */
export function uninstallCopilotCli(scope: InstallScope, projectDir?: string, env: NodeJS.ProcessEnv = process.env, home = os.homedir()): UninstallResult {
  const file = copilotCliHookFilePath(scope, projectDir, env, home);
  const messages: string[] = [];
  const owner = hookFileOwnership(file);
  if (owner.state === 'ours') {
    fs.rmSync(file, { force: true });
    fsyncDir(path.dirname(file));
  } else if (owner.state === 'foreign') {
    messages.push(`Left ${file} alone: it is not Baton's hook file (${owner.why})`);
  }
  if (scope === 'user') {
    const mcp = unregisterMcp(copilotCliMcpConfigPath(env, home));
    if (mcp) messages.push(mcp);
  }
  return { file, removed: owner.state === 'ours', messages };
}

/** `baton install|uninstall copilot-cli` and VS Code's install menu. */
export const COPILOT_CLI_INSTALL: NonNullable<Harness['install']> = {
  scopes: ['user', 'project'],
  install: (ctx) => installCopilotCli(ctx),
  uninstall: (ctx) => uninstallCopilotCli(ctx.scope, ctx.projectDir),
  menu: [
    {
      label: 'GitHub Copilot CLI — user hooks ($COPILOT_HOME/hooks/baton.json)',
      description: 'and the MCP server in $COPILOT_HOME/mcp-config.json',
      scope: 'user',
    },
    {
      label: 'GitHub Copilot CLI — this repository (.github/hooks/baton.json)',
      description: 'runs in `copilot -p` only in a trusted folder',
      scope: 'project',
    },
  ],
  notice: ' Start a new copilot session for them to run (repository hooks: in a trusted folder only).',
  neverFiredHint:
    'No GitHub Copilot CLI hook has reached Baton. Repository hooks (.github/hooks/baton.json) run in `copilot -p` only in a trusted folder (`--trust-folder`, or COPILOT_ALLOW_ALL=true); user hooks are read from $COPILOT_HOME/hooks, so a COPILOT_HOME in the shell that runs copilot other than the one that installed finds none. Run `baton install copilot-cli --user` in the same environment that runs copilot.',
};
