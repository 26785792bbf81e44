// What `npm start` needs to open Baton on the demo (docs/demo.md): a demo data directory of its
// own, filled by the built CLI's `baton demo` (the recorded sessions through `baton import`'s
// code), and the environment that points the extension at it. Never the user's data directory.
// Kept apart from scripts/dev/run-vscode.ts so that whatever starts the VS Code host makes one call.

import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

export interface StartDemo {
  dataDir: string;
  /** The session the view selects at start. */
  featured: string | null;
  /** For the VS Code host's process: the extension host inherits it. */
  env: Record<string, string>;
  /** Flags for code-server: the demo folder opens trusted for this run (no trust prompt). */
  hostFlags: string[];
}

/**
 * Fills (idempotently) `dataDir` with the demo and returns what the VS Code host needs.
 * Throws with the CLI's message when it fails (e.g. `dataDir` holds other data).
 */
export function prepareStartDemo(repoRoot: string, dataDir: string): StartDemo {
  const cli = path.join(repoRoot, 'dist', 'cli.js');
  const made = spawnSync(process.execPath, [cli, 'demo', '--data-dir', dataDir, '--json'], { encoding: 'utf8', timeout: 120_000 });
  if (made.status !== 0) throw new Error(`baton demo failed: ${(made.stderr || made.error?.message || '').trim()}`);
  const result = JSON.parse(made.stdout) as { dataDir: string; featured: string | null };
  return {
    dataDir: result.dataDir,
    featured: result.featured,
    env: { BATON_DATA_DIR: result.dataDir, BATON_DEMO_FOCUS: '1' },
    hostFlags: ['--disable-workspace-trust'],
  };
}
