// `baton install opencode`: writes Baton's plugin to `.opencode/plugin/baton.js` (project) or
// `$XDG_CONFIG_HOME/opencode/plugin/baton.js` (user), and registers Baton's MCP server in
// opencode.json (docs/harnesses.md). The plugin is dist/opencode-plugin.js (bundled from
// plugin.ts) behind a generated header that fixes the data directory. Installing the same content
// twice writes nothing; uninstall removes that one file, and only when it is Baton's.

import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { BatonError } from '../../core/errors';
import { writeFileAtomic } from '../../node/fsync';
import type { HookCommandOptions } from '../harness';
import { mcpArgs } from '../hookCommand';
import { readJsonFile, writeJsonFile } from '../settingsFile';

/** First line of the generated file: how install/uninstall recognise the file as Baton's. */
export const OPENCODE_PLUGIN_MARKER = '// Baton plugin for OpenCode';

/** The bundle's name beside the CLI and the extension in dist/ (scripts/dev/build.mjs). */
export const PLUGIN_BUNDLE = 'opencode-plugin.js';

export interface OpenCodePluginOptions {
  /** Baton's data directory, fixed at install time; otherwise resolved when the plugin runs. */
  dataDir?: string;
}

export interface OpenCodeInstallTarget {
  scope: 'project' | 'user';
  /** Project scope: the project root (default: the current directory). */
  projectDir?: string;
  /** Baton's data directory, fixed in the plugin; otherwise the plugin resolves it when it runs. */
  dataDir?: string;
}

let bundled: string | undefined;

/**
 * The bundled plugin: dist/opencode-plugin.js beside the running bundle (the CLI, the extension);
 * when running from source (tests, tsx), plugin.ts is bundled the same way, in memory.
 */
function pluginBundle(): string {
  if (bundled !== undefined) return bundled;
  const source = path.join(__dirname, 'plugin.ts');
  if (fs.existsSync(source)) {
    // esbuild is a devDependency: required at run time only here, so it is never bundled.
    const esbuild = createRequire(__filename)('esbuild') as typeof import('esbuild');
    const out = esbuild.buildSync({ entryPoints: [source], bundle: true, platform: 'node', format: 'esm', target: 'node20', write: false, logLevel: 'silent' });
    bundled = out.outputFiles[0].text;
  } else {
    const file = path.join(__dirname, PLUGIN_BUNDLE);
    if (!fs.existsSync(file)) throw new BatonError('internal', `${file} is missing: run the build (npm run build)`);
    bundled = fs.readFileSync(file, 'utf8');
  }
  return bundled;
}

/** The file `baton install opencode` writes: the header (marker, data directory), then the bundle. */
export function openCodePluginSource(options: OpenCodePluginOptions = {}): string {
  const header = [
    `${OPENCODE_PLUGIN_MARKER} (written by \`baton install opencode\`; reinstall rather than edit).`,
    '// Reports OpenCode sessions, their lineage (task children) and transcripts to the local Baton',
    '// server, and hands each child session the "Inherited from Parent Session" block.',
    `const EMBEDDED_DATA_DIR = ${JSON.stringify(options.dataDir ?? null)};`,
  ];
  return header.join('\n') + '\n' + pluginBundle();
}

function configHome(env: NodeJS.ProcessEnv): string {
  return env.XDG_CONFIG_HOME ? path.resolve(env.XDG_CONFIG_HOME) : path.join(os.homedir(), '.config');
}

export function openCodePluginPath(target: Pick<OpenCodeInstallTarget, 'scope' | 'projectDir'>, env: NodeJS.ProcessEnv = process.env): string {
  if (target.scope === 'project') return path.join(path.resolve(target.projectDir ?? process.cwd()), '.opencode', 'plugin', 'baton.js');
  return path.join(configHome(env), 'opencode', 'plugin', 'baton.js');
}

function isOurs(file: string): boolean {
  try {
    return fs.readFileSync(file, 'utf8').startsWith(OPENCODE_PLUGIN_MARKER);
  } catch {
    return false;
  }
}

/** Writes the plugin; `changed` is false when the same content was already there. */
export function installOpenCode(target: OpenCodeInstallTarget): { file: string; changed: boolean } {
  const file = openCodePluginPath(target);
  const source = openCodePluginSource({ dataDir: target.dataDir ? path.resolve(target.dataDir) : undefined });
  if (fs.existsSync(file)) {
    if (fs.readFileSync(file, 'utf8') === source) return { file, changed: false };
    if (!isOurs(file)) throw new BatonError('conflict', `${file} exists and is not Baton's plugin; move it away before installing`);
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  writeFileAtomic(file, source, 0o644);
  return { file, changed: true };
}

/** Removes Baton's plugin file (nothing else); `removed` is false when it was not there. */
export function uninstallOpenCode(target: Pick<OpenCodeInstallTarget, 'scope' | 'projectDir'>): { file: string; removed: boolean } {
  const file = openCodePluginPath(target);
  if (!fs.existsSync(file) || !isOurs(file)) return { file, removed: false };
  fs.rmSync(file, { force: true });
  return { file, removed: true };
}

export function openCodeConfigPath(target: { scope: 'project' | 'user'; projectDir?: string }, env: NodeJS.ProcessEnv = process.env): string {
  if (target.scope === 'project') return path.join(path.resolve(target.projectDir ?? process.cwd()), 'opencode.json');
  return path.join(configHome(env), 'opencode', 'opencode.json');
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
