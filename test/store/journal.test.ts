// The journal writer on real files: appends are made durable by fdatasync, on the thread pool or
// (sync(true)) on the calling thread; callers that arrive during a flush share the next one, a
// rotated file is flushed before its successor acknowledges anything, and a failed flush
// acknowledges nothing.

import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import { Engine, type Request } from '../../src/store/engine/engine';
import { executeAll } from '../helpers/engine';
import { encodeFrame, JournalWriter, listJournalFiles, readJournalFile } from '../../src/store/engine/journal';
import { layout } from '../../src/node/paths';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';

/** The fs module object itself (an `import *` namespace is read-only), so fdatasync can be wrapped. */
const nodeFs = require('node:fs') as typeof fs;

/** The fdatasync calls the writer made: on the thread pool (`pool`) and on the calling thread (`inline`). */
interface FlushCalls {
  pool: number;
  inline: number;
}

/** Counts (and optionally fails) the fdatasync calls the writer makes, both kinds, for the length of `fn`. */
async function withFdatasync<T>(fail: boolean, fn: (calls: FlushCalls) => Promise<T>): Promise<T> {
  const real = nodeFs.fdatasync;
  const realSync = nodeFs.fdatasyncSync;
  const calls: FlushCalls = { pool: 0, inline: 0 };
  const eio = () => Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
  (nodeFs as { fdatasync: unknown }).fdatasync = (fd: number, cb: (err: NodeJS.ErrnoException | null) => void) => {
    calls.pool++;
    if (fail) setImmediate(() => cb(eio()));
    else real(fd, cb);
  };
  (nodeFs as { fdatasyncSync: unknown }).fdatasyncSync = (fd: number) => {
    calls.inline++;
    if (fail) throw eio();
    realSync(fd);
  };
  try {
    return await fn(calls);
  } finally {
    (nodeFs as { fdatasync: unknown }).fdatasync = real;
    (nodeFs as { fdatasyncSync: unknown }).fdatasyncSync = realSync;
  }
}

const frame = (seq: number) => encodeFrame({ seq, records: [{ note: `frame ${seq}` }] });

/** A journal rotated once: file 1 holds frame 1 and is closed (its flush pending); the returned file 2 holds frame 2. */
function rotatedJournal(dir: string): JournalWriter {
  const sealed = new JournalWriter(dir, 1);
  sealed.append([frame(1)]);
  sealed.close(); // flushes, then closes
  const next = new JournalWriter(dir, 2, sealed);
  next.append([frame(2)]);
  return next;
}

describe('journal writer (real files)', () => {
  after(cleanupTempDirs);

  it('sync resolves once the appended frames are flushed, and they read back in order', async () => {
    const dir = tempDir();
    const writer = new JournalWriter(dir, 1);
    writer.append([frame(1), frame(2)]);
    await withFdatasync(false, async (calls) => {
      await writer.sync();
      assert.equal(calls.pool, 1);
      await writer.sync(); // nothing new: no second flush
      assert.equal(calls.pool, 1);
    });
    writer.close();
    const read = readJournalFile(listJournalFiles(dir)[0].path);
    assert.deepEqual(
      read.frames.map((f) => f.seq),
      [1, 2],
    );
    assert.equal(read.droppedBytes, 0);
  });

  it('callers during a flush share the next one; bytes written after a flush started wait for another', async () => {
    const writer = new JournalWriter(tempDir(), 1);
    await withFdatasync(false, async (calls) => {
      writer.append([frame(1)]);
      const first = writer.sync();
      writer.append([frame(2)]); // after the first flush started: it may not cover this frame
      const second = writer.sync();
      const third = writer.sync();
      await Promise.all([first, second, third]);
      assert.equal(calls.pool, 2);
    });
    writer.close();
  });

  it('a file that follows a rotated one acknowledges nothing before the rotated file is flushed', async () => {
    const dir = tempDir();
    await withFdatasync(false, async (calls) => {
      const next = rotatedJournal(dir);
      await next.sync();
      assert.equal(calls.pool, 2);
      next.close();
    });
    assert.deepEqual(
      listJournalFiles(dir).map((f) => readJournalFile(f.path).frames.map((fr) => fr.seq)),
      [[1], [2]],
    );
  });

  it('sync(true) flushes on the calling thread when nothing else is flushing, and the frames are durable when it resolves', async () => {
    const dir = tempDir();
    const writer = new JournalWriter(dir, 1);
    await withFdatasync(false, async (calls) => {
      writer.append([frame(1)]);
      await writer.sync(true);
      assert.deepEqual(calls, { pool: 0, inline: 1 });
      await writer.sync(true); // nothing new: no flush at all
      assert.deepEqual(calls, { pool: 0, inline: 1 });
      writer.append([frame(2)]);
      await writer.sync(true);
      assert.deepEqual(calls, { pool: 0, inline: 2 });
    });
    writer.close();
    assert.deepEqual(
      readJournalFile(listJournalFiles(dir)[0].path).frames.map((f) => f.seq),
      [1, 2],
    );
  });

  it('sync(true) joins a flush already running on the pool instead of flushing beside it', async () => {
    const writer = new JournalWriter(tempDir(), 1);
    await withFdatasync(false, async (calls) => {
      writer.append([frame(1)]);
      const running = writer.sync();
      writer.append([frame(2)]);
      const inline = writer.sync(true);
      await Promise.all([running, inline]);
      assert.deepEqual(calls, { pool: 2, inline: 0 });
    });
    writer.close();
  });

  it('sync(true) after a rotation flushes the rotated file first, on the pool', async () => {
    const dir = tempDir();
    await withFdatasync(false, async (calls) => {
      const next = rotatedJournal(dir);
      await next.sync(true);
      assert.equal(calls.inline, 0);
      assert.equal(calls.pool, 2);
      next.append([frame(3)]);
      await next.sync(true); // the rotated file is done: now inline
      assert.equal(calls.inline, 1);
      next.close();
    });
    assert.deepEqual(
      listJournalFiles(dir).map((f) => readJournalFile(f.path).frames.map((fr) => fr.seq)),
      [[1], [2, 3]],
    );
  });

  it('a failed inline flush rejects, and the next sync tries again', async () => {
    const writer = new JournalWriter(tempDir(), 1);
    writer.append([frame(1)]);
    await withFdatasync(true, async () => {
      await assert.rejects(writer.sync(true), /EIO/);
    });
    await withFdatasync(false, async (calls) => {
      await writer.sync(true);
      assert.deepEqual(calls, { pool: 0, inline: 1 });
    });
    writer.close();
  });

  it('a failed flush rejects every waiter', async () => {
    const writer = new JournalWriter(tempDir(), 1);
    writer.append([frame(1)]);
    await withFdatasync(true, async () => {
      await assert.rejects(writer.sync(), /EIO/);
    });
    writer.close();
  });
});

describe('engine with a failing journal flush (real sql.js, real files)', () => {
  after(cleanupTempDirs);

  it('acknowledges no write and no read that saw it, then refuses writes but still answers reads', async () => {
    const engine = await Engine.open(layout(tempDir()), { compactBytes: 1 << 30 });
    const run = (requests: Request[]) => executeAll(engine, requests);
    const start = (id: number, key: string) => ({ id, kind: 'write' as const, name: 'startSession', args: { key, harness: 'codex' } });
    const [ok] = await run([start(1, 'before')]);
    assert.equal(ok.ok, true);

    const failed = await withFdatasync(true, () => run([start(2, 'lost'), { id: 3, kind: 'read', name: 'getSession', args: { scope: 'all', key: 'before' } }]));
    assert.deepEqual(
      failed.map((r) => [r.id, r.ok, r.error?.code]),
      [
        [2, false, 'unavailable'],
        [3, false, 'unavailable'],
      ],
    );

    const after = await run([start(4, 'later'), { id: 5, kind: 'read', name: 'getSession', args: { scope: 'all', key: 'before' } }]);
    assert.equal(after[0].ok, false);
    assert.match(after[0].error!.message, /store unavailable: journal flush failed/);
    assert.equal(after[1].ok, true);
    assert.equal((after[1].value as { key: string }).key, 'before');
    await engine.close();
  });
});

describe('engine journal flushes (real sql.js, real files)', () => {
  after(cleanupTempDirs);

  it('flushes a batch on the store thread, and on the pool while a snapshot is being written', async () => {
    let abandon = () => {};
    const dir = tempDir();
    const engine = await Engine.open(layout(dir), {
      compactBytes: 1 << 30,
      // A snapshot that stays in progress until the test abandons it.
      startCompaction: () => new Promise<string>((_, reject) => (abandon = () => reject(new Error('snapshot abandoned by the test')))),
    });
    const start = (id: number, key: string): Request => ({ id, kind: 'write', name: 'startSession', args: { key, harness: 'codex' } });
    await withFdatasync(false, async (calls) => {
      assert.equal((await executeAll(engine, [start(1, 'quiet')]))[0].ok, true);
      assert.deepEqual(calls, { pool: 0, inline: 1 });
      const snapshot = engine.compact();
      assert.equal(engine.status.compacting, true);
      assert.equal((await executeAll(engine, [start(2, 'during')]))[0].ok, true);
      assert.deepEqual(calls, { pool: 1, inline: 1 });
      abandon();
      await snapshot;
    });
    assert.equal(engine.status.compacting, false);
    await engine.close();
    const reopened = await Engine.open(layout(dir), { compactBytes: 1 << 30 });
    const read = (id: number, key: string): Request => ({ id, kind: 'read', name: 'getSession', args: { scope: 'all', key } });
    const found = await executeAll(reopened, [read(3, 'quiet'), read(4, 'during')]);
    assert.deepEqual(
      found.map((r) => (r.value as { key: string } | null)?.key),
      ['quiet', 'during'],
    );
    await reopened.close();
  });
});
