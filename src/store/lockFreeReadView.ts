// The store as read-only commands open it: the newest valid snapshot plus the journal after it,
// loaded into memory on this thread, with no lock taken and nothing written, moved or truncated
// (a torn journal tail is skipped here, not cut off). A writer may be working on the same
// directory meanwhile: a snapshot it writes or a file it removes while this loads makes the load
// start over, so the view is always one consistent prefix of the journal. A data directory with
// nothing recorded yet reads as an empty store (docs/storage.md, "Where the data directory is").

import * as fs from 'node:fs';
import type { Database } from 'sql.js';
import { BatonError } from '../core/errors';
import { forgetStatements } from './db';
import { loadDatabase, type OpenReport } from './engine/load';
import { DataLossError } from './engine/recovery';
import { inspectDataDir, dataDirError } from '../node/dataDirState';
import { layout } from '../node/paths';
import { listSnapshots } from './engine/snapshot';
import { READ_QUERIES, type ReadArgs, type ReadName, type ReadResult } from './reads';
import { loadSqlJs } from './engine/sqljs';

const ATTEMPTS = 5;

export class ReadView {
  private constructor(
    private db: Database | null,
    /** What loading found: recovery events (a read-only view moves nothing aside, docs/storage.md). */
    readonly report: OpenReport,
  ) {}

  static async open(dataDir: string): Promise<ReadView> {
    // Nothing recorded yet (no folder, or no journal or snapshots in it) loads as an empty store:
    // the load below finds no files and creates none. A path Baton cannot use is an error naming why.
    const state = inspectDataDir(dataDir);
    if (state.kind === 'unusable') throw dataDirError(dataDir, state.problem);
    const SQL = await loadSqlJs();
    const paths = layout(dataDir);
    for (let attempt = 1; ; attempt++) {
      let db: Database | null = null;
      try {
        // A finite upper bound: loadDatabase cuts torn tails off only when it opens for writing (no bound).
        const loaded = loadDatabase(SQL, paths, Number.MAX_SAFE_INTEGER);
        db = loaded.db;
        // A writer that wrote a newer snapshot meanwhile may have pruned the journal this load
        // needed (or the snapshot it was reading): what was loaded may miss frames. Load again.
        const skipped = new Set(loaded.report.skippedSnapshots.map((s) => s.file));
        const vanished = [...skipped].some((file) => !fs.existsSync(file));
        const newer = listSnapshots(paths.snapshotDir).some((s) => s.seq > loaded.report.snapshotSeq && !skipped.has(s.path));
        if (!vanished && !newer) {
          // Reading a store with acknowledged writes missing would show partial data: refuse, as an open does.
          if (loaded.report.missing.length > 0) throw new DataLossError(dataDir, loaded.report.missing);
          return new ReadView(db, loaded.report);
        }
      } catch (err) {
        if (db) {
          forgetStatements(db);
          db.close();
          db = null;
        }
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || attempt >= ATTEMPTS) throw err;
      }
      if (db) {
        forgetStatements(db);
        db.close();
      }
      if (attempt >= ATTEMPTS) throw new BatonError('unavailable', `the store in ${dataDir} kept changing while it was read; try again`);
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    }
  }

  read<N extends ReadName>(name: N, args: ReadArgs<N>): ReadResult<N> {
    if (!this.db) throw new BatonError('unavailable', 'the store view is closed');
    const query = READ_QUERIES[name] as (db: Database, args: unknown) => ReadResult<N>;
    return query(this.db, args);
  }

  close(): void {
    if (!this.db) return;
    forgetStatements(this.db);
    this.db.close();
    this.db = null;
  }
}
