// Which parts of the database file changed since the last snapshot, so that a snapshot can be the
// previous one with those pages replaced, instead of a second copy of the whole database.
//
// sql.js keeps the file in Emscripten's in-memory file system, which writes every byte of it with
// `contents.set(bytes, position)` on the file's storage array. The storage is ours (see
// roomyDatabase.ts), an instance of FileStorage below, so each write is seen before it lands: its
// pages are marked dirty, and a page that an ongoing capture still has to copy is copied first
// (copy-on-write). A capture therefore holds the file exactly as it was when it started, while
// writes go on and the pages are handed out a slice at a time.

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

export interface CapturedPages {
  /** Page numbers, ascending except for pages copied ahead of a write. */
  pages: number[];
  /** Their bytes, TRACK_PAGE each (the file's last page may be shorter). */
  bytes: Uint8Array<ArrayBuffer>;
}

interface Capture {
  /** File size when the capture started: what the snapshot holds. */
  size: number;
  /** Every page the capture covers, ascending. */
  all: number[];
  /** Index into `all` of the next page to sweep. */
  cursor: number;
  /** Pages not yet copied (neither swept nor copied ahead of a write). */
  pending: Set<number>;
  /** Pages copied ahead of a write, waiting to be handed out. */
  early: Map<number, Uint8Array>;
}

export class PageTracker {
  private dirty = new Set<number>();
  private capture: Capture | null = null;

  constructor(private readonly storage: FileStorage) {
    storage.tracker = this;
  }

  /** Bytes the file can reach before the file system moves it out of the tracked storage. */
  get capacity(): number {
    return this.storage.length;
  }

  /** Marks [0, bytes) dirty: the file has no snapshot to be patched from. */
  markDirty(bytes: number): void {
    for (let page = 0; page * TRACK_PAGE < bytes; page++) this.dirty.add(page);
  }

  get dirtyPages(): number {
    return this.dirty.size;
  }

  get capturing(): boolean {
    return this.capture !== null;
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
   * new writes are dirty for the next snapshot. Returns the pages the capture covers, ascending.
   */
  startCapture(size: number): number[] {
    if (this.capture) throw new Error('a capture is already running');
    const limit = Math.ceil(size / TRACK_PAGE);
    const all = [...this.dirty].filter((page) => page < limit).sort((a, b) => a - b);
    this.capture = { size, all, cursor: 0, pending: new Set(all), early: new Map() };
    this.dirty = new Set([...this.dirty].filter((page) => page >= limit));
    return all;
  }

  /** Copies out every captured page below `pageLimit` not yet handed out, and any copied ahead of a write. */
  take(pageLimit: number): CapturedPages {
    const capture = this.capture;
    if (!capture) throw new Error('no capture is running');
    const out: Array<[number, Uint8Array]> = [...capture.early];
    capture.early.clear();
    while (capture.cursor < capture.all.length && capture.all[capture.cursor] < pageLimit) {
      const page = capture.all[capture.cursor++];
      if (!capture.pending.delete(page)) continue; // already copied ahead of a write
      out.push([page, this.copy(page, capture.size)]);
    }
    const bytes = new Uint8Array(out.reduce((sum, [, b]) => sum + b.length, 0));
    let at = 0;
    for (const [, b] of out) {
      bytes.set(b, at);
      at += b.length;
    }
    return { pages: out.map(([page]) => page), bytes };
  }

  /** Ends the capture; when its snapshot was not written, its pages are dirty again. */
  finishCapture(written: boolean): void {
    if (!this.capture) return;
    if (!written) for (const page of this.capture.all) this.dirty.add(page);
    this.capture = null;
  }

  private copy(page: number, size: number): Uint8Array {
    const start = page * TRACK_PAGE;
    return this.storage.slice(start, Math.min(start + TRACK_PAGE, size));
  }
}
