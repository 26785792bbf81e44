// Snapshots: the whole sql.js database image, written with an atomic replace, with a trailer
// that names the last journal sequence it contains and a SHA-256 of the image, so a torn or
// corrupt snapshot is recognised and the previous one is used instead.

import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type Pace, writeFileAtomic, writeFileAtomicPaced } from './fsync';
import { numberedFiles } from './paths';

const MAGIC = Buffer.from('BATONSN1', 'ascii');
const TRAILER = MAGIC.length + 8 + 8 + 32;
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
  const trailer = Buffer.alloc(TRAILER);
  MAGIC.copy(trailer, 0);
  trailer.writeBigUInt64LE(BigInt(seq), 8);
  trailer.writeBigUInt64LE(BigInt(image.length), 16);
  crypto.createHash('sha256').update(image).digest().copy(trailer, 24);
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
    for (let offset = 0; offset < size; ) {
      const read = fs.readSync(fd, data, offset, size - offset, offset);
      if (read === 0) throw new CorruptSnapshotError(`${file}: shorter than its size`);
      offset += read;
    }
  } finally {
    fs.closeSync(fd);
  }
  if (data.length < TRAILER) throw new CorruptSnapshotError(`${file}: too short`);
  const trailer = data.subarray(data.length - TRAILER);
  if (!trailer.subarray(0, MAGIC.length).equals(MAGIC)) throw new CorruptSnapshotError(`${file}: no trailer`);
  const seq = Number(trailer.readBigUInt64LE(8));
  const length = Number(trailer.readBigUInt64LE(16));
  if (length !== data.length - TRAILER) throw new CorruptSnapshotError(`${file}: length mismatch`);
  const image = new Uint8Array(data.buffer, data.byteOffset, length);
  const digest = crypto.createHash('sha256').update(image).digest();
  if (!digest.equals(trailer.subarray(24))) throw new CorruptSnapshotError(`${file}: checksum mismatch`);
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
