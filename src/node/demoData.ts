// The demo data directory (docs/demo.md): a data directory of its own, filled by `baton demo` from
// the recorded harness transcripts in demo/sessions/, and marked by a file so that everything
// (the CLI, the extension) can tell it from a user's real data and label it, and so that removing
// it can never delete anything else.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BatonError } from '../core/errors';

/** The marker file: present only in a directory `baton demo` made. */
export const DEMO_MARKER = 'baton-demo.json';

export interface DemoMarker {
  demo: true;
  createdAt: string;
  /** Sessions imported, sub-agents included. */
  sessions: number;
  /** The session worth opening first: the root with the most sub-agents. */
  featured: string | null;
}

/** `$XDG_DATA_HOME/baton-demo`, else `~/.local/share/baton-demo`: beside, never inside, the real data directory. */
export function defaultDemoDataDir(env: NodeJS.ProcessEnv = process.env, home = os.homedir()): string {
  if (env.XDG_DATA_HOME) return path.join(path.resolve(env.XDG_DATA_HOME), 'baton-demo');
  return path.join(home, '.local', 'share', 'baton-demo');
}

export function readDemoMarker(dataDir: string): DemoMarker | null {
  try {
    const marker = JSON.parse(fs.readFileSync(path.join(dataDir, DEMO_MARKER), 'utf8')) as Partial<DemoMarker>;
    return marker && marker.demo === true ? (marker as DemoMarker) : null;
  } catch {
    return null;
  }
}

export function isDemoDataDir(dataDir: string): boolean {
  return readDemoMarker(dataDir) !== null;
}

export function writeDemoMarker(dataDir: string, marker: DemoMarker): void {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  fs.writeFileSync(path.join(dataDir, DEMO_MARKER), JSON.stringify(marker, null, 2) + '\n', { mode: 0o600 });
}

/** Throws unless `dataDir` is missing, empty, or a demo directory: the demo never writes into real data. */
export function assertDemoTarget(dataDir: string): void {
  const entries = fs.existsSync(dataDir) ? fs.readdirSync(dataDir) : [];
  if (entries.length > 0 && !isDemoDataDir(dataDir))
    throw new BatonError('conflict', `${dataDir} holds data that is not Baton's demo (no ${DEMO_MARKER}): choose another --data-dir for the demo`);
}

/** Deletes a demo directory; false when there was none. Refuses a directory without the marker. */
export function removeDemoDataDir(dataDir: string): boolean {
  if (!fs.existsSync(dataDir)) return false;
  if (!isDemoDataDir(dataDir)) throw new BatonError('conflict', `${dataDir} is not a Baton demo directory (no ${DEMO_MARKER}): not removed`);
  fs.rmSync(dataDir, { recursive: true, force: true });
  return true;
}

/** The recorded transcripts (`demo/sessions`), looked for above `from` (dist/ in the bundle, src/cli/ under tsx). */
export function findDemoSessions(from: string): string | null {
  for (let dir = from, i = 0; i < 4; dir = path.dirname(dir), i++) {
    const candidate = path.join(dir, 'demo', 'sessions');
    if (fs.existsSync(candidate)) return candidate;
  }
  return null;
}
