// How large the database may grow. sql.js keeps the whole database file in one typed array, and a
// snapshot is that file written out and read back in whole at the next open: in Node 20 a typed
// array holds at most 4 GiB, a single fs read at most 2 GiB, and the store needs room beside the
// file (a replayed copy in the compactor, the file's growth). Writes that would take the file past
// the limit are refused (HTTP 507) while the store still snapshots and reloads with headroom; a
// warning comes well before. Figures and the choice of the limit: docs/storage.md, "How big a
// store can grow".

import { constants } from 'node:buffer';
import type { Database } from 'sql.js';
import { BatonError } from '../../core/errors';

const GiB = 1024 * 1024 * 1024;

/** The default limit on the database file: writes that would grow it past this are refused. */
export const DEFAULT_STORE_LIMIT_BYTES = 1.5 * GiB;
/** The warning comes once the file passes this share of the limit. */
export const WARN_FRACTION = 0.8;
/** Overrides the limit (bytes), for tests that drive a store past a small one cheaply. */
export const STORE_LIMIT_ENV = 'BATON_STORE_LIMIT_BYTES';
/** The largest typed array Node gives: no database file, or room for one, can be larger. */
export const MAX_FILE_BYTES = constants.MAX_LENGTH;

/**
 * The limit in force: `explicit`, else $BATON_STORE_LIMIT_BYTES, else the default; never more than
 * half the largest file, so that a second copy (a replayed compaction) and the file's growth fit.
 */
export function storeLimitBytes(explicit?: number, env: NodeJS.ProcessEnv = process.env): number {
  const fromEnv = env[STORE_LIMIT_ENV] ? Number(env[STORE_LIMIT_ENV]) : undefined;
  const chosen = explicit ?? (fromEnv !== undefined && Number.isSafeInteger(fromEnv) && fromEnv > 0 ? fromEnv : DEFAULT_STORE_LIMIT_BYTES);
  return Math.min(chosen, MAX_FILE_BYTES / 2);
}

export type StorageState = 'ok' | 'warning' | 'full';

/** Where the store stands against its limit (the store status, GET /api/store/recovery, `baton doctor`). */
export interface StorageStatus {
  /** The database file (what a snapshot holds). */
  fileBytes: number;
  /** The pages in use; free pages inside the file are reused before it grows. */
  usedBytes: number;
  limitBytes: number;
  warnBytes: number;
  state: StorageState;
  /** One line for people when not 'ok'. */
  message: string | null;
}

function mb(bytes: number): string {
  return `${(bytes / 1e6).toFixed(0)} MB`;
}

/** What the user can do at the limit. */
export const AT_LIMIT_ADVICE =
  'export the sessions you want to keep (`baton export > sessions.jsonl`), then move the data directory aside or start Baton with another --data-dir (or $BATON_DATA_DIR)';

export function storageStatus(fileBytes: number, usedBytes: number, limitBytes: number): StorageStatus {
  const warnBytes = Math.floor(limitBytes * WARN_FRACTION);
  const state: StorageState = usedBytes >= limitBytes || fileBytes >= limitBytes ? 'full' : fileBytes >= warnBytes ? 'warning' : 'ok';
  const message =
    state === 'full'
      ? `the store is full: its database file is ${mb(fileBytes)}, at its limit of ${mb(limitBytes)}; writes that need more room are refused (HTTP 507). To go on recording, ${AT_LIMIT_ADVICE}`
      : state === 'warning'
        ? `the store is nearly full: its database file is ${mb(fileBytes)} of its limit of ${mb(limitBytes)}; past the limit writes are refused. Before then, ${AT_LIMIT_ADVICE}`
        : null;
  return { fileBytes, usedBytes, limitBytes, warnBytes, state, message };
}

export class StoreFullError extends BatonError {
  constructor(fileBytes: number, limitBytes: number) {
    super(
      'insufficient_storage',
      `store full: this write would grow the database file to ${mb(fileBytes)}, past its limit of ${mb(limitBytes)} (larger stores cannot be snapshotted and reloaded safely; docs/storage.md). Nothing of it was written. To go on recording, ${AT_LIMIT_ADVICE}`,
    );
  }
}

function pragma(db: Database, name: string): number {
  return Number(db.exec(`PRAGMA ${name}`)[0].values[0][0]);
}

/**
 * Measures the database around each write and refuses one that would take the file past the limit.
 * A write that frees pages (or reuses free ones) is never refused, so a full store can still shrink.
 */
export class SizeGuard {
  private pageSize = 0;
  private fileBytes = 0;
  private usedBytes = 0;
  /** The last write that needed more room was refused: the store is full until one fits again. */
  private refused = false;
  private told: StorageState = 'ok';

  constructor(
    readonly limitBytes: number,
    private readonly onWarn: (message: string) => void,
  ) {}

  get status(): StorageStatus {
    return storageStatus(this.fileBytes, this.refused ? Math.max(this.usedBytes, this.limitBytes) : this.usedBytes, this.limitBytes);
  }

  /** Measures the file as it stands (at open, and after each write that grew it). */
  measure(db: Database): StorageStatus {
    this.pageSize ||= pragma(db, 'page_size');
    const pages = pragma(db, 'page_count');
    this.fileBytes = pages * this.pageSize;
    this.usedBytes = (pages - pragma(db, 'freelist_count')) * this.pageSize;
    return this.tell();
  }

  /** Logs once each time the state gets worse (ok, warning, full), so the user hears before the limit. */
  private tell(): StorageStatus {
    const status = this.status;
    const rank = { ok: 0, warning: 1, full: 2 };
    if (rank[status.state] > rank[this.told]) this.onWarn(status.message!);
    if (rank[status.state] > rank[this.told] || status.state === 'ok') this.told = status.state;
    return status;
  }

  /** Whether a write's growth has to be judged page by page (the file is near or past the warning). */
  private get close(): boolean {
    return this.fileBytes >= Math.floor(this.limitBytes * WARN_FRACTION);
  }

  /** Before a write: the pages in use, when they matter (near the limit); else null. */
  before(db: Database): number | null {
    if (!this.close) return null;
    this.pageSize ||= pragma(db, 'page_size');
    return (pragma(db, 'page_count') - pragma(db, 'freelist_count')) * this.pageSize;
  }

  /** After a write (still inside its savepoint): throws StoreFullError when it took the file past the limit with pages it added. */
  after(db: Database, usedBefore: number | null): void {
    this.pageSize ||= pragma(db, 'page_size');
    const fileBytes = pragma(db, 'page_count') * this.pageSize;
    if (fileBytes > this.limitBytes) {
      const usedAfter = (pragma(db, 'page_count') - pragma(db, 'freelist_count')) * this.pageSize;
      if (usedBefore === null || usedAfter > usedBefore) {
        this.refused = true;
        this.tell();
        throw new StoreFullError(fileBytes, this.limitBytes);
      }
    }
    this.refused = false;
    if (this.close || fileBytes >= Math.floor(this.limitBytes * WARN_FRACTION)) {
      this.measure(db);
    } else if (fileBytes !== this.fileBytes) {
      // Far from the limit one pragma per write is enough: the free pages are counted again at the
      // next full measure (near the limit, after indexing catches up).
      this.usedBytes += fileBytes - this.fileBytes;
      this.fileBytes = fileBytes;
    }
  }
}
