// One SQLite database image from a database file and its write-ahead log, for reading OpenCode's
// `opencode.db` with sql.js (an in-memory SQLite that cannot open a WAL itself). OpenCode keeps
// the database in WAL mode and does not checkpoint when it exits, so most of its history usually
// sits in `opencode.db-wal`: reading the main file alone finds next to nothing. This applies the
// log's committed frames to a copy of the pages, as SQLite does when it reads, and marks the
// image as a rollback-journal database. The files themselves are only read, never opened by SQLite
// (so OpenCode may keep running). Format: https://www.sqlite.org/fileformat2.html#walformat

/**
 * The largest database image read (and the most read of the database file and of its log): sql.js
 * holds the whole image in memory, twice while it opens it.
 */
export const MAX_DATABASE_BYTES = 1024 * 1024 * 1024;

const WAL_HEADER = 32;
const FRAME_HEADER = 24;
const WAL_MAGIC = 0x377f0682; // | 1 when the checksums are computed on big-endian words

/** SQLite's WAL checksum over `data` (a multiple of 8 bytes), continuing from `[s0, s1]`. */
function walChecksum(data: Uint8Array, bigEndian: boolean, s0: number, s1: number): [number, number] {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  for (let i = 0; i + 8 <= data.byteLength; i += 8) {
    s0 = (s0 + view.getUint32(i, !bigEndian) + s1) >>> 0;
    s1 = (s1 + view.getUint32(i + 4, !bigEndian) + s0) >>> 0;
  }
  return [s0, s1];
}

/** Whether `size` is a page size SQLite can have: a power of two from 512 to 65536. */
function validPageSize(size: number): boolean {
  return size >= 512 && size <= 65536 && (size & (size - 1)) === 0;
}

/** The database's page size from its header (1 stands for 65536), or null for a file without a SQLite header. */
function headerPageSize(db: Uint8Array): number | null {
  if (db.byteLength < 100 || new TextDecoder().decode(db.subarray(0, 15)) !== 'SQLite format 3') return null;
  const size = (db[16] << 8) | db[17];
  const pageSize = size === 1 ? 65536 : size;
  if (!validPageSize(pageSize)) throw new Error(`damaged: its header gives a page size of ${size}`);
  return pageSize;
}

/**
 * The pages of every transaction the log committed, in order (a later frame of a page wins), and
 * the database's size in pages after the last commit; null when the log holds no valid commit.
 */
function committedFrames(wal: Uint8Array): { pageSize: number; pages: Map<number, Uint8Array>; dbPages: number } | null {
  if (wal.byteLength < WAL_HEADER) return null;
  const view = new DataView(wal.buffer, wal.byteOffset, wal.byteLength);
  const magic = view.getUint32(0);
  if ((magic & ~1) >>> 0 !== WAL_MAGIC) return null;
  const bigEndian = (magic & 1) === 1;
  const pageSize = view.getUint32(8);
  if (!validPageSize(pageSize)) return null; // SQLite ignores such a log too
  const salt1 = view.getUint32(16);
  const salt2 = view.getUint32(20);
  let sums = walChecksum(wal.subarray(0, 24), bigEndian, 0, 0);
  if (sums[0] !== view.getUint32(24) || sums[1] !== view.getUint32(28)) return null;
  const committed = new Map<number, Uint8Array>();
  let pending = new Map<number, Uint8Array>();
  let dbPages = 0;
  for (let at = WAL_HEADER; at + FRAME_HEADER + pageSize <= wal.byteLength; at += FRAME_HEADER + pageSize) {
    // A frame of an older log generation (other salts) or a torn write ends the valid part.
    if (view.getUint32(at + 8) !== salt1 || view.getUint32(at + 12) !== salt2) break;
    const page = wal.subarray(at + FRAME_HEADER, at + FRAME_HEADER + pageSize);
    sums = walChecksum(wal.subarray(at, at + 8), bigEndian, sums[0], sums[1]);
    sums = walChecksum(page, bigEndian, sums[0], sums[1]);
    if (sums[0] !== view.getUint32(at + 16) || sums[1] !== view.getUint32(at + 20)) break;
    pending.set(view.getUint32(at), page);
    const sizeAfterCommit = view.getUint32(at + 4);
    if (sizeAfterCommit > 0) {
      for (const [n, p] of pending) committed.set(n, p);
      pending = new Map();
      dbPages = sizeAfterCommit;
    }
  }
  return dbPages > 0 ? { pageSize, pages: committed, dbPages } : null;
}

/**
 * The database as SQLite would read it: `db` with the committed frames of `wal` (if any) applied.
 * Throws when neither holds a database, and when the log claims a database larger than the two
 * files can hold: every page of a real database is in the file or in the log, so a size beyond
 * them is damage (or a crafted log), and it is refused before anything of that size is allocated.
 */
export function sqliteImage(db: Uint8Array, wal?: Uint8Array | null): Uint8Array {
  const log = wal ? committedFrames(wal) : null;
  const dbPageSize = headerPageSize(db);
  const pageSize = log?.pageSize ?? dbPageSize;
  if (!pageSize) throw new Error('not a SQLite database (no header, and no committed write-ahead log)');
  if (log && dbPageSize && log.pageSize !== dbPageSize)
    throw new Error(`damaged: its write-ahead log has pages of ${log.pageSize} bytes, the database of ${dbPageSize}`);
  const filePages = Math.floor(db.byteLength / pageSize);
  const pages = log ? log.dbPages : filePages;
  const present = filePages + (log ? [...log.pages.keys()].filter((n) => n > filePages).length : 0);
  if (pages > present) throw new Error(`damaged: its write-ahead log gives the database ${pages} pages, but the database and its log hold at most ${present}`);
  if (pages * pageSize > MAX_DATABASE_BYTES) throw new Error(`${pages * pageSize} bytes; the import reads databases of at most ${MAX_DATABASE_BYTES} bytes`);
  const image = new Uint8Array(pages * pageSize);
  image.set(db.subarray(0, Math.min(db.byteLength, image.byteLength)));
  if (log) for (const [n, page] of log.pages) if (n >= 1 && n <= pages) image.set(page, (n - 1) * pageSize);
  if (image.byteLength < 100 || new TextDecoder().decode(image.subarray(0, 15)) !== 'SQLite format 3') throw new Error('not a SQLite database');
  // File format versions 1/1: a rollback-journal database, which an in-memory SQLite opens as is.
  image[18] = 1;
  image[19] = 1;
  return image;
}
