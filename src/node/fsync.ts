// Small helpers for writes that must survive a crash.

import * as fs from 'node:fs';
import * as path from 'node:path';

/** fsync a directory so a rename or unlink inside it is durable. */
export function fsyncDir(dir: string): void {
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** A temp file beside `target`, to be filled and then either published or discarded. */
interface TempFile {
  fd: number;
  tmp: string;
}

function openTemp(target: string, mode: number): TempFile {
  const tmp = path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.${Date.now()}.tmp`);
  return { fd: fs.openSync(tmp, 'w', mode), tmp };
}

/** fsync, rename over the target, fsync the directory; on any failure the temp file is removed. */
function publishTemp(file: TempFile, target: string): void {
  try {
    fs.fsyncSync(file.fd);
  } catch (err) {
    discardTemp(file);
    throw err;
  }
  fs.closeSync(file.fd);
  fs.renameSync(file.tmp, target);
  fsyncDir(path.dirname(target));
}

function discardTemp(file: TempFile): void {
  fs.closeSync(file.fd);
  fs.rmSync(file.tmp, { force: true });
}

/** Write a file atomically: temp file, fsync, rename over the target, fsync the directory. */
export function writeFileAtomic(target: string, data: Uint8Array | string | Uint8Array[], mode = 0o600): void {
  const file = openTemp(target, mode);
  try {
    const chunks = typeof data === 'string' ? [Buffer.from(data, 'utf8')] : Array.isArray(data) ? data : [data];
    for (const bytes of chunks) {
      let offset = 0;
      while (offset < bytes.length) offset += fs.writeSync(file.fd, bytes, offset, Math.min(bytes.length - offset, 16 << 20));
    }
  } catch (err) {
    discardTemp(file);
    throw err;
  }
  publishTemp(file, target);
}

/**
 * writeFileAtomic without blocking the event loop: the writes and the fsyncs run on libuv's
 * thread pool, so a server keeps answering while a large file (a session's transcript.jsonl)
 * reaches the disk.
 */
export async function writeFileAtomicAsync(target: string, data: Uint8Array | string, mode = 0o600): Promise<void> {
  const tmp = path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.${Date.now()}.${Math.random().toString(36).slice(2, 8)}.tmp`);
  const handle = await fs.promises.open(tmp, 'w', mode);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } catch (err) {
    await handle.close();
    await fs.promises.rm(tmp, { force: true });
    throw err;
  }
  await handle.close();
  try {
    await fs.promises.rename(tmp, target);
  } catch (err) {
    await fs.promises.rm(tmp, { force: true });
    throw err;
  }
  const dir = await fs.promises.open(path.dirname(target), 'r');
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}

export interface Pace {
  /** Bytes written between two fdatasyncs. */
  chunkBytes: number;
  /** Pause after each chunk. */
  pauseMs: number;
}

/**
 * writeFileAtomic for large background files: the data goes out in chunks, each made durable
 * before the next. Dirty pages never pile up, so an fsync of the journal on the same disk never
 * waits behind hundreds of megabytes of snapshot (ext4 commits them together).
 */
export async function writeFileAtomicPaced(target: string, data: Iterable<Uint8Array> | AsyncIterable<Uint8Array>, pace: Pace, mode = 0o600): Promise<void> {
  const file = openTemp(target, mode);
  try {
    for await (const bytes of data) {
      let offset = 0;
      while (offset < bytes.length) {
        const end = Math.min(bytes.length, offset + pace.chunkBytes);
        while (offset < end) offset += fs.writeSync(file.fd, bytes, offset, end - offset);
        fs.fdatasyncSync(file.fd);
        if (pace.pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pace.pauseMs));
      }
    }
  } catch (err) {
    discardTemp(file);
    throw err;
  }
  publishTemp(file, target);
}

/**
 * Deletes a large file a slice at a time. Freeing hundreds of megabytes at once (an unlink) holds
 * the filesystem journal long enough to stall every fsync on the disk, the store's journal
 * included (measured: 145 ms with online discard); small truncations with pauses in between do not.
 */
export async function removeGradually(file: string, stepBytes = 8 << 20, pauseMs = 5): Promise<void> {
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(file, 'r+');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  try {
    let size = (await handle.stat()).size;
    while (size > stepBytes) {
      size -= stepBytes;
      await handle.truncate(size);
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  } finally {
    await handle.close();
  }
  await fs.promises.rm(file, { force: true });
}
