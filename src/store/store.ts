// The store as the rest of Baton sees it: an async, typed client of the store worker.
// Opening takes the data directory's lock (one writer per directory) before anything is read.

import { EventEmitter } from 'node:events';
import type { Worker } from 'node:worker_threads';
import { BatonError } from '../core/errors';
import type { WriteArgs, WriteName, WriteResult } from './writeCommands';
import type { OpenReport, Reply, SessionChange } from './engine/engine';
import { DataDirLock } from '../node/lock';
import { layout, type Layout } from '../node/paths';
import { DataLossError, type MissingRange } from './engine/recovery';
import type { ReadArgs, ReadName, ReadResult } from './reads';
import { spawnWorker } from './engine/workerScript';
import { storeLimitBytes, type StorageStatus } from './engine/sizeLimit';
import { claimGuardFor } from './claimGuard';

export interface StoreOptions {
  dataDir: string;
  /** Who holds the lock, as shown to a second process ("baton serve", "VS Code window"). */
  holder?: string;
  /** Journal size that triggers a background snapshot. */
  compactBytes?: number;
  /** Open even when acknowledged writes are missing; without it Store.open rejects with DataLossError and changes nothing. */
  acceptLoss?: boolean;
  /** Writes that would grow the database file past this are refused (HTTP 507); default storeLimitBytes(). */
  limitBytes?: number;
}

export interface StoreStatus {
  seq: number;
  snapshotSeq: number;
  journalBytes: number;
  compacting: boolean;
  failed: string | null;
  /** The database file against its size limit (sizeLimit.ts). */
  storage: StorageStatus;
  report: OpenReport;
}

/** What the API's services need of a store: reads and writes (a read-only view answers writes with an error). */
export type StoreAccess = Pick<Store, 'read' | 'write'>;

export class Store extends EventEmitter {
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve(value: unknown): void; reject(err: Error): void }>();
  private closed: Promise<void> | null = null;
  private dead: Error | null = null;

  private constructor(
    private readonly worker: Worker,
    readonly lock: DataDirLock,
    readonly paths: Layout,
    readonly report: OpenReport,
    /** The database file against its size limit when the store opened (printed at startup when not 'ok'). */
    readonly storageAtOpen: StorageStatus,
  ) {
    super();
    worker.on('message', (msg: { type: string } & Reply & { keys?: SessionChange[]; level?: string; message?: string }) => {
      if (msg.type === 'reply') {
        const waiter = this.waiting.get(msg.id);
        this.waiting.delete(msg.id);
        if (!waiter) return;
        if (msg.ok) waiter.resolve(msg.value);
        else waiter.reject(new BatonError((msg.error?.code ?? 'internal') as never, msg.error?.message ?? 'store error'));
      } else if (msg.type === 'change') this.emit('change', msg.keys);
      else if (msg.type === 'log') this.emit('log', msg.level, msg.message);
    });
    worker.on('error', (err) => this.fail(err));
    worker.on('exit', (code) => this.fail(new Error(`store worker exited (${code})`)));
  }

  static async open(options: StoreOptions): Promise<Store> {
    const paths = layout(options.dataDir);
    const lock = DataDirLock.acquire(paths.lock, options.holder ?? `baton (pid ${process.pid})`);
    try {
      const worker = spawnWorker('storeWorker', {
        dataDir: options.dataDir,
        compactBytes: options.compactBytes ?? 64 * 1024 * 1024,
        acceptLoss: options.acceptLoss ?? false,
        limitBytes: storeLimitBytes(options.limitBytes),
      });
      const { report, storage } = await new Promise<{ report: OpenReport; storage: StorageStatus }>((resolve, reject) => {
        const onMessage = (msg: { type: string; report?: OpenReport; storage?: StorageStatus; error?: string; missing?: MissingRange[] }) => {
          if (msg.type === 'ready') {
            worker.off('message', onMessage);
            resolve({ report: msg.report!, storage: msg.storage! });
          } else if (msg.type === 'failed') {
            worker.off('message', onMessage);
            void worker.terminate();
            reject(msg.missing ? new DataLossError(options.dataDir, msg.missing) : new Error(`could not open the store in ${options.dataDir}: ${msg.error}`));
          }
        };
        worker.on('message', onMessage);
        worker.once('error', reject);
      });
      return new Store(worker, lock, paths, report, storage);
    } catch (err) {
      lock.release();
      throw err;
    }
  }

  private fail(err: Error): void {
    if (this.closed) return;
    this.dead = err;
    for (const waiter of this.waiting.values()) waiter.reject(new BatonError('unavailable', err.message));
    this.waiting.clear();
    this.emit('error', err);
  }

  private call<T>(message: Record<string, unknown>): Promise<T> {
    if (this.dead) return Promise.reject(new BatonError('unavailable', this.dead.message));
    if (this.closed) return Promise.reject(new BatonError('unavailable', 'the store is closed'));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.worker.postMessage({ ...message, id });
    });
  }

  /**
   * Resolves once the write is in the fsync'd journal and applied. Inside a write route, the
   * route's claim guard goes along and is checked in the same step (claimGuard.ts).
   */
  write<N extends WriteName>(name: N, args: WriteArgs<N>): Promise<WriteResult<N>> {
    return this.call({ kind: 'write', name, args, guard: claimGuardFor('write') });
  }

  read<N extends ReadName>(name: N, args: ReadArgs<N>): Promise<ReadResult<N>> {
    return this.call({ kind: 'read', name, args, guard: claimGuardFor('read') });
  }

  /** Seals the journal and writes a snapshot in the background; resolves when it is on disk. */
  snapshot(): Promise<StoreStatus> {
    return this.call({ kind: 'compact' });
  }

  status(): Promise<StoreStatus> {
    return this.call({ kind: 'status' });
  }

  /** Flushes a final snapshot, stops the worker and releases the lock. Safe to call twice. */
  close(): Promise<void> {
    this.closed ??= (async () => {
      if (!this.dead) {
        await new Promise<void>((resolve) => {
          const onMessage = (msg: { type: string }) => {
            if (msg.type === 'closed') {
              this.worker.off('message', onMessage);
              resolve();
            }
          };
          this.worker.on('message', onMessage);
          this.worker.postMessage({ kind: 'close' });
        });
      }
      await this.worker.terminate();
      this.lock.release();
    })();
    return this.closed;
  }
}
