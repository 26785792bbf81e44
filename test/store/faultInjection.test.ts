// Fault injection on the real store on disk: a store written by a real process and killed, then
// damaged (seeded byte flips in snapshots and journal, garbage appended, a read-only directory, a
// stale lock) and opened again. Every case ends one of two ways: every acknowledged write is
// there, or the open refuses and names exactly the writes it cannot find (docs/storage.md).

import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { listJournalFiles, readJournalFile } from '../../src/store/engine/journal';
import { layout } from '../../src/node/paths';
import { DataLossError, type MissingRange } from '../../src/store/engine/recovery';
import { listSnapshots } from '../../src/store/engine/snapshot';
import { Store } from '../../src/store/store';
import { copyStore, fingerprint, flipBytes, makeWritable, readOnlyFor, runCliAs, seeded, stageStore, type StagedStore } from '../helpers/damage';
import { cleanupTempDirs } from '../helpers/tmp';

const PER_ROUND = 20;

async function allTranscripts(store: Store): Promise<string> {
  const { sessions } = await store.read('listSessions', { scope: 'all', limit: 1000 });
  const parts = await Promise.all(sessions.map((s) => store.read('transcript', { scope: 'all', key: s.key })));
  return parts.map((p) => p.content).join('\n');
}

/** Acknowledged writes (by seq) not found in the store's transcripts. */
function absent(text: string, acked: string[]): number[] {
  return acked.flatMap((id, i) => (text.includes(`marker ${id} `) ? [] : [i + 1]));
}

const inRanges = (seq: number, ranges: MissingRange[]) => ranges.some((r) => seq >= r.from && seq <= r.to);

type Outcome = { opened: true; report: Store['report'] } | { opened: false; missing: MissingRange[]; message: string };

/**
 * Opens the damaged store and checks the rule: either nothing acknowledged is missing, or the open
 * refused naming the missing writes, changed nothing, and an accepted-loss open misses exactly those.
 * `mayLose`: the seqs the damage could have destroyed; a refusal naming any other is a failure.
 */
async function openAndCheck(staged: StagedStore, mayLose: number[]): Promise<Outcome> {
  // The lock a crashed writer left is taken over (and released) by any open: not a data file.
  const dataFiles = () => Object.fromEntries(Object.entries(fingerprint(staged.dir)).filter(([name]) => name !== 'baton.lock'));
  const before = dataFiles();
  let store: Store;
  try {
    store = await Store.open({ dataDir: staged.dir });
  } catch (err) {
    assert.ok(err instanceof DataLossError, `open failed with something other than a named loss: ${(err as Error).message}`);
    assert.ok(err.missing.length > 0);
    for (const range of err.missing) {
      assert.match(err.message, new RegExp(range.from === range.to ? `write seq ${range.from}:` : `writes seq ${range.from}-${range.to}:`));
      for (let seq = range.from; seq <= range.to; seq++) assert.ok(mayLose.includes(seq), `the refusal names seq ${seq}, which the damage did not touch`);
    }
    assert.match(err.message, /baton serve --accept-loss/);
    assert.deepEqual(dataFiles(), before, 'a refused open changed files');
    const accepted = await Store.open({ dataDir: staged.dir, acceptLoss: true });
    try {
      const missingNow = absent(await allTranscripts(accepted), staged.acked);
      // Later writes that built on the missing ones (a turn of a session created in a lost write)
      // cannot apply: they must be named as well.
      const dependent = accepted.report.failedFrames;
      assert.deepEqual(
        missingNow.filter((seq) => !inRanges(seq, err.missing) && !dependent.includes(seq)),
        [],
        'writes outside the named ranges are missing too',
      );
      if (dependent.length > 0) assert.ok(accepted.report.events.some((e) => /later write\(s\) could not be applied/.test(e.message)));
      assert.ok(accepted.report.events.some((e) => e.kind === 'loss-accepted'));
      assert.deepEqual(await accepted.read('integrity', {}), ['ok']);
    } finally {
      await accepted.close();
    }
    await reopenClean(staged.dir);
    return { opened: false, missing: err.missing, message: err.message };
  }
  try {
    assert.deepEqual(absent(await allTranscripts(store), staged.acked), [], 'acknowledged writes are missing after a successful open');
    assert.deepEqual(await store.read('integrity', {}), ['ok']);
    const report = store.report;
    await store.close();
    await reopenClean(staged.dir);
    return { opened: true, report };
  } catch (err) {
    await store.close();
    throw err;
  }
}

/** After recovery, the next open finds nothing left to report. */
async function reopenClean(dir: string): Promise<void> {
  const store = await Store.open({ dataDir: dir });
  try {
    assert.deepEqual(
      store.report.events.map((e) => e.message),
      [],
      'damage was reported again on the next open',
    );
  } finally {
    await store.close();
  }
}

function quarantined(dir: string): string[] {
  const q = path.join(dir, 'quarantine');
  return fs.existsSync(q) ? fs.readdirSync(q) : [];
}

/** The seqs of the frames in `file` that overlap any of `offsets` (header or payload). */
function framesAt(file: string, offsets: number[]): number[] {
  return readJournalFile(file)
    .frames.filter((f) => offsets.some((at) => at >= f.payloadStart - 8 && at < f.payloadEnd))
    .map((f) => f.seq);
}

describe('fault injection (real store on disk)', function () {
  this.timeout(120_000);
  let template: StagedStore;

  before(async () => {
    template = await stageStore(PER_ROUND);
    const snaps = listSnapshots(layout(template.dir).snapshotDir).map((s) => s.seq);
    assert.deepEqual(snaps, [2 * PER_ROUND, PER_ROUND]);
    assert.deepEqual(
      listJournalFiles(layout(template.dir).journalDir).map((f) => f.firstSeq),
      [PER_ROUND + 1, 2 * PER_ROUND + 1],
    );
  });
  after(cleanupTempDirs);

  it('the undamaged store opens with every acknowledged write and no recovery events', async () => {
    const outcome = await openAndCheck(copyStore(template), []);
    assert.ok(outcome.opened);
    assert.deepEqual(outcome.report.events, []);
  });

  for (const seed of [1, 2, 3]) {
    it(`newest snapshot with flipped bytes (seed ${seed}): the older one and the journal recover everything, the damaged file goes to quarantine`, async () => {
      const staged = copyStore(template);
      const newest = listSnapshots(layout(staged.dir).snapshotDir)[0].path;
      flipBytes(newest, 0, fs.statSync(newest).size, 1 + seed, seeded(seed));
      const outcome = await openAndCheck(staged, []);
      assert.ok(outcome.opened);
      const kinds = outcome.report.events.map((e) => e.kind);
      assert.deepEqual(kinds, ['snapshot-skipped', 'quarantined', 'snapshot-written']);
      assert.equal(quarantined(staged.dir).length, 1);
      assert.match(quarantined(staged.dir)[0], /snapshot-0+40\.db$/);
    });
  }

  it('older snapshot with flipped bytes: the newest is used, nothing is lost', async () => {
    const staged = copyStore(template);
    const older = listSnapshots(layout(staged.dir).snapshotDir)[1].path;
    flipBytes(older, 0, fs.statSync(older).size, 3, seeded(11));
    const outcome = await openAndCheck(staged, []);
    assert.ok(outcome.opened);
  });

  it('both snapshots damaged: the open refuses, naming seq 1-20 and both files; --accept-loss opens with seq 21-60', async () => {
    const staged = copyStore(template);
    const random = seeded(21);
    for (const snap of listSnapshots(layout(staged.dir).snapshotDir)) flipBytes(snap.path, 0, fs.statSync(snap.path).size, 2, random);
    const outcome = await openAndCheck(
      staged,
      Array.from({ length: PER_ROUND }, (_, i) => i + 1),
    );
    assert.ok(!outcome.opened);
    assert.deepEqual(
      outcome.missing.map((m) => [m.from, m.to]),
      [[1, PER_ROUND]],
    );
    assert.match(outcome.message, /snapshot-0+40\.db and snapshot-0+20\.db could not be used/);
  });

  // The journal after the newest snapshot holds the only copy of seq 41-60.
  const journalCases: Array<{ name: string; seed: number; pick: (frames: Array<{ start: number; end: number }>) => { start: number; end: number } }> = [
    { name: 'start', seed: 31, pick: (f) => f[0] },
    { name: 'middle', seed: 32, pick: (f) => f[Math.floor(f.length / 2)] },
    { name: 'tail', seed: 33, pick: (f) => f[f.length - 1] },
  ];
  for (const c of journalCases) {
    for (const round of [0, 1, 2]) {
      it(`journal ${c.name} with flipped bytes (seed ${c.seed + 100 * round}): the frames after it are replayed; a lost frame is refused by name`, async () => {
        const staged = copyStore(template);
        const file = listJournalFiles(layout(staged.dir).journalDir)[1].path;
        const frames = readJournalFile(file).frames.map((f) => ({ start: f.payloadStart - 8, end: f.payloadEnd }));
        const target = c.pick(frames);
        const offsets = flipBytes(file, target.start, target.end, 1 + round, seeded(c.seed + 100 * round));
        const hit = framesAt(listJournalFiles(layout(template.dir).journalDir)[1].path, offsets);
        const outcome = await openAndCheck(staged, hit);
        if (!outcome.opened) {
          assert.match(outcome.message, new RegExp(path.basename(file)));
        } else {
          // Only a damaged length field can be read around: the payload still matched its checksum.
          assert.ok(
            outcome.report.events.some((e) => e.kind === 'frame-repaired'),
            JSON.stringify(outcome.report.events),
          );
        }
        assert.ok(
          quarantined(staged.dir).some((name) => name.endsWith(path.basename(file))),
          'the damaged journal file was not kept in quarantine',
        );
      });
    }
  }

  it('a damaged frame in the middle is skipped and every later frame is replayed (resync)', async () => {
    const staged = copyStore(template);
    const file = listJournalFiles(layout(staged.dir).journalDir)[1].path;
    const frames = readJournalFile(file).frames;
    const middle = frames[5]; // seq 46
    flipBytes(file, middle.payloadStart + 10, middle.payloadEnd - 2, 1, seeded(41)); // inside the payload: its checksum fails
    const outcome = await openAndCheck(staged, [middle.seq]);
    assert.ok(!outcome.opened);
    assert.deepEqual(
      outcome.missing.map((m) => [m.from, m.to]),
      [[middle.seq, middle.seq]],
    );
    assert.match(outcome.message, new RegExp(`damaged bytes at offset ${middle.payloadStart - 8}`));
  });

  it('a damaged journal frame that the newest snapshot covers loses nothing', async () => {
    const staged = copyStore(template);
    const file = listJournalFiles(layout(staged.dir).journalDir)[0].path; // seq 21-40, inside snapshot 40
    flipBytes(file, 0, fs.statSync(file).size, 4, seeded(51));
    const outcome = await openAndCheck(staged, []);
    assert.ok(outcome.opened);
  });

  for (const seed of [61, 62, 63]) {
    it(`garbage appended to the journal (seed ${seed}) is an interrupted append: dropped, kept in quarantine, nothing lost`, async () => {
      const staged = copyStore(template);
      const file = listJournalFiles(layout(staged.dir).journalDir)[1].path;
      const clean = fs.readFileSync(file);
      const random = seeded(seed);
      const garbage = Buffer.from(Array.from({ length: 1 + Math.floor(random() * 300) }, () => Math.floor(random() * 256)));
      fs.appendFileSync(file, garbage);
      const outcome = await openAndCheck(staged, []);
      assert.ok(outcome.opened);
      assert.deepEqual(
        outcome.report.events.map((e) => e.kind),
        ['torn-tail', 'journal-rewritten'],
      );
      assert.deepEqual(outcome.report.droppedTails, [{ file, bytes: garbage.length }]);
      assert.ok(fs.readFileSync(file).equals(clean), 'the journal file is its valid frames again');
      const kept = quarantined(staged.dir).find((name) => name.endsWith(path.basename(file)))!;
      assert.ok(fs.readFileSync(path.join(staged.dir, 'quarantine', kept)).equals(Buffer.concat([clean, garbage])), 'quarantine holds the original bytes');
    });
  }

  it('a read-only data directory: a reading command reads everything without the lock, reports the damage and changes nothing; once writable, an open recovers everything', async function () {
    const staged = copyStore(template);
    const newest = listSnapshots(layout(staged.dir).snapshotDir)[0].path;
    flipBytes(newest, 0, fs.statSync(newest).size, 2, seeded(71));
    const before = fingerprint(staged.dir);
    // The open runs in a child process: as root, permission bits stop writes only for another user.
    const user = readOnlyFor(staged.dir);
    try {
      // Reading commands take no lock and write nothing (docs/storage.md): the damage is worked around in memory.
      const listed = runCliAs(['export', '--data-dir', staged.dir], user);
      assert.equal(listed.status, 0, listed.stdout + listed.stderr);
      assert.deepEqual(absent(listed.stdout, staged.acked), [], 'every acknowledged write is read');
      assert.match(listed.stderr, /^recovery: snapshot .* skipped/m);
      assert.doesNotMatch(listed.stderr, /\n\s+at /, 'a stack trace instead of an error message');
    } finally {
      makeWritable(staged.dir);
    }
    const after = fingerprint(staged.dir);
    for (const file of Object.keys(before)) assert.equal(after[file]?.split(' ')[0], before[file].split(' ')[0], `${file} changed`);
    assert.deepEqual(Object.keys(after).sort(), Object.keys(before).sort());
    const outcome = await openAndCheck(staged, []);
    assert.ok(outcome.opened);
  });

  it('a stale lock left by a dead process is taken over, and the damage behind it recovered', async () => {
    const staged = copyStore(template);
    fs.writeFileSync(layout(staged.dir).lock, JSON.stringify({ pid: 2 ** 22 + 4321, port: 7433, startedAt: 'then', holder: 'baton serve' }));
    const newest = listSnapshots(layout(staged.dir).snapshotDir)[0].path;
    flipBytes(newest, 0, fs.statSync(newest).size, 2, seeded(81));
    const outcome = await openAndCheck(staged, []);
    assert.ok(outcome.opened);
    assert.ok(!fs.existsSync(layout(staged.dir).lock), 'the lock is released at close');
  });
});
