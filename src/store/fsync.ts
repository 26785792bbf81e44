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

function tempPath(target: string): string {
  return path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.${Date.now()}.tmp`);
}

/** Write a file atomically: temp file, fsync, rename over the target, fsync the directory. */
export function writeFileAtomic(target: string, data: Uint8Array | string | Uint8Array[], mode = 0o600): void {
  const dir = path.dirname(target);
  const tmp = tempPath(target);
  const fd = fs.openSync(tmp, 'w', mode);
  try {
    const chunks = typeof data === 'string' ? [Buffer.from(data, 'utf8')] : Array.isArray(data) ? data : [data];
    for (const bytes of chunks) {
      let offset = 0;
      while (offset < bytes.length) offset += fs.writeSync(fd, bytes, offset, Math.min(bytes.length - offset, 16 << 20));
    }
    fs.fsyncSync(fd);
  } catch (err) {
    fs.closeSync(fd);
    fs.rmSync(tmp, { force: true });
    throw err;
  }
  fs.closeSync(fd);
  fs.renameSync(tmp, target);
  fsyncDir(dir);
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
export async function writeFileAtomicPaced(target: string, data: Uint8Array[], pace: Pace, mode = 0o600): Promise<void> {
  const dir = path.dirname(target);
  const tmp = tempPath(target);
  const fd = fs.openSync(tmp, 'w', mode);
  try {
    for (const bytes of data) {
      let offset = 0;
      while (offset < bytes.length) {
        const end = Math.min(bytes.length, offset + pace.chunkBytes);
        while (offset < end) offset += fs.writeSync(fd, bytes, offset, end - offset);
        fs.fdatasyncSync(fd);
        if (pace.pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pace.pauseMs));
      }
    }
    fs.fsyncSync(fd);
  } catch (err) {
    fs.closeSync(fd);
    fs.rmSync(tmp, { force: true });
    throw err;
  }
  fs.closeSync(fd);
  fs.renameSync(tmp, target);
  fsyncDir(dir);
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
