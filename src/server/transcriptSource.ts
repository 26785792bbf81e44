// Reads a harness transcript named by a hook payload, but only when it is safe to. The file is
// opened once (never following a symlink in its last component, never blocking on a FIFO or a
// device), and everything is decided on that open descriptor: where it really lives (under an
// allowed root), what it is (a regular file) and how big it is (within the cap). Only the
// descriptor is read, so swapping the path between the check and the read changes nothing.
// See "Reading transcript files" in docs/security.md.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { BatonError } from '../core/errors';
import { normalizeTranscript } from '../harnesses/registry';
import type { Turn } from '../core/types';

/**
 * The one answer for a path that is missing, outside the roots, a symlink swapped in, or otherwise
 * not openable: a caller cannot tell whether a file exists anywhere outside the allowed folders.
 */
export const UNREADABLE_TRANSCRIPT = 'transcriptPath is not a readable file under the allowed transcript folders';

const C = fs.constants;
/** Read only; the last component must not be a symlink; a FIFO or device must not block the open or become our terminal. */
const OPEN_FLAGS = C.O_RDONLY | (C.O_NOFOLLOW ?? 0) | (C.O_NONBLOCK ?? 0) | (C.O_NOCTTY ?? 0);
const CHUNK = 64 * 1024;

function unreadable(): BatonError {
  return new BatonError('invalid_request', UNREADABLE_TRANSCRIPT);
}

async function realRoots(roots: string[]): Promise<string[]> {
  const out = await Promise.all(roots.map((root) => fs.promises.realpath(root).catch(() => null)));
  return out.filter((r): r is string => r !== null);
}

function isUnder(real: string, roots: string[]): boolean {
  return roots.some((root) => real === root || real.startsWith(root.endsWith(path.sep) ? root : root + path.sep));
}

/**
 * Where the open descriptor really is, from the kernel (Linux: /proc/self/fd/N names the file the
 * descriptor refers to, with no symlinks in it). readlink, not realpath: realpath would walk that
 * name again through the file system, which is exactly the lookup a swap can change. null when
 * the system offers no such name.
 */
async function descriptorPath(fd: number): Promise<string | null> {
  if (process.platform !== 'linux') return null;
  try {
    return await fs.promises.readlink(`/proc/self/fd/${fd}`);
  } catch {
    return null;
  }
}

/**
 * Whether the open file lies under a root. With the kernel's name for the descriptor, that name
 * decides. Otherwise the path is resolved again now and must both lie under a root and name the
 * very file that is open (same device and inode): a swap after the open makes them differ.
 */
async function openedUnderRoot(fd: number, opened: fs.Stats, real: string, roots: string[]): Promise<boolean> {
  const named = await descriptorPath(fd);
  if (named !== null) {
    // Not a path at all (pipe:[…], anon_inode:…) or a file removed since: refused.
    if (!path.isAbsolute(named) || named.endsWith(' (deleted)')) return false;
    return isUnder(named, roots);
  }
  try {
    const again = await fs.promises.realpath(real);
    if (!isUnder(again, roots)) return false;
    const now = await fs.promises.stat(again);
    return now.dev === opened.dev && now.ino === opened.ino;
  } catch {
    return false;
  }
}

/** Reads at most maxBytes from the descriptor; more than that is refused (the file may grow after fstat). */
async function readCapped(handle: fs.promises.FileHandle, maxBytes: number, sizeHint: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    // Up to the size fstat saw, then on in whole chunks (a live transcript grows), one byte past the cap at most.
    const want = total < sizeHint ? Math.min(CHUNK, sizeHint - total) : CHUNK;
    const buf = Buffer.allocUnsafe(Math.min(want, maxBytes - total + 1));
    const { bytesRead } = await handle.read(buf, 0, buf.length, null);
    if (bytesRead === 0) break;
    total += bytesRead;
    if (total > maxBytes) throw new BatonError('invalid_request', `transcriptPath is larger than the limit of ${maxBytes} bytes`);
    chunks.push(bytesRead === buf.length ? buf : buf.subarray(0, bytesRead));
  }
  return Buffer.concat(chunks, total);
}

/**
 * The text of an allowed transcript file, read through one descriptor. Refused (400) when the path
 * is relative, does not lead to a file under an allowed root, is not a regular file or exceeds the cap.
 */
export async function readTranscriptFile(requested: string, roots: string[], maxBytes: number): Promise<string> {
  if (!path.isAbsolute(requested)) throw new BatonError('invalid_request', 'transcriptPath must be an absolute path');
  const allowed = await realRoots(roots);
  // A first look by name, so that nothing outside the roots is even opened in the ordinary case.
  // It decides nothing by itself: the descriptor is checked again below.
  let real: string;
  try {
    real = await fs.promises.realpath(requested);
  } catch {
    throw unreadable();
  }
  if (!isUnder(real, allowed)) throw unreadable();
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(real, OPEN_FLAGS);
  } catch {
    // Gone, swapped for a symlink (ELOOP), not permitted, …: all the same to the caller.
    throw unreadable();
  }
  try {
    const stat = await handle.stat();
    if (!(await openedUnderRoot(handle.fd, stat, real, allowed))) throw unreadable();
    // From here on the file is known to be under a root, so saying what is wrong with it reveals nothing.
    if (!stat.isFile()) throw new BatonError('invalid_request', 'transcriptPath is not a regular file');
    if (stat.size > maxBytes) throw new BatonError('invalid_request', `transcriptPath is ${stat.size} bytes; the limit is ${maxBytes}`);
    return (await readCapped(handle, maxBytes, stat.size)).toString('utf8');
  } finally {
    await handle.close().catch(() => undefined);
  }
}

export interface TranscriptInput {
  harness: string;
  transcriptPath?: string;
  transcript?: unknown;
}

/** The turns of an inline transcript (string or message list) or of an allowed file; [] when neither. */
export async function loadTranscriptTurns(input: TranscriptInput, roots: string[], maxBytes: number): Promise<Turn[]> {
  if (input.transcript !== undefined && input.transcript !== null) {
    const raw = typeof input.transcript === 'string' ? input.transcript : JSON.stringify(input.transcript);
    return normalizeTranscript(raw, { harness: input.harness });
  }
  if (input.transcriptPath) {
    const text = await readTranscriptFile(input.transcriptPath, roots, maxBytes);
    return normalizeTranscript(text, { harness: input.harness });
  }
  return [];
}
