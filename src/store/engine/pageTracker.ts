// Which parts of the database file changed since the last snapshot, so that a snapshot can be the
// previous one with those pages replaced, instead of a second copy of the whole database.
//
// sql.js keeps the file in Emscripten's in-memory file system, which writes every byte of it with
// `contents.set(bytes, position)` on the file's storage array. The storage is ours (see
// roomyDatabase.ts), an instance of FileStorage below, so each write is seen before it lands: its
// pages are marked dirty, and a page that an ongoing capture still has to copy is copied first
// (copy-on-write). A capture therefore holds the file exactly as it was when it started, while
// writes go on and the pages are handed out a window at a time.

/** Unit of tracking, in bytes: SQLite's page size here, and a divisor of any other. */
export const TRACK_PAGE = 4096;

export class FileStorage extends Uint8Array<ArrayBuffer> {
  /** subarray() and friends return plain arrays: only the file's own storage reports writes. */
  static get [Symbol.species](): Uint8ArrayConstructor {
    return Uint8Array;
  }

  tracker: PageTracker | null = null;

  override set(source: ArrayLike<number>, offset = 0): void {
    this.tracker?.beforeWrite(offset, source.length);
    super.set(source, offset);
  }
}

interface Capture {
  /** File size when the capture started: what the snapshot holds. */
  size: number;
  /** Every page the capture covers, ascending. */
  all: number[];
  /** Index into `all` of the next page to hand out. */
  cursor: number;
  /** Pages not yet copied ahead of a write. */
  pending: Set<number>;
  /** Pages copied ahead of a write, waiting for their window. */
  early: Map<number, Uint8Array>;
}

export class PageTracker {
  private dirty = new Set<number>();
  private capture: Capture | null = null;

  constructor(private readonly storage: FileStorage) {
    storage.tracker = this;
  }

  /** Marks [0, bytes) dirty: the file has no snapshot to be patched from. */
  markDirty(bytes: number): void {
    for (let page = 0; page * TRACK_PAGE < bytes; page++) this.dirty.add(page);
  }

  beforeWrite(offset: number, length: number): void {
    if (length <= 0) return;
    const last = Math.floor((offset + length - 1) / TRACK_PAGE);
    for (let page = Math.floor(offset / TRACK_PAGE); page <= last; page++) {
      if (this.capture?.pending.has(page)) {
        this.capture.early.set(page, this.copy(page, this.capture.size));
        this.capture.pending.delete(page);
      }
      this.dirty.add(page);
    }
  }

  /**
   * Starts a capture of the file as it is now (`size` bytes): the pages dirty so far. From here on,
   * new writes are dirty for the next snapshot. Returns how many pages the capture covers.
   */
  startCapture(size: number): number {
    if (this.capture) throw new Error('a capture is already running');
    const limit = Math.ceil(size / TRACK_PAGE);
    const all = [...this.dirty].filter((page) => page < limit).sort((a, b) => a - b);
    this.capture = { size, all, cursor: 0, pending: new Set(all), early: new Map() };
    this.dirty = new Set([...this.dirty].filter((page) => page >= limit));
    return all.length;
  }

  /**
   * Lays the captured pages in [fromPage, toPage) over `into`, which holds the file's bytes from
   * fromPage on as the base snapshot has them. Windows are asked for in ascending order. Copies
   * straight from the file: nothing is allocated here.
   */
  overlay(fromPage: number, toPage: number, into: Uint8Array): void {
    const capture = this.capture;
    if (!capture) throw new Error('no capture is running');
    const origin = fromPage * TRACK_PAGE;
    while (capture.cursor < capture.all.length && capture.all[capture.cursor] < toPage) {
      const page = capture.all[capture.cursor++];
      if (page < fromPage) throw new Error(`page ${page} was not asked for in order`);
      const early = capture.early.get(page);
      if (early) {
        into.set(early, page * TRACK_PAGE - origin);
        capture.early.delete(page);
        continue;
      }
      capture.pending.delete(page);
      const start = page * TRACK_PAGE;
      into.set(this.storage.subarray(start, Math.min(start + TRACK_PAGE, capture.size)), start - origin);
    }
  }

  /** Ends the capture; when its snapshot was not written, its pages are dirty again. */
  finishCapture(written: boolean): void {
    if (!this.capture) return;
    if (!written) for (const page of this.capture.all) this.dirty.add(page);
    this.capture = null;
  }

  /** A copy of a page as it is now, made before a write changes it. */
  private copy(page: number, size: number): Uint8Array {
    const start = page * TRACK_PAGE;
    return this.storage.slice(start, Math.min(start + TRACK_PAGE, size));
  }
}
