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

/** Room for the file: at least this much, or a multiple of the image, whichever is larger. */
export const MIN_ROOM_BYTES = 1 << 30;
const ROOM_FACTOR = 4;

/**
 * An image whose copy (`slice`) lands at the start of a buffer of `capacity` bytes; when the image
 * already sits at the start of such a buffer (read there by readSnapshot), that buffer is handed
 * over as it is, and opening the database copies nothing.
 */
class ImageWithRoom extends Uint8Array {
  capacity = 0;

  override slice(start?: number, end?: number): Uint8Array<ArrayBuffer> {
    if (this.byteOffset === 0 && (start ?? 0) === 0 && (end ?? this.length) === this.length && this.buffer.byteLength >= this.capacity) {
      return new Uint8Array(this.buffer as ArrayBuffer);
    }
    const bytes = this.subarray(start, end);
    let room: Uint8Array<ArrayBuffer>;
    try {
      room = new Uint8Array(new ArrayBuffer(Math.max(this.capacity, bytes.length)));
    } catch {
      return new Uint8Array(bytes); // no address space to spare: a plain copy
    }
    room.set(bytes);
    return room;
  }
}

export function roomFor(imageBytes: number): number {
  return Math.max(MIN_ROOM_BYTES, imageBytes * ROOM_FACTOR);
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
  return new SQL.Database(withRoom);
}
