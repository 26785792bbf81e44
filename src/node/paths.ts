// Where Baton keeps its files. One data directory holds the lock, the journal, the snapshots
// and (when a server runs) endpoint.json.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export interface DataDirSources {
  flag?: string;
  env?: NodeJS.ProcessEnv;
  home?: string;
}

/** `--data-dir`, else $BATON_DATA_DIR, else $XDG_DATA_HOME/baton, else ~/.local/share/baton. */
export function resolveDataDir(sources: DataDirSources = {}): string {
  const env = sources.env ?? process.env;
  if (sources.flag) return path.resolve(sources.flag);
  if (env.BATON_DATA_DIR) return path.resolve(env.BATON_DATA_DIR);
  if (env.XDG_DATA_HOME) return path.join(path.resolve(env.XDG_DATA_HOME), 'baton');
  return path.join(sources.home ?? os.homedir(), '.local', 'share', 'baton');
}

export function layout(dataDir: string) {
  return {
    dataDir,
    lock: path.join(dataDir, 'baton.lock'),
    endpoint: path.join(dataDir, 'endpoint.json'),
    journalDir: path.join(dataDir, 'journal'),
    snapshotDir: path.join(dataDir, 'snapshots'),
    logFile: path.join(dataDir, 'baton.log'),
    staging: path.join(dataDir, 'staging'),
  };
}
export type Layout = ReturnType<typeof layout>;

/** Files in `dir` whose names match `pattern` (group 1: a sequence number), ordered by that number, ascending. */
export function numberedFiles(dir: string, pattern: RegExp): Array<{ path: string; seq: number }> {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .map((name) => ({ name, m: pattern.exec(name) }))
    .filter((e) => e.m)
    .map((e) => ({ path: path.join(dir, e.name), seq: Number(e.m![1]) }))
    .sort((a, b) => a.seq - b.seq);
}
