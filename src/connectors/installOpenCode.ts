// `baton install opencode`: writes Baton's plugin to `.opencode/plugin/baton.js` (project) or
// `$XDG_CONFIG_HOME/opencode/plugin/baton.js` (user). Installing the same content twice writes
// nothing; uninstall removes that one file, and only when it is Baton's.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BatonError } from '../core/errors';
import { writeFileAtomic } from '../store/fsync';
import { OPENCODE_PLUGIN_MARKER, openCodePluginSource } from './opencodePlugin';

export interface OpenCodeInstallTarget {
  scope: 'project' | 'user';
  /** Project scope: the project root (default: the current directory). */
  projectDir?: string;
  /** Baton's data directory, fixed in the plugin; otherwise the plugin resolves it when it runs. */
  dataDir?: string;
}

export function openCodePluginPath(target: Pick<OpenCodeInstallTarget, 'scope' | 'projectDir'>, env: NodeJS.ProcessEnv = process.env): string {
  if (target.scope === 'project') return path.join(path.resolve(target.projectDir ?? process.cwd()), '.opencode', 'plugin', 'baton.js');
  const configHome = env.XDG_CONFIG_HOME ? path.resolve(env.XDG_CONFIG_HOME) : path.join(os.homedir(), '.config');
  return path.join(configHome, 'opencode', 'plugin', 'baton.js');
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
