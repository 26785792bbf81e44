// A snapshot replaces the journal it covers only once it has been read back and found to be the
// whole database it claims to be; a snapshot that is consistent with itself but not with the writes
// the journal says happened is damage, reported at startup and by `baton doctor`, never loaded
// silently. Real stores on disk, written by a real process and killed (test/helpers/damage.ts).

import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { compactByPatch, compactByReplay } from '../../src/store/engine/engine';
import { listJournalFiles } from '../../src/store/engine/journal';
import { loadDatabase } from '../../src/store/engine/load';
import { layout } from '../../src/node/paths';
import { runDoctor } from '../../src/store/doctor';
import { DataLossError } from '../../src/store/engine/recovery';
import { fileImage } from '../../src/store/engine/roomyDatabase';
import { listSnapshots, writeSnapshot } from '../../src/store/engine/snapshot';
import { loadSqlJs } from '../../src/store/engine/sqljs';
import { Store } from '../../src/store/store';
import { copyStore, flipBytes, seeded, stageStore, type StagedStore } from '../helpers/damage';
import { cleanupTempDirs } from '../helpers/tmp';

const PER_ROUND = 10;

/** Every file name under the data directory's journal and snapshot folders. */
function dataFiles(dir: string): string[] {
  const paths = layout(dir);
  return [...listJournalFiles(paths.journalDir).map((f) => f.path), ...listSnapshots(paths.snapshotDir).map((s) => s.path)].map((f) => path.basename(f)).sort();
}

async function everyTranscript(store: Store): Promise<string> {
  const { sessions } = await store.read('listSessions', { scope: 'all', limit: 1000 });
  const parts = await Promise.all(sessions.map((s) => store.read('transcript', { scope: 'all', key: s.key })));
  return parts.map((p) => p.content).join('\n');
}

/**
 * What the compactor wrote when every snapshot failed to load: the journal it still had replayed
 * onto an empty database, under the newest seq. Its checksum is right and its database says seq
 * 3·PER_ROUND, but the writes before the journal are not in it.
 */
async function writeRebuiltFromPartOfTheJournal(staged: StagedStore): Promise<string> {
  const paths = layout(staged.dir);
  const snapshots = listSnapshots(paths.snapshotDir);
  const aside = path.join(staged.dir, 'aside');
  fs.mkdirSync(aside);
  for (const s of snapshots) fs.renameSync(s.path, path.join(aside, path.basename(s.path)));
  const SQL = await loadSqlJs();
  const { db, report } = loadDatabase(SQL, paths);
  assert.ok(report.missing.length > 0, 'without the snapshots the journal alone cannot hold every write');
  const file = writeSnapshot(paths.snapshotDir, report.appliedSeq, fileImage(db));
  db.close();
  for (const s of snapshots) fs.renameSync(path.join(aside, path.basename(s.path)), s.path);
  return file;
}

describe('snapshot verification (real store on disk)', function () {
  this.timeout(180_000);
  let staged: StagedStore;

  before(async () => {
    staged = await stageStore(PER_ROUND);
  });
  after(cleanupTempDirs);

  it('never writes a snapshot from a state rebuilt around damaged snapshots, and keeps the journal', async () => {
    const s = copyStore(staged);
    const paths = layout(s.dir);
    for (const snap of listSnapshots(paths.snapshotDir)) flipBytes(snap.path, 200, 4000, 4, seeded(snap.seq));
    const before = dataFiles(s.dir);
    await assert.rejects(compactByReplay(paths, 3 * PER_ROUND), /no snapshot written at seq 30: snapshot .* could not be used/);
    assert.deepEqual(dataFiles(s.dir), before, 'no snapshot written, no journal file dropped');
    // The open refuses and names the writes, instead of opening with a third of them.
    await assert.rejects(Store.open({ dataDir: s.dir }), (err: Error) => err instanceof DataLossError && /writes seq 1-10/.test(err.message));
  });

  it('a snapshot that does not account for every write it claims is skipped loudly; the older snapshot and the journal restore everything', async () => {
    const s = copyStore(staged);
    const rebuilt = await writeRebuiltFromPartOfTheJournal(s);
    assert.equal(path.basename(rebuilt), path.basename(listSnapshots(layout(s.dir).snapshotDir)[0].path), 'it is the newest snapshot');

    const doctor = await runDoctor(s.dir);
    assert.ok(
      doctor.problems.some((p) => p.includes(path.basename(rebuilt)) && /accounts for 20 of the 30 writes/.test(p)),
      `doctor reports the snapshot as damaged: ${doctor.problems.join(' | ')}`,
    );
    assert.equal(doctor.snapshots.find((x) => x.file === rebuilt)?.valid, false);

    const store = await Store.open({ dataDir: s.dir });
    try {
      const skipped = store.report.events.find((e) => e.kind === 'snapshot-skipped');
      assert.ok(skipped && skipped.file === rebuilt && /accounts for 20 of the 30/.test(skipped.message), JSON.stringify(store.report.events));
      const text = await everyTranscript(store);
      for (const id of s.acked) assert.ok(text.includes(`marker ${id} `), `acknowledged write ${id} is back`);
    } finally {
      await store.close();
    }
  });

  it('a snapshot cut short under a matching checksum is reported damaged by doctor and skipped by the open', async () => {
    const s = copyStore(staged);
    const paths = layout(s.dir);
    const SQL = await loadSqlJs();
    const { db, report } = loadDatabase(SQL, paths);
    const image = fileImage(db);
    // What a length that wrapped writes: the first part of the image, with a trailer that matches it.
    const cut = writeSnapshot(paths.snapshotDir, report.appliedSeq, image.subarray(0, image.length - 8 * 4096));
    db.close();

    const doctor = await runDoctor(s.dir);
    const entry = doctor.snapshots.find((x) => x.file === cut);
    assert.ok(entry && !entry.valid && /header says \d+ pages/.test(entry.error ?? ''), `doctor marks it damaged: ${JSON.stringify(entry)}`);
    assert.ok(
      doctor.problems.some((p) => p.includes(path.basename(cut)) && /header says/.test(p)),
      doctor.problems.join(' | '),
    );

    const store = await Store.open({ dataDir: s.dir });
    try {
      const skipped = store.report.events.find((e) => e.kind === 'snapshot-skipped' && e.file === cut);
      assert.ok(skipped && /header says \d+ pages/.test(skipped.message), JSON.stringify(store.report.events));
      const text = await everyTranscript(store);
      for (const id of s.acked) assert.ok(text.includes(`marker ${id} `), `acknowledged write ${id} is back`);
    } finally {
      await store.close();
    }
  });

  it('a snapshot that fails its check after writing goes to quarantine and drops no journal file', async () => {
    const s = copyStore(staged);
    const paths = layout(s.dir);
    const SQL = await loadSqlJs();
    const { db, report } = loadDatabase(SQL, paths);
    const image = fileImage(db);
    const before = dataFiles(s.dir);
    // The pages as the store thread hands them out, with the header's page count wrong: the image
    // is written whole under a checksum that matches it, and is still not the database.
    const source = {
      overlay: async (fromPage: number, toPage: number, into: Uint8Array) => {
        into.set(image.subarray(fromPage * 4096, Math.min(image.length, toPage * 4096)));
        if (fromPage === 0) new DataView(into.buffer, into.byteOffset).setUint32(28, image.length / 4096 - 3);
      },
    };
    await assert.rejects(
      compactByPatch(paths, { seq: report.appliedSeq, base: null, size: image.length }, source, new Uint8Array(512 << 10)),
      /failed its check after writing .*header says .*moved to .*quarantine.*the journal it covers is kept/,
    );
    db.close();
    assert.deepEqual(dataFiles(s.dir), before, 'nothing pruned, the failed snapshot is not among the snapshots');
    assert.equal(fs.readdirSync(path.join(s.dir, 'quarantine')).length, 1);
  });
});
