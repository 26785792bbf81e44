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

/** Write a file atomically: temp file, fsync, rename over the target, fsync the directory. */
export function writeFileAtomic(target: string, data: Uint8Array | string | Uint8Array[], mode = 0o600): void {
  const dir = path.dirname(target);
  const tmp = path.join(dir, `.${path.basename(target)}.${process.pid}.${Date.now()}.tmp`);
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
