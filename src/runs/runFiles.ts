// Reads the files a run names, for the child's prompt (docs/runs.md, "What the child is told"):
// only inside the workspace (symlinks are resolved first, so one pointing out is refused), text
// only (a NUL byte marks a binary), within a byte budget shared by all files. A file that cannot
// be given is named with the reason instead; nothing here fails the run.

import * as fs from 'node:fs';
import * as path from 'node:path';
import type { RunFile } from '../core/runs';

/** How much of a file is looked at to tell text from binary. */
const SNIFF_BYTES = 8000;

function inside(root: string, target: string): boolean {
  const rel = path.relative(root, target);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

function realRoot(workspace: string | undefined): string | null {
  if (!workspace || !path.isAbsolute(workspace)) return null;
  try {
    return fs.realpathSync(workspace);
  } catch {
    return null;
  }
}

/** Reads up to `limit` bytes of a regular file that is known to lie inside the workspace. */
function readHead(real: string, limit: number): Buffer {
  const fd = fs.openSync(real, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0));
  try {
    const buffer = Buffer.alloc(limit);
    let filled = 0;
    while (filled < limit) {
      const n = fs.readSync(fd, buffer, filled, limit - filled, filled);
      if (n === 0) break;
      filled += n;
    }
    return buffer.subarray(0, filled);
  } finally {
    fs.closeSync(fd);
  }
}

/** Drops a UTF-8 sequence cut in half at the end (a byte budget may end mid-character). */
function wholeCharacters(bytes: Buffer): string {
  let end = bytes.length;
  let back = 0;
  while (back < 3 && end - back - 1 >= 0 && (bytes[end - back - 1] & 0xc0) === 0x80) back++;
  const lead = end - back - 1;
  if (lead >= 0 && bytes[lead] >= 0xc0) {
    const need = bytes[lead] >= 0xf0 ? 4 : bytes[lead] >= 0xe0 ? 3 : 2;
    if (back + 1 < need) end = lead;
  }
  return bytes.subarray(0, end).toString('utf8');
}

export function readRunFiles(workspace: string | undefined, names: string[], budgetBytes: number): RunFile[] {
  const root = realRoot(workspace);
  let left = budgetBytes;
  return names.map((name): RunFile => {
    if (!root) return { path: name, status: 'no workspace' };
    const lexical = path.resolve(root, name);
    if (!inside(root, lexical)) return { path: name, status: 'outside' };
    let real: string;
    try {
      real = fs.realpathSync(lexical);
    } catch (err) {
      return { path: name, status: (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : 'unreadable' };
    }
    if (!inside(root, real)) return { path: name, status: 'outside' };
    try {
      const stat = fs.statSync(real);
      if (!stat.isFile()) return { path: name, status: 'not a file' };
      if (left <= 0) return { path: name, status: 'over budget', bytes: stat.size };
      const head = readHead(real, Math.min(stat.size, left));
      if (head.subarray(0, SNIFF_BYTES).includes(0)) return { path: name, status: 'binary', bytes: stat.size };
      left -= head.length;
      const content = wholeCharacters(head);
      return { path: name, status: head.length < stat.size ? 'truncated' : 'included', content, bytes: stat.size };
    } catch {
      return { path: name, status: 'unreadable' };
    }
  });
}
