// Crash safety of the real store on disk: SIGKILL at random instants, torn journal tails,
// corrupt snapshots, and two processes on one data directory.

import { strict as assert } from 'node:assert';
import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import { listJournalFiles } from '../../src/store/engine/journal';
import { layout } from '../../src/node/paths';
import { listSnapshots } from '../../src/store/engine/snapshot';
import { Store } from '../../src/store/store';
import { onStdoutLines, runCli, startFixture } from '../helpers/child';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';

/** Collects "ack <id>" lines; resolves when `until` matches a line or the child exits. */
function watch(child: ChildProcess, until?: (line: string) => boolean) {
  const acked: string[] = [];
  const lines: string[] = [];
  const done = new Promise<void>((resolve) => {
    onStdoutLines(child, (line) => {
      lines.push(line);
      if (line.startsWith('ack ')) acked.push(line.slice(4));
      if (until?.(line)) resolve();
    });
    child.on('exit', () => resolve());
  });
  return { acked, lines, done };
}

function killed(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

async function allTranscripts(store: Store): Promise<string> {
  const { sessions } = await store.read('listSessions', { scope: 'all', limit: 1000 });
  const parts = await Promise.all(sessions.map((s) => store.read('transcript', { scope: 'all', key: s.key })));
  return parts.map((p) => p.content).join('\n');
}

describe('store durability (real sql.js on disk, real processes)', function () {
  this.timeout(240_000);
  after(cleanupTempDirs);

  it('loses no acknowledged write across many SIGKILLs at random instants', async () => {
    const dir = tempDir();
    const acked: string[] = [];
    const rounds = 12;
    let seed = 42;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let round = 0; round < rounds; round++) {
      // A small compaction threshold so kills also land during snapshots and journal rotation.
      const child = startFixture('storeChild.ts', ['loop', dir], { COMPACT_BYTES: String(64 * 1024) });
      let started!: () => void;
      const firstAck = new Promise<void>((resolve) => (started = resolve));
      const w = watch(child, (line) => {
        if (line.startsWith('ack ')) started();
        return false;
      });
      await Promise.race([firstAck, w.done]);
      assert.ok(w.acked.length > 0, `round ${round}: the writer never acknowledged a write: ${w.lines.join(' | ')}`);
      if (round === rounds - 1) {
        // The last writer runs until a background snapshot has landed (bounded), so compaction and
        // journal pruning are exercised under the kill too, however slow this machine is.
        for (let waited = 0; waited < 60_000 && listSnapshots(layout(dir).snapshotDir).length === 0; waited += 100)
          await new Promise((r) => setTimeout(r, 100));
      }
      await new Promise((r) => setTimeout(r, 50 + Math.floor(random() * 1500)));
      await killed(child);
      acked.push(...w.acked);
    }
    assert.ok(acked.length > 200, `expected many acknowledged writes, got ${acked.length}`);
    const store = await Store.open({ dataDir: dir });
    try {
      const text = await allTranscripts(store);
      const missing = acked.filter((id) => !text.includes(`marker ${id} `));
      assert.deepEqual(missing, [], `${missing.length} of ${acked.length} acknowledged writes were lost`);
      assert.deepEqual(await store.read('integrity', {}), ['ok']);
      // The disk does not grow without bound: compaction ran and old journal files were pruned.
      assert.ok(listSnapshots(layout(dir).snapshotDir).length >= 1, 'no snapshot was ever written');
      assert.ok(listSnapshots(layout(dir).snapshotDir).length <= 2, 'old snapshots are not pruned');
    } finally {
      await store.close();
    }
  });

  it('drops a torn journal tail, reports it, and keeps appending after it', async () => {
    const dir = tempDir();
    const child = startFixture('storeChild.ts', ['write', dir, '10'], { COMPACT_BYTES: String(1 << 30) });
    const w = watch(child, (line) => line === 'done');
    await w.done;
    await killed(child);
    assert.equal(w.acked.length, 10);
    const files = listJournalFiles(layout(dir).journalDir);
    const last = files[files.length - 1].path;
    const before = fs.statSync(last).size;
    // A frame header promising 4 KB followed by only a few bytes: what a crash mid-append leaves.
    const torn = Buffer.alloc(20);
    torn.writeUInt32LE(4096, 0);
    torn.writeUInt32LE(0xdeadbeef, 4);
    fs.appendFileSync(last, torn);

    let store = await Store.open({ dataDir: dir });
    try {
      assert.deepEqual(store.report.droppedTails, [{ file: last, bytes: 20 }]);
      assert.equal(fs.statSync(last).size, before, 'the torn tail is cut off');
      const text = await allTranscripts(store);
      for (const id of w.acked) assert.ok(text.includes(`marker ${id} `), `lost ${id}`);
      await store.write('recordTranscript', { key: 'after', harness: 'codex', turns: [{ role: 'user', text: 'written after the torn tail' }] });
    } finally {
      await store.close();
    }
    store = await Store.open({ dataDir: dir });
    try {
      assert.equal((await store.read('transcript', { scope: 'all', key: 'after' })).content, 'User: written after the torn tail');
      assert.deepEqual(await store.read('integrity', {}), ['ok']);
    } finally {
      await store.close();
    }
  });

  it('falls back to the previous snapshot when the newest is corrupt, losing nothing', async () => {
    const dir = tempDir();
    let store = await Store.open({ dataDir: dir });
    await store.write('recordTranscript', { key: 'one', harness: 'claude-code', turns: [{ role: 'user', text: 'first snapshot content' }] });
    await store.snapshot();
    await store.write('recordTranscript', { key: 'two', harness: 'claude-code', turns: [{ role: 'user', text: 'second snapshot content' }] });
    await store.close(); // writes the newest snapshot
    const snaps = listSnapshots(layout(dir).snapshotDir);
    assert.equal(snaps.length, 2);
    const newest = snaps[0].path;
    const bytes = fs.readFileSync(newest);
    bytes[Math.floor(bytes.length / 2)] ^= 0xff;
    fs.writeFileSync(newest, bytes);

    store = await Store.open({ dataDir: dir });
    try {
      assert.equal(store.report.skippedSnapshots.length, 1);
      assert.equal(store.report.skippedSnapshots[0].file, newest);
      assert.match(store.report.skippedSnapshots[0].reason, /checksum/);
      assert.equal(store.report.snapshotSeq, snaps[1].seq);
      assert.equal((await store.read('transcript', { scope: 'all', key: 'one' })).content, 'User: first snapshot content');
      assert.equal((await store.read('transcript', { scope: 'all', key: 'two' })).content, 'User: second snapshot content');
      assert.deepEqual(await store.read('integrity', {}), ['ok']);
    } finally {
      await store.close();
    }
  });

  it('lets only one process hold a data directory, names the holder, and takes over a stale lock', async () => {
    const dir = tempDir();
    const store = await Store.open({ dataDir: dir, holder: 'test holder' });
    try {
      await store.write('recordTranscript', { key: 'held', harness: 'claude-code', turns: [{ role: 'user', text: 'held data' }] });
      const journalBefore = listJournalFiles(layout(dir).journalDir).map((f) => fs.readFileSync(f.path).toString('hex'));
      // A writing command is refused; a reading one reads the files without the lock.
      const second = runCli(['token', 'create', '--agent', 'a', '--permissions', 'recall', '--data-dir', dir]);
      assert.equal(second.status, 1);
      assert.match(second.stderr, new RegExp(`in use by test holder \\(pid ${process.pid}`));
      assert.match(runCli(['sessions', '--data-dir', dir]).stdout, /^held /);
      const journalAfter = listJournalFiles(layout(dir).journalDir).map((f) => fs.readFileSync(f.path).toString('hex'));
      assert.deepEqual(journalAfter, journalBefore, 'the second process wrote behind the holder');
      await assert.rejects(Store.open({ dataDir: dir }), /in use by test holder/);
    } finally {
      await store.close();
    }
    // A lock left by a dead process is taken over.
    fs.writeFileSync(layout(dir).lock, JSON.stringify({ pid: 2 ** 22 + 12345, port: null, startedAt: 'then', holder: 'a dead process' }));
    const taken = runCli(['token', 'create', '--agent', 'a', '--permissions', 'recall', '--data-dir', dir]);
    assert.equal(taken.status, 0, taken.stderr);
    const listed = runCli(['sessions', '--data-dir', dir, '--json']);
    assert.equal(listed.status, 0, listed.stderr);
    assert.equal(JSON.parse(listed.stdout).sessions[0].key, 'held');
  });
});
