// Registers Baton's MCP server (`baton mcp`, the stdio bridge to the endpoint) with the harnesses
// that speak MCP besides Claude Code: Codex (config.toml) and OpenCode (opencode.json). Idempotent;
// removal takes out only Baton's entry.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { writeFileAtomic } from '../store/fsync';
import type { HookCommandOptions } from './installClaudeCode';
import { readJsonFile, writeJsonFile } from './settingsFile';

function mcpArgs(opts: HookCommandOptions): string[] {
  return [opts.cliPath, 'mcp', ...(opts.dataDir ? ['--data-dir', opts.dataDir] : [])];
}

const BEGIN = '# >>> baton mcp (managed by `baton install codex`)';
const END = '# <<< baton mcp';

export function codexConfigPath(codexHome = process.env.CODEX_HOME || path.join(os.homedir(), '.codex')): string {
  return path.join(codexHome, 'config.toml');
}

function tomlString(value: string): string {
  return JSON.stringify(value); // a TOML basic string is a JSON string for our characters
}

function withoutBlock(text: string): string {
  const start = text.indexOf(BEGIN);
  if (start < 0) return text;
  const end = text.indexOf(END, start);
  return (text.slice(0, start) + (end < 0 ? '' : text.slice(end + END.length))).replace(/\n{3,}/g, '\n\n');
}

export function registerCodexMcp(opts: HookCommandOptions, codexHome?: string): { file: string; registered: boolean; reason?: string } {
  const file = codexConfigPath(codexHome);
  const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const rest = withoutBlock(text);
  if (/^\s*\[mcp_servers\.baton\]/m.test(rest)) return { file, registered: false, reason: 'config.toml already has an [mcp_servers.baton] of its own' };
  const block = [BEGIN, '[mcp_servers.baton]', `command = ${tomlString(opts.nodePath)}`, `args = [${mcpArgs(opts).map(tomlString).join(', ')}]`, END].join('\n');
  const next = `${rest.trimEnd()}${rest.trim() ? '\n\n' : ''}${block}\n`;
  if (next !== text) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    writeFileAtomic(file, next, fs.existsSync(file) ? fs.statSync(file).mode & 0o777 : 0o600);
  }
  return { file, registered: true };
}

export function unregisterCodexMcp(codexHome?: string): boolean {
  const file = codexConfigPath(codexHome);
  if (!fs.existsSync(file)) return false;
  const text = fs.readFileSync(file, 'utf8');
  const next = withoutBlock(text);
  if (next === text) return false;
  writeFileAtomic(file, next.trimEnd() + (next.trim() ? '\n' : ''), fs.statSync(file).mode & 0o777);
  return true;
}

export function openCodeConfigPath(target: { scope: 'project' | 'user'; projectDir?: string }, env: NodeJS.ProcessEnv = process.env): string {
  if (target.scope === 'project') return path.join(path.resolve(target.projectDir ?? process.cwd()), 'opencode.json');
  const configHome = env.XDG_CONFIG_HOME ? path.resolve(env.XDG_CONFIG_HOME) : path.join(os.homedir(), '.config');
  return path.join(configHome, 'opencode', 'opencode.json');
}

export function registerOpenCodeMcp(target: { scope: 'project' | 'user'; projectDir?: string }, opts: HookCommandOptions): { file: string } {
  const file = openCodeConfigPath(target);
  const config = readJsonFile(file);
  const mcp = { ...((config.mcp as Record<string, unknown>) ?? {}), baton: { type: 'local', command: [opts.nodePath, ...mcpArgs(opts)], enabled: true } };
  const next = { ...config, mcp };
  if (JSON.stringify(next) !== JSON.stringify(config)) writeJsonFile(file, next);
  return { file };
}

export function unregisterOpenCodeMcp(target: { scope: 'project' | 'user'; projectDir?: string }): boolean {
  const file = openCodeConfigPath(target);
  const config = readJsonFile(file);
  const mcp = config.mcp as Record<string, unknown> | undefined;
  if (!mcp || !('baton' in mcp)) return false;
  const { baton: _ours, ...others } = mcp;
  const next = { ...config };
  if (Object.keys(others).length > 0) next.mcp = others;
  else delete next.mcp;
  writeJsonFile(file, next);
  return true;
}
