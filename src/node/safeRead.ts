// Reading a file that a hook payload names (a transcript, a sub-agent's transcript, a meta file
// beside it): the name is whatever the payload says, so the file may be anything. It is opened
// without following a symlink, without blocking (a FIFO with no writer would hang the open, a
// terminal would become the controlling one), checked on the open descriptor to be a regular file
// (never a FIFO, a device such as /dev/zero, a socket or a folder), and read in a bounded piece.
// Anything else is "not readable" (null), never an exception and never a wait (docs/security.md,
// "The hook command").

import * as fs from 'node:fs';
import * as path from 'node:path';

const C = fs.constants;
/** O_NOFOLLOW, O_NONBLOCK and O_NOCTTY where the platform has them (Windows has none). */
export const SAFE_OPEN_FLAGS = C.O_RDONLY | (C.O_NOFOLLOW ?? 0) | (C.O_NONBLOCK ?? 0) | (C.O_NOCTTY ?? 0);

export interface OpenRegularFile {
  fd: number;
  size: number;
}

/** A descriptor of `file` when it is a regular file reached without a final symlink, and its size; null otherwise. Close it. */
export function openRegularFile(file: string): OpenRegularFile | null {
  let fd: number;
  try {
    fd = fs.openSync(file, SAFE_OPEN_FLAGS);
  } catch {
    return null;
  }
  try {
    const stat = fs.fstatSync(fd);
    if (stat.isFile()) return { fd, size: stat.size };
  } catch {
    /* not readable: closed below */
  }
  fs.closeSync(fd);
  return null;
}

/** Up to `length` bytes at `position` (fewer at the end of the file). */
export function readAt(fd: number, position: number, length: number): Buffer {
  const buf = Buffer.alloc(Math.max(0, length));
  let got = 0;
  while (got < buf.length) {
    const n = fs.readSync(fd, buf, got, buf.length - got, position + got);
    if (n === 0) break;
    got += n;
  }
  return buf.subarray(0, got);
}

/** Whether the real path `real` is one of `roots` or lies inside one (roots are real paths too). */
export function isUnderRoot(real: string, roots: readonly string[]): boolean {
  return roots.some((root) => real === root || real.startsWith(root.endsWith(path.sep) ? root : root + path.sep));
}
