// Snapshots: the whole sql.js database image, written with an atomic replace, with a trailer
// that names the last journal sequence it contains and a SHA-256 of the image, so a torn or
// corrupt snapshot is recognised and the previous one is used instead.

import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type Pace, writeFileAtomic, writeFileAtomicPaced } from '../../node/fsync';
import { TRACK_PAGE } from './pageTracker';
import { numberedFiles } from '../../node/paths';

const MAGIC = Buffer.from('BATONSN1', 'ascii');
const TRAILER = MAGIC.length + 8 + 8 + 32;
/** Bytes after the image in a snapshot file. */
export const SNAPSHOT_TRAILER_BYTES = TRAILER;
const NAME = /^snapshot-(\d{16})\.db$/;

export interface SnapshotFile {
  path: string;
  seq: number;
}

/** Snapshots, newest first. */
export function listSnapshots(dir: string): SnapshotFile[] {
  return numberedFiles(dir, NAME).reverse();
}

export function snapshotPath(dir: string, seq: number): string {
  return path.join(dir, `snapshot-${String(seq).padStart(16, '0')}.db`);
}

function trailerFor(seq: number, image: Uint8Array): Buffer {
  return trailerOf(seq, image.length, crypto.createHash('sha256').update(image).digest());
}

function trailerOf(seq: number, length: number, digest: Buffer): Buffer {
  const trailer = Buffer.alloc(TRAILER);
  MAGIC.copy(trailer, 0);
  trailer.writeBigUInt64LE(BigInt(seq), 8);
  trailer.writeBigUInt64LE(BigInt(length), 16);
  digest.copy(trailer, 24);
  return trailer;
}

export function writeSnapshot(dir: string, seq: number, image: Uint8Array): string {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const target = snapshotPath(dir, seq);
  writeFileAtomic(target, [image, trailerFor(seq, image)]);
  return target;
}

/** writeSnapshot for the background compactor: paced, so it never crowds out journal fsyncs. */
export async function writeSnapshotPaced(dir: string, seq: number, image: Uint8Array, pace: Pace): Promise<string> {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const target = snapshotPath(dir, seq);
  await writeFileAtomicPaced(target, [image, trailerFor(seq, image)], pace);
  return target;
}

export class CorruptSnapshotError extends Error {}

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');

/**
 * What is wrong with a database image's header, or null: the SQLite magic, a valid page size, and
 * a page count that, times the page size, is exactly the image's length. An image cut short or
 * grown (a length that wrapped, a partial copy) fails here even when its checksum matches.
 */
export function imageHeaderProblem(header: Uint8Array, imageBytes: number): string | null {
  if (imageBytes < 100 || header.length < 100) return 'too short to be a database';
  if (!SQLITE_MAGIC.equals(Buffer.from(header.buffer, header.byteOffset, SQLITE_MAGIC.length))) return 'not an SQLite database';
  const view = new DataView(header.buffer, header.byteOffset, 100);
  const raw = view.getUint16(16);
  const pageSize = raw === 1 ? 65536 : raw;
  if (pageSize < 512 || (pageSize & (pageSize - 1)) !== 0) return `invalid page size ${raw}`;
  const pages = view.getUint32(28);
  // The in-header page count is only valid while "version-valid-for" equals the change counter.
  if (view.getUint32(92) !== view.getUint32(24))
    return imageBytes % pageSize === 0 ? null : `${imageBytes} bytes is not a whole number of ${pageSize}-byte pages`;
  if (pages * pageSize !== imageBytes) return `its header says ${pages} pages of ${pageSize} bytes (${pages * pageSize} bytes), the image holds ${imageBytes}`;
  return null;
}

/**
 * Reads a snapshot back from disk, a window at a time, and checks that it is the whole database
 * it should be: its trailer names `seq` and an image of `size` bytes (when given), the image
 * matches its SHA-256, and the database header's page count matches its length. Throws
 * CorruptSnapshotError otherwise. Nothing may drop the journal a snapshot covers before this
 * passed (docs/storage.md, "Verifying snapshots").
 */
export function verifySnapshotFile(file: string, expect: { seq: number; size?: number }, window: Uint8Array = new Uint8Array(8 << 20)): void {
  const fd = fs.openSync(file, 'r');
  try {
    const fileBytes = fs.fstatSync(fd).size;
    const trailer = Buffer.alloc(TRAILER);
    const parsed = fileBytes < TRAILER || !readFully(fd, trailer, TRAILER, fileBytes - TRAILER) ? { problem: 'too short' } : parseTrailer(trailer, fileBytes);
    if ('problem' in parsed) throw new CorruptSnapshotError(`${file}: ${parsed.problem}`);
    if (parsed.seq !== expect.seq) throw new CorruptSnapshotError(`${file}: its trailer names seq ${parsed.seq}, not ${expect.seq}`);
    if (expect.size !== undefined && parsed.length !== expect.size)
      throw new CorruptSnapshotError(`${file}: holds ${parsed.length} bytes of image, the database file was ${expect.size}`);
    const hash = crypto.createHash('sha256');
    for (let at = 0; at < parsed.length; at += window.length) {
      const length = Math.min(window.length, parsed.length - at);
      if (!readFully(fd, window, length, at)) throw new CorruptSnapshotError(`${file}: shorter than its trailer says`);
      if (at === 0) {
        const problem = imageHeaderProblem(window.subarray(0, length), parsed.length);
        if (problem) throw new CorruptSnapshotError(`${file}: ${problem}`);
      }
      hash.update(window.subarray(0, length));
    }
    if (!hash.digest().equals(parsed.digest)) throw new CorruptSnapshotError(`${file}: checksum mismatch`);
  } finally {
    fs.closeSync(fd);
  }
}

/** What a snapshot's trailer says, or what is wrong with it (`fileBytes`: the whole file's size). */
function parseTrailer(trailer: Buffer, fileBytes: number): { seq: number; length: number; digest: Buffer } | { problem: string } {
  if (fileBytes < TRAILER || trailer.length < TRAILER) return { problem: 'too short' };
  if (!trailer.subarray(0, MAGIC.length).equals(MAGIC)) return { problem: 'no trailer' };
  const length = Number(trailer.readBigUInt64LE(16));
  if (length !== fileBytes - TRAILER) return { problem: 'length mismatch' };
  return { seq: Number(trailer.readBigUInt64LE(8)), length, digest: Buffer.from(trailer.subarray(24, TRAILER)) };
}

/**
 * One fs read at most: Node's readSync takes its length as a 32-bit integer (`length |= 0`), so a
 * read of 2 GiB or more would wrap to a negative length and fail.
 */
const MAX_READ = 1 << 30;

/** Reads `length` bytes at `position` into `into`; false when the file ends first. */
function readFully(fd: number, into: Uint8Array, length: number, position: number): boolean {
  for (let done = 0; done < length;) {
    const read = fs.readSync(fd, into, done, Math.min(length - done, MAX_READ), position + done);
    if (read === 0) return false;
    done += read;
  }
  return true;
}

/** Where the pages of a snapshot being patched come from (the store thread's capture). */
export interface PageSource {
  /** Lays the captured pages in [fromPage, toPage) over `into` (see PageTracker.overlay). */
  overlay(fromPage: number, toPage: number, into: Uint8Array): Promise<void>;
}

/** The base snapshot of a patched one could not be used (gone, or not what its trailer says). */
export class UnusableBaseError extends Error {}

/**
 * Writes the snapshot at `seq` of a database file of `size` bytes as the `base` snapshot's image
 * with the captured pages laid over it (no base: over zeros). It goes out a window at a time
 * through `window` (a multiple of TRACK_PAGE long), the one buffer used throughout: the base's
 * bytes are read into it, the window's pages laid over them, and it is written. The base is checked
 * against its own checksum on the way: a base that changed on disk would otherwise pass its damage
 * on under a fresh checksum.
 */
export async function writePatchedSnapshot(
  dir: string,
  seq: number,
  base: string | null,
  size: number,
  source: PageSource,
  pace: Pace,
  window: Uint8Array,
): Promise<string> {
  if (window.length === 0 || window.length % TRACK_PAGE !== 0) throw new Error('the window must be a whole number of pages');
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const target = snapshotPath(dir, seq);
  const from = base ? openBase(base) : null;
  try {
    await writeFileAtomicPaced(target, patchedImage(seq, size, from, source, window), pace);
  } finally {
    if (from) fs.closeSync(from.fd);
  }
  return target;
}

interface Base {
  fd: number;
  path: string;
  length: number;
  digest: Buffer;
}

function openBase(file: string): Base {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (err) {
    throw new UnusableBaseError(`base snapshot ${file}: ${(err as Error).message}`);
  }
  const size = fs.fstatSync(fd).size;
  const trailer = Buffer.alloc(TRAILER);
  const parsed = size < TRAILER || !readFully(fd, trailer, TRAILER, size - TRAILER) ? { problem: 'too short' } : parseTrailer(trailer, size);
  if ('problem' in parsed) {
    fs.closeSync(fd);
    throw new UnusableBaseError(`base snapshot ${file}: ${parsed.problem}`);
  }
  return { fd, path: file, length: parsed.length, digest: parsed.digest };
}

function readAt(fd: number, into: Uint8Array, length: number, position: number): void {
  if (!readFully(fd, into, length, position)) throw new UnusableBaseError('base snapshot is shorter than its trailer says');
}

async function* patchedImage(seq: number, size: number, base: Base | null, source: PageSource, window: Uint8Array): AsyncGenerator<Uint8Array> {
  const image = crypto.createHash('sha256');
  const baseHash = crypto.createHash('sha256');
  for (let start = 0; start < size; start += window.length) {
    const end = Math.min(size, start + window.length);
    const bytes = window.subarray(0, end - start);
    const fromBase = base ? Math.max(0, Math.min(end, base.length) - start) : 0;
    if (fromBase > 0) {
      readAt(base!.fd, bytes, fromBase, start);
      baseHash.update(bytes.subarray(0, fromBase));
    }
    bytes.fill(0, fromBase);
    await source.overlay(start / TRACK_PAGE, Math.ceil(end / TRACK_PAGE), bytes);
    image.update(bytes);
    yield bytes; // written before the next window is read into the same buffer
  }
  if (base) {
    // The part of the base past the new size (a file never shrinks here, but the check must cover it all).
    for (let at = size; at < base.length; at += window.length) {
      const length = Math.min(window.length, base.length - at);
      readAt(base.fd, window, length, at);
      baseHash.update(window.subarray(0, length));
    }
    if (!baseHash.digest().equals(base.digest)) throw new UnusableBaseError(`base snapshot ${base.path} no longer matches its checksum`);
  }
  yield trailerOf(seq, size, image.digest());
}

/**
 * Reads and verifies a snapshot; returns the database image (without trailer). With `room` (bytes
 * wanted for a file of the snapshot's size), the image is read into the start of a buffer that
 * large, so that a database can take the buffer over as its file without copying it (see
 * roomyDatabase.ts).
 */
export function readSnapshot(file: string, room: (fileBytes: number) => number = () => 0): { seq: number; image: Uint8Array } {
  const fd = fs.openSync(file, 'r');
  let data: Buffer;
  try {
    const size = fs.fstatSync(fd).size;
    data = Buffer.from(allocate(Math.max(size, room(size)), size), 0, size);
    if (!readFully(fd, data, size, 0)) throw new CorruptSnapshotError(`${file}: shorter than its size`);
  } finally {
    fs.closeSync(fd);
  }
  const trailer = data.subarray(Math.max(0, data.length - TRAILER));
  const parsed = parseTrailer(trailer, data.length);
  if ('problem' in parsed) throw new CorruptSnapshotError(`${file}: ${parsed.problem}`);
  const { seq, length } = parsed;
  const image = new Uint8Array(data.buffer, data.byteOffset, length);
  const digest = crypto.createHash('sha256').update(image).digest();
  if (!digest.equals(parsed.digest)) throw new CorruptSnapshotError(`${file}: checksum mismatch`);
  trailer.fill(0); // the room after the image starts out as zeros, like a file that never held more
  return { seq, image };
}

/** A buffer of `bytes`, or of `fallback` bytes when the address space for the larger one is refused. */
function allocate(bytes: number, fallback: number): ArrayBuffer {
  try {
    return new ArrayBuffer(bytes);
  } catch {
    return new ArrayBuffer(fallback);
  }
}
