// Snapshots patched from the pages written since the previous one, on the real sql.js: the snapshot
// holds the file exactly as it was when the capture started, while writes go on during the capture
// (copy-on-write), across several snapshots in a row, after a failed one, and never from a damaged
// base. And through the real store: a snapshot written while hooks write opens intact.

import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Database } from 'sql.js';
import { compactByPatch, compactByReplay, Engine, type CompactionJob, type Request } from '../../src/store/engine/engine';
import { executeAll } from '../helpers/engine';
import { TRACK_PAGE, type PageTracker } from '../../src/store/engine/pageTracker';
import { layout, type Layout } from '../../src/node/paths';
import { fileImage, fileSize, openWithRoom, trackerOf } from '../../src/store/engine/roomyDatabase';
import { listSnapshots, readSnapshot, UnusableBaseError, type PageSource } from '../../src/store/engine/snapshot';
import { loadSqlJs } from '../../src/store/engine/sqljs';
import { Store } from '../../src/store/store';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';

function addRows(db: Database, from: number, count: number): void {
  db.exec('BEGIN');
  for (let i = from; i < from + count; i++) db.run('INSERT INTO t (id, body) VALUES (?, ?)', [i, `row ${i} `.repeat(40 + (i % 50))]);
  db.exec('COMMIT');
}

function rewriteRows(db: Database, ids: number[], tag: string): void {
  db.exec('BEGIN');
  for (const id of ids) db.run('UPDATE t SET body = ? WHERE id = ?', [`${tag} ${id} `.repeat(30), id]);
  db.exec('COMMIT');
}

/** A page source that writes to the database before laying out each window's pages. */
function sourceWithWritesBetween(tracker: PageTracker, between: (call: number) => void): PageSource {
  let call = 0;
  return {
    async overlay(fromPage, toPage, into) {
      between(call++);
      tracker.overlay(fromPage, toPage, into);
    },
  };
}

/** 16 pages: a test database of a few MB goes out in many windows. */
const WINDOW_BYTES = 16 * TRACK_PAGE;

/** Patches a snapshot of `db` as it is now while `between` writes meanwhile; returns the expected image and the file. */
async function snapshotNow(db: Database, paths: Layout, seq: number, base: string | null, between: (call: number) => void = () => undefined) {
  const tracker = trackerOf(db);
  assert.ok(tracker, 'the file is tracked');
  const size = fileSize(db);
  const expected = Buffer.from(fileImage(db)); // a copy: the live file changes below
  if (!base) tracker.markDirty(size);
  const captured = tracker.startCapture(size);
  try {
    const file = await compactByPatch(paths, { seq, base, size }, sourceWithWritesBetween(tracker, between), new Uint8Array(WINDOW_BYTES));
    tracker.finishCapture(true);
    return { expected, file, captured };
  } catch (err) {
    tracker.finishCapture(false);
    throw err;
  }
}

/** A database with a table t of `rows` rows (several MB at 3000), on a fresh data directory. */
async function withTable(rows: number, body: (db: Database, paths: Layout) => Promise<void>): Promise<void> {
  const SQL = await loadSqlJs();
  const db = openWithRoom(SQL);
  try {
    db.exec('PRAGMA journal_mode = MEMORY; CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)');
    addRows(db, 0, rows);
    await body(db, layout(tempDir()));
  } finally {
    db.close();
  }
}

describe('snapshots patched from the pages written since the last one (real sql.js)', () => {
  after(cleanupTempDirs);

  it('hold the file as it was when the capture started, while writes go on, snapshot after snapshot', async function () {
    this.timeout(60_000);
    const SQL = await loadSqlJs();
    // Several MB: the snapshot goes out in several windows.
    await withTable(3000, async (db, paths) => {
      let next = 3000;
      let base: string | null = null;
      for (let round = 1; round <= 4; round++) {
        // Between windows: new rows (the file grows) and rewrites of old ones (pages the capture
        // still has to copy are copied first).
        const { expected, file, captured } = await snapshotNow(db, paths, round, base, (call) => {
          if (call % 8 !== 0) return;
          addRows(db, next, 20);
          next += 20;
          rewriteRows(db, [call * 7 + round, 1500 + call, 2900 - call], `round ${round} call ${call}`);
        });
        // After the first, a snapshot copies only what changed, not the whole file.
        if (round > 1) assert.ok(captured * TRACK_PAGE < fileSize(db) / 4, `round ${round} copied ${captured} pages`);
        const { image, seq } = readSnapshot(file);
        assert.equal(seq, round);
        assert.equal(image.length, expected.length);
        assert.ok(Buffer.from(image).equals(expected), `snapshot ${round} differs from the file at its start`);
        const reopened = new SQL.Database(image);
        assert.deepEqual(reopened.exec('PRAGMA integrity_check')[0].values, [['ok']]);
        reopened.close();
        base = file;
        rewriteRows(db, [10, 20, 30 + round], `after ${round}`);
      }
    });
  });

  it('after a failed snapshot, the next one still carries the pages the failed one had taken', async function () {
    this.timeout(60_000);
    await withTable(500, async (db, paths) => {
      const first = await snapshotNow(db, paths, 1, null);
      rewriteRows(db, [1, 2, 3, 400], 'lost?');
      await assert.rejects(
        snapshotNow(db, paths, 2, first.file, (call) => {
          if (call === 0) throw new Error('disk full');
        }),
        /disk full/,
      );
      assert.equal(listSnapshots(paths.snapshotDir).length, 1, 'the failed snapshot was published');
      const second = await snapshotNow(db, paths, 3, first.file);
      assert.ok(Buffer.from(readSnapshot(second.file).image).equals(second.expected));
    });
  });

  it('refuses a base that no longer matches its checksum, and publishes nothing', async function () {
    this.timeout(60_000);
    await withTable(500, async (db, paths) => {
      const first = await snapshotNow(db, paths, 1, null);
      const fd = fs.openSync(first.file, 'r+');
      fs.writeSync(fd, Buffer.from('rot'), 0, 3, 5 * TRACK_PAGE + 100); // a page the next snapshot does not rewrite
      fs.closeSync(fd);
      rewriteRows(db, [1], 'next');
      await assert.rejects(snapshotNow(db, paths, 2, first.file), UnusableBaseError);
      assert.deepEqual(
        fs.readdirSync(paths.snapshotDir).filter((name) => !name.startsWith('.')),
        [path.basename(first.file)],
      );
      // Without a base the whole file is written, and that snapshot is sound.
      const whole = await snapshotNow(db, paths, 3, null);
      assert.ok(Buffer.from(readSnapshot(whole.file).image).equals(whole.expected));
    });
  });

  it('through the store: snapshots taken while hooks write open intact with every acknowledged turn', async function () {
    this.timeout(120_000);
    const dir = tempDir();
    const store = await Store.open({ dataDir: dir });
    const keys = Array.from({ length: 40 }, (_, i) => `s-${i}`);
    const transcripts = new Map<string, Array<{ role: 'user' | 'assistant'; text: string }>>();
    const writeTurn = async (key: string, k: number) => {
      const turns = transcripts.get(key) ?? [];
      turns.push({ role: k % 2 ? 'user' : 'assistant', text: `${key} turn ${k} `.repeat(60) });
      transcripts.set(key, turns);
      await store.write('recordTranscript', { key, harness: 'claude-code', project: '/p', turns: [...turns] });
    };
    try {
      for (let k = 1; k <= 6; k++) {
        const writes = keys.map((key) => writeTurn(key, k));
        const snapshot = store.snapshot(); // runs while the writes above are in flight
        await Promise.all([...writes, snapshot]);
      }
      const status = await store.status();
      const newest = listSnapshots(layout(dir).snapshotDir)[0];
      assert.ok(newest.seq > 0 && newest.seq <= status.seq);
      // Open the newest snapshot on its own (no journal): a sound database holding exactly the
      // turns of the writes up to its sequence number (each write here is one turn, one frame).
      const SQL = await loadSqlJs();
      const db = new SQL.Database(readSnapshot(newest.path).image);
      assert.deepEqual(db.exec('PRAGMA integrity_check')[0].values, [['ok']]);
      assert.equal(db.exec('SELECT COUNT(*) FROM transcript_turns')[0].values[0][0], newest.seq);
      db.close();
    } finally {
      await store.close();
    }
    // And the store reopens (snapshot + journal) with every turn.
    const reopened = await Store.open({ dataDir: dir });
    try {
      for (const key of keys) {
        const read = (await reopened.read('turns', { scope: 'all', key })) as { total: number; turns: unknown[] };
        assert.equal(read.turns.length, 6, `session ${key}`);
      }
    } finally {
      await reopened.close();
    }
  });

  it('through the engine: a patched snapshot, and the replay fallback, both hold every write up to their sequence number', async function () {
    this.timeout(60_000);
    for (const kind of ['patch', 'replay'] as const) {
      const paths = layout(tempDir());
      const jobs: string[] = [];
      const startCompaction = (job: CompactionJob): Promise<string> => {
        jobs.push(job.kind);
        // The replay fallback is what runs when the file's pages are not tracked; forced here.
        if (kind === 'replay' || job.kind === 'replay') return compactByReplay(paths, job.seq);
        return compactByPatch(paths, job, { overlay: async (from, to, into) => job.overlay(from, to, into) }, new Uint8Array(WINDOW_BYTES));
      };
      const engine = await Engine.open(paths, { compactBytes: 1 << 30, startCompaction });
      const run = (requests: Request[]) => executeAll(engine, requests);
      let id = 0;
      const write = (key: string, k: number) => ({
        id: ++id,
        kind: 'write' as const,
        name: 'recordTranscript',
        args: { key, harness: 'codex', turns: Array.from({ length: k }, (_, i) => ({ role: 'user', text: `${key} turn ${i} `.repeat(50) })) },
      });
      for (let round = 1; round <= 3; round++) {
        const replies = await run(Array.from({ length: 30 }, (_, s) => write(`s${s}`, round)));
        assert.ok(replies.every((r) => r.ok));
        await engine.compact();
      }
      assert.deepEqual(jobs, ['patch', 'patch', 'patch'], 'the engine asks for patched snapshots while the file is tracked');
      const newest = listSnapshots(paths.snapshotDir)[0];
      assert.equal(newest.seq, engine.status.seq);
      const SQL = await loadSqlJs();
      const db = new SQL.Database(readSnapshot(newest.path).image);
      assert.deepEqual(db.exec('PRAGMA integrity_check')[0].values, [['ok']]);
      assert.equal(db.exec('SELECT COUNT(*) FROM transcript_turns')[0].values[0][0], 90, kind);
      db.close();
      await engine.close();
    }
  });
});
