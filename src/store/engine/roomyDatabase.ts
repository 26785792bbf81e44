// Opens a sql.js database whose in-memory file has room to grow in place.
//
// sql.js keeps the database file in Emscripten's in-memory file system as one Uint8Array. When a
// write goes past its end, the array is replaced by one 1.125× larger and the whole file is copied:
// at a few hundred MB that is a 100–300 ms stall of the store thread (measured: the worst hook
// writes), and for a moment both copies are alive. Here the file starts out inside a much larger
// ArrayBuffer instead. The operating system backs only the pages that are written, so the unused
// room costs address space, not memory, and the file grows without a copy until the room is used
// up (after which the file system's own growth takes over again).
//
// The file system stores the bytes of a new file with `data.slice(0, length)`; handing it an
// image whose `slice` returns a view of the larger buffer is how the room gets there. Only the
// file's capacity depends on that: its size, reads and writes stay the file system's own.

import type { Database, SqlJsStatic } from 'sql.js';
import { FileStorage, PageTracker } from './pageTracker';
import { MAX_FILE_BYTES } from './sizeLimit';

/**
 * Room for the file: at least this much, or a multiple of the image, whichever is larger. Past the
 * default size limit (sizeLimit.ts), so that a store never outgrows its room below the limit: an
 * outgrown file's pages are no longer tracked, and each snapshot then loads a second copy of the
 * database in the compactor (docs/storage.md, "How big a store can grow").
 */
export const MIN_ROOM_BYTES = 2 * 1024 * 1024 * 1024;
const ROOM_FACTOR = 4;

/**
 * An image whose copy (`slice`) lands at the start of a buffer of `capacity` bytes; when the image
 * already sits at the start of such a buffer (read there by readSnapshot), that buffer is handed
 * over as it is, and opening the database copies nothing.
 */
class ImageWithRoom extends Uint8Array {
  capacity = 0;
  /** What the file system got as the file's storage, when it has room. */
  room: FileStorage | null = null;

  override slice(start?: number, end?: number): Uint8Array<ArrayBuffer> {
    if (
      this.byteOffset === 0 &&
      (start ?? 0) === 0 &&
      (end ?? this.length) === this.length &&
      this.buffer.byteLength >= this.capacity &&
      this.buffer.byteLength <= MAX_FILE_BYTES
    ) {
      this.room = new FileStorage(this.buffer as ArrayBuffer);
      return this.room;
    }
    const bytes = this.subarray(start, end);
    try {
      this.room = new FileStorage(new ArrayBuffer(Math.max(this.capacity, bytes.length)));
    } catch {
      return new Uint8Array(bytes); // no address space to spare: a plain copy
    }
    this.room.set(bytes);
    return this.room;
  }
}

/** The storage each database's file started in (see fileImage), and what tracks writes to it. */
const rooms = new WeakMap<Database, { storage: FileStorage; tracker: PageTracker }>();

/**
 * Never more than a typed array can span (4 GiB in Node 20): a larger buffer can be allocated, but
 * the file's storage could not be laid over it, and every snapshot over 1 GiB failed to open.
 */
export function roomFor(imageBytes: number): number {
  return Math.min(MAX_FILE_BYTES, Math.max(MIN_ROOM_BYTES, imageBytes * ROOM_FACTOR));
}

/** The smallest valid database file: one empty page, so that there is an image to give room to. */
function emptyImage(SQL: SqlJsStatic): Uint8Array {
  const seed = new SQL.Database();
  try {
    seed.exec('PRAGMA page_size = 4096; CREATE TABLE baton_seed (x); DROP TABLE baton_seed; VACUUM');
    return seed.export();
  } finally {
    seed.close();
  }
}

/**
 * A database on `image` (or a new, empty one) whose file can grow in place. The image is copied,
 * unless it sits at the start of a buffer of roomFor(image.length) bytes: then the database takes
 * that buffer over, and the caller must not use the image afterwards.
 */
export function openWithRoom(SQL: SqlJsStatic, image?: Uint8Array): Database {
  const source = image && image.length > 0 ? image : emptyImage(SQL);
  const withRoom = new ImageWithRoom(source.buffer as ArrayBuffer, source.byteOffset, source.length);
  withRoom.capacity = roomFor(source.length);
  const db = new SQL.Database(withRoom);
  // Tracking starts once the image is in: from here on, every write to the file is seen.
  if (withRoom.room) rooms.set(db, { storage: withRoom.room, tracker: new PageTracker(withRoom.room) });
  return db;
}

/**
 * What tracks the pages written to the database's file, while the file lives in its room and the
 * tracking is intact; null otherwise (the file outgrew its room, or never had one).
 */
export function trackerOf(db: Database): PageTracker | null {
  const room = rooms.get(db);
  if (!room) return null;
  return liveFile(db, room.storage) ? room.tracker : null;
}

const HEADER = new TextEncoder().encode('SQLite format 3\0');

function geometry(db: Database): { pageSize: number; pages: number } {
  return { pageSize: Number(db.exec('PRAGMA page_size')[0].values[0][0]), pages: Number(db.exec('PRAGMA page_count')[0].values[0][0]) };
}

/** The size of the database file, in bytes. */
export function fileSize(db: Database): number {
  const { pageSize, pages } = geometry(db);
  return pageSize * pages;
}

/** The live file inside `storage`, checked against what SQLite says; null when the file is no longer there. */
function liveFile(db: Database, storage: Uint8Array): Uint8Array | null {
  const { pageSize, pages } = geometry(db);
  const size = pageSize * pages;
  if (size <= 0 || size > storage.length) return null;
  const file = storage.subarray(0, size);
  const header = new DataView(file.buffer, 0, 100);
  const inHeaderPages = header.getUint32(28);
  const sameVersion = header.getUint32(24) === header.getUint32(92);
  const declaredPageSize = header.getUint16(16) === 1 ? 65536 : header.getUint16(16);
  if (HEADER.every((b, i) => file[i] === b) && sameVersion && inHeaderPages === pages && declaredPageSize === pageSize) return file;
  return null;
}

/**
 * The database file as it stands, for a snapshot: outside a transaction every committed page is in
 * the file, so while the file still lives in its room the bytes are read there, without the copy
 * export() makes (a few hundred MB, and a second copy in memory while the snapshot is written).
 * Otherwise, or if the header does not say what SQLite says, export(). The bytes are valid until
 * the next write; closing the database keeps them.
 */
export function fileImage(db: Database): Uint8Array {
  const room = rooms.get(db);
  return (room && liveFile(db, room.storage)) || db.export();
}
