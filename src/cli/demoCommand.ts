// `baton demo [--data-dir D] [--remove]`: fills a demo data directory from the recorded harness
// transcripts in demo/sessions/ through the same import as `baton import` (docs/demo.md), so the
// tree, search, preview and `@baton` have something real to show before any harness is installed.
// Never the user's data directory; idempotent; `--remove` deletes it again. The recorded harnesses
// are the registry's importers with a folder `demo/sessions/<harness id>` (in that harness's own
// layout); a harness without one is skipped.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { Command, Option } from 'commander';
import { BatonError } from '../core/errors';
import { harnessImporters } from '../harnesses/registry';
import { loadSqlJs } from '../store/engine/sqljs';
import { assertDemoTarget, defaultDemoDataDir, findDemoSessions, readDemoMarker, removeDemoDataDir, writeDemoMarker } from '../node/demoData';
import { liveEndpoint } from '../node/endpointCall';
import { resolveDataDir } from '../node/paths';
import { openApi } from '../server/localApi';
import { assertWritableDataDir } from './dataDirChecks';
import { printRecoveryLine } from './openStore';

interface Helpers {
  out(text: string): void;
}

export interface DemoResult {
  dataDir: string;
  sessions: number;
  subagents: number;
  turnsAdded: number;
  featured: string | null;
}

/** Imports the recorded sessions into `dataDir` (made a demo directory first). */
export async function prepareDemo(dataDir: string, sessionsDir: string): Promise<DemoResult> {
  assertDemoTarget(dataDir);
  // The marker first: a directory left half-imported is still recognisably the demo (and removable).
  const previous = readDemoMarker(dataDir);
  const createdAt = previous?.createdAt ?? new Date().toISOString();
  writeDemoMarker(dataDir, { demo: true, createdAt, sessions: previous?.sessions ?? 0, featured: null });
  const open = () => openApi(dataDir, { holder: 'baton demo', onRecovery: printRecoveryLine }, 60_000);
  const total = { sessions: 0, subagents: 0, turnsAdded: 0 };
  let featured: string | null = null;
  for (const { id, importer } of harnessImporters()) {
    const folder = path.join(sessionsDir, id);
    if (!fs.existsSync(folder)) continue;
    const result = await importer.run(folder, { open, loadSqlJs });
    total.sessions += result.sessions;
    total.subagents += result.subagents;
    total.turnsAdded += result.turnsAdded;
    // The first recording that names a session to open first (Claude Code's story: its lineage is the deepest).
    featured ??= importer.featured?.(folder) ?? null;
  }
  writeDemoMarker(dataDir, { demo: true, createdAt, sessions: total.sessions, featured });
  return { dataDir, ...total, featured };
}

export function registerDemoCommand(program: Command, { out }: Helpers): void {
  program
    .command('demo')
    .description('fill a separate demo data directory with recorded sessions (or remove it with --remove)')
    .addOption(new Option('--data-dir <dir>', 'the demo data directory (default: $XDG_DATA_HOME/baton-demo or ~/.local/share/baton-demo)'))
    .option('--remove', 'delete the demo data directory')
    .option('--json', 'machine-readable summary')
    .action(async (opts: { dataDir?: string; remove?: boolean; json?: boolean }) => {
      const dataDir = opts.dataDir ? path.resolve(opts.dataDir) : defaultDemoDataDir();
      if (dataDir === resolveDataDir() && !readDemoMarker(dataDir))
        throw new BatonError('conflict', `${dataDir} is your Baton data directory; the demo goes into a directory of its own (--data-dir)`);
      if (opts.remove && liveEndpoint(dataDir))
        throw new BatonError('conflict', `a Baton server holds ${dataDir}: stop it (or leave the demo in VS Code) first`);
      if (opts.remove) {
        const removed = removeDemoDataDir(dataDir);
        out(opts.json ? JSON.stringify({ dataDir, removed }) : removed ? `removed the demo data in ${dataDir}` : `no demo data in ${dataDir}`);
        return;
      }
      assertWritableDataDir(dataDir);
      const sessionsDir = findDemoSessions(__dirname);
      if (!sessionsDir) throw new BatonError('not_found', 'the recorded demo sessions (demo/sessions) are not next to this Baton install');
      const result = await prepareDemo(dataDir, sessionsDir);
      out(
        opts.json
          ? JSON.stringify(result, null, 2)
          : `demo data ready in ${dataDir}: ${result.sessions} sessions (${result.subagents} sub-agents), ${result.turnsAdded} turns added\n` +
              `look at it: baton sessions --data-dir ${dataDir}   or in VS Code: Baton: Explore a Demo`,
      );
    });
}
