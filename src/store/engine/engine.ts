// The database engine that runs inside the store worker: opens (newest valid snapshot + journal
// replay), executes batches of writes with group commit (apply in a transaction, append the
// journal, fdatasync, commit, then acknowledge), answers reads, and hands compaction to a
// separate worker so that export() never blocks the thread that serves hooks.

import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Database } from 'sql.js';
import { BatonError, errorCode } from '../../core/errors';
import type { CommandContext } from '../commands';
import { checkRequestGuard, WRITE_COMMANDS, type WriteName } from '../writeCommands';
import { encodeFrame, JournalWriter, listJournalFiles } from './journal';
import { loadDatabase, settleRecovery, type OpenReport } from './load';
import type { Layout } from '../../node/paths';
import { READ_QUERIES, type ReadName } from '../reads';
import { accountedSeqs, applyRecord, setAppliedSeq, settleAccountedSeqs, type StoreRecord } from '../records';
import { DataLossError, describeRange } from './recovery';
import { moveToQuarantine } from './quarantine';
import { forgetStatements } from '../db';
import { listSnapshots, UnusableBaseError, verifySnapshotFile, writePatchedSnapshot, writeSnapshot, writeSnapshotPaced, type PageSource } from './snapshot';
import { SizeGuard, storeLimitBytes } from './sizeLimit';
import { loadSqlJs } from './sqljs';
import { removeGradually } from '../../node/fsync';
import { fileImage, fileSize, trackerOf } from './roomyDatabase';
import { catchUpIndex } from '../searchIndex';
import type { SessionChange } from '../../core/agents';

export { loadDatabase, registerFunctions, type OpenReport } from './load';

export interface Request {
  id: number;
  kind: 'write' | 'read';
  name: string;
  args: unknown;
  /** A guard the domain checks right before the request, in the same step (writeCommands.ts checkRequestGuard); opaque here. */
  guard?: unknown;
}

export interface Reply {
  id: number;
  ok: boolean;
  value?: unknown;
  error?: { message: string; code: string };
}

/** Files no longer needed: all but the two newest snapshots, journal files wholly before the older one, stale temp files. */
export function obsoleteFiles(layout: Layout, currentJournalFirstSeq: number): string[] {
  const out: string[] = [];
  const snaps = listSnapshots(layout.snapshotDir);
  out.push(...snaps.slice(2).map((old) => old.path));
  const floor = snaps.length >= 2 ? snaps[1].seq : snaps.length === 1 ? 0 : -1;
  if (floor >= 0) {
    const files = listJournalFiles(layout.journalDir);
    for (let i = 0; i < files.length; i++) {
      const next = files[i + 1];
      if (!next || files[i].firstSeq >= currentJournalFirstSeq) break;
      if (next.firstSeq - 1 <= floor) out.push(files[i].path);
    }
  }
  for (const name of fs.existsSync(layout.snapshotDir) ? fs.readdirSync(layout.snapshotDir) : []) {
    if (name.endsWith('.tmp')) out.push(path.join(layout.snapshotDir, name));
  }
  return out;
}

/** Keeps the two newest snapshots and the journal files needed to replay from the older of them. */
export function prune(layout: Layout, currentJournalFirstSeq: number): void {
  for (const file of obsoleteFiles(layout, currentJournalFirstSeq)) fs.rmSync(file, { force: true });
}

/** prune for a running store: from the compactor, a slice at a time (see removeGradually). */
export async function pruneGradually(layout: Layout, currentJournalFirstSeq: number): Promise<void> {
  for (const file of obsoleteFiles(layout, currentJournalFirstSeq)) await removeGradually(file);
}

export type { SessionChange };

/**
 * A snapshot to be written off the store thread. Normally ('patch') the previous snapshot with the
 * pages written since laid over it, window by window (`overlay`) as the writer gets to them. When
 * the writes to the file cannot be tracked (it outgrew its room), the compactor rebuilds the state
 * from the previous snapshot and the journal instead ('replay').
 */
export type CompactionJob =
  | { kind: 'patch'; seq: number; base: string | null; size: number; overlay(fromPage: number, toPage: number, into: Uint8Array): void }
  | { kind: 'replay'; seq: number };

export interface EngineOptions {
  /** Rotate the journal and compact it into a snapshot once it holds this many bytes. */
  compactBytes: number;
  /** Sessions touched by a committed batch, as agent + key (keys are unique per agent only). */
  onChange?(changes: SessionChange[]): void;
  onLog?(level: 'info' | 'warn' | 'error', message: string): void;
  /** Writes the job's snapshot; resolves with its path. Rejects with UnusableBaseError when the base snapshot could not be used. */
  startCompaction?(job: CompactionJob): Promise<string>;
  /** Open even when acknowledged writes are missing (see DataLossError); without it such an open throws and changes nothing. */
  acceptLoss?: boolean;
  /** Writes that would grow the database file past this many bytes are refused; default storeLimitBytes() (sizeLimit.ts). */
  limitBytes?: number;
}

export class Engine {
  private journal: JournalWriter;
  private seq: number;
  private snapshotSeq: number;
  /** The snapshot the file's tracked pages are changes to: the one opened, then each one written. */
  private base: string | null;
  private compacting: Promise<void> | null = null;
  private failed: Error | null = null;
  private readonly guard: SizeGuard;

  private constructor(
    private readonly db: Database,
    private readonly layout: Layout,
    readonly report: OpenReport,
    private readonly options: EngineOptions,
  ) {
    this.seq = report.appliedSeq;
    this.snapshotSeq = report.snapshotSeq;
    this.base = report.snapshot;
    this.journal = new JournalWriter(layout.journalDir, this.seq + 1);
    this.guard = new SizeGuard(storeLimitBytes(options.limitBytes), (message) => options.onLog?.('warn', message));
  }

  static async open(layout: Layout, options: EngineOptions): Promise<Engine> {
    fs.mkdirSync(layout.dataDir, { recursive: true, mode: 0o700 });
    const SQL = await loadSqlJs();
    const { db, report } = loadDatabase(SQL, layout);
    if (report.missing.length > 0 && !options.acceptLoss) {
      db.close();
      throw new DataLossError(layout.dataDir, report.missing);
    }
    settleRecovery(layout, report);
    // The writes given up are accounted for by the accepted loss (and named in its events).
    if (report.missing.length > 0) settleAccountedSeqs(db, report.appliedSeq);
    // After a skipped snapshot or an accepted loss, a snapshot of what was recovered restores two
    // generations, and the next open no longer meets the gap.
    let fresh: string | null = null;
    let verified = true;
    if (report.appliedSeq > 0 && (report.skippedSnapshots.length > 0 || report.missing.length > 0)) {
      catchUpIndex(db);
      forgetStatements(db);
      fresh = writeVerifiedSnapshot(layout, report.appliedSeq, fileImage(db), (message) => report.events.push({ kind: 'snapshot-failed', message }));
      verified = fresh !== null;
      if (fresh)
        report.events.push({ kind: 'snapshot-written', file: fresh, message: `snapshot ${fresh} written from the recovered state (seq ${report.appliedSeq})` });
    }
    const engine = new Engine(db, layout, report, options);
    if (fresh) {
      engine.snapshotSeq = report.appliedSeq;
      engine.base = fresh;
    }
    if (verified) prune(layout, engine.journal.firstSeq);
    for (const event of report.events) options.onLog?.('warn', event.message);
    engine.guard.measure(db); // warns now when the store is already near its limit
    // A long journal left by a crash is folded into a snapshot now, so the next open is fast again.
    if (report.replayedBytes >= options.compactBytes && report.replayedFrames > 0) void engine.compact();
    return engine;
  }

  /**
   * Runs a queue of requests in order; consecutive writes share one transaction and one journal
   * flush (group commit). Replies go to `send` only once everything they could have seen is on
   * disk: a write is acknowledged when durable, and a read never shows what a crash could still
   * take back. The flush runs off this thread, so the next requests execute meanwhile. Resolves
   * once the replies are sent.
   */
  execute(requests: Request[], send: (reply: Reply) => void): Promise<void> {
    const replies: Reply[] = [];
    const changes: SessionChange[] = [];
    let pending: Array<{ id: number; value: unknown; frame: Buffer | null; keys: SessionChange[] }> = [];
    const flush = () => {
      if (pending.length === 0) return;
      const batch = pending;
      pending = [];
      const frames = batch.map((p) => p.frame).filter((f): f is Buffer => f !== null);
      const before = this.journal.bytes;
      try {
        if (frames.length > 0) {
          setAppliedSeq(this.db, this.seq, frames.length);
          this.journal.append(frames);
        }
        this.db.exec('COMMIT');
      } catch (err) {
        this.db.exec('ROLLBACK');
        this.seq -= frames.length;
        this.recoverJournal(before, err as Error);
        for (const p of batch) replies.push({ id: p.id, ok: false, error: { message: `write not durable: ${(err as Error).message}`, code: 'unavailable' } });
        return;
      }
      for (const p of batch) replies.push({ id: p.id, ok: true, value: p.value });
      changes.push(...batch.flatMap((p) => p.keys));
    };

    for (const request of requests) {
      if (request.kind === 'read') {
        flush();
        replies.push(this.read(request));
        continue;
      }
      if (this.failed) {
        replies.push({ id: request.id, ok: false, error: { message: `store unavailable: ${this.failed.message}`, code: 'unavailable' } });
        continue;
      }
      if (pending.length === 0) this.db.exec('BEGIN');
      const outcome = this.write(request);
      if ('error' in outcome) {
        replies.push({ id: request.id, ok: false, error: outcome.error });
        if (pending.length === 0) this.db.exec('ROLLBACK');
        continue;
      }
      pending.push(outcome);
    }
    flush();
    // Taken before a compaction below rotates the journal: these replies wait for this file.
    // Flushed on this thread unless a snapshot is being written (see JournalWriter.sync).
    const durable = this.journal.sync(!this.compacting);
    if (!this.compacting && this.journal.bytes >= this.options.compactBytes && this.options.startCompaction) void this.compact();
    return durable.then(
      () => {
        for (const reply of replies) send(reply);
        const seen = new Map(changes.map((c) => [`${c.agentId}\u0000${c.key}`, c]));
        if (seen.size > 0) this.options.onChange?.([...seen.values()]);
      },
      (err: Error) => {
        // An fdatasync that fails leaves the file's state unknown (the kernel may have dropped the
        // pages): stop taking writes rather than acknowledge anything more.
        this.failed ??= new Error(`journal flush failed: ${err.message}`);
        this.options.onLog?.('error', this.failed.message);
        for (const reply of replies)
          send(reply.ok ? { id: reply.id, ok: false, error: { message: `not durable: ${err.message}`, code: 'unavailable' } } : reply);
      },
    );
  }

  private write(request: Request): { id: number; value: unknown; frame: Buffer | null; keys: SessionChange[] } | { error: { message: string; code: string } } {
    const command = WRITE_COMMANDS[request.name as WriteName] as ((ctx: CommandContext, args: unknown) => unknown) | undefined;
    if (!command) return { error: { message: `unknown write ${request.name}`, code: 'invalid_request' } };
    const records: StoreRecord[] = [];
    const at = new Date().toISOString();
    const ctx: CommandContext = {
      db: this.db,
      emit: (rec) => {
        applyRecord(this.db, rec);
        records.push(rec);
      },
      now: () => at,
      newId: () => crypto.randomUUID(),
    };
    const usedBefore = this.guard.before(this.db);
    this.db.exec('SAVEPOINT command');
    try {
      if (request.guard !== undefined) checkRequestGuard(this.db, request.guard, at);
      const value = command(ctx, request.args);
      // Past the limit a write is undone whole, before anything of it reaches the journal.
      if (records.length > 0) this.guard.after(this.db, usedBefore);
      this.db.exec('RELEASE command');
      if (records.length === 0) return { id: request.id, value, frame: null, keys: [] };
      this.seq += 1;
      const keys = records.flatMap((r) => ('key' in r && 'agentId' in r ? [{ agentId: r.agentId, key: r.key }] : []));
      return { id: request.id, value, frame: encodeFrame({ seq: this.seq, records }), keys };
    } catch (err) {
      this.db.exec('ROLLBACK TO command');
      this.db.exec('RELEASE command');
      return {
        error: {
          message: (err as Error).message,
          code: errorCode(err) === 'internal' && /constraint|CHECK/i.test((err as Error).message) ? 'invalid_request' : errorCode(err),
        },
      };
    }
  }

  private read(request: Request): Reply {
    const query = READ_QUERIES[request.name as ReadName] as ((db: Database, args: unknown) => unknown) | undefined;
    if (!query) return { id: request.id, ok: false, error: { message: `unknown read ${request.name}`, code: 'invalid_request' } };
    try {
      if (request.guard !== undefined) checkRequestGuard(this.db, request.guard, new Date().toISOString());
      return { id: request.id, ok: true, value: query(this.db, request.args ?? {}) };
    } catch (err) {
      return { id: request.id, ok: false, error: { message: (err as Error).message, code: errorCode(err) } };
    }
  }

  /**
   * Indexes a slice of the turns not yet in the full-text index (up to `maxTurns`) when more than
   * `backlog` wait; returns whether any still wait. The store thread calls it with no backlog when
   * idle, and with a bound after each batch under sustained writes, so a search never has to catch
   * up more than about that many.
   */
  indexSlice(backlog: number, maxTurns: number): boolean {
    if (this.failed) return false;
    try {
      const waiting = catchUpIndex(this.db, maxTurns, backlog);
      // The index grows the file outside any write (after a restart, a whole journal's turns at
      // once): the size the status reports is measured again once it has caught up.
      if (waiting === 0) this.guard.measure(this.db);
      return waiting > 0;
    } catch (err) {
      this.options.onLog?.('error', `indexing failed: ${(err as Error).message}`);
      return false;
    }
  }

  /** After a failed append, cut the journal back so a partial frame can never hide later ones. */
  private recoverJournal(goodBytes: number, cause: Error): void {
    try {
      fs.truncateSync(this.journal.path, goodBytes);
      this.options.onLog?.('error', `journal append failed (${cause.message}); truncated back to ${goodBytes} bytes`);
    } catch (err) {
      this.failed = new Error(`journal unusable after ${cause.message}: ${(err as Error).message}`);
      this.options.onLog?.('error', this.failed.message);
    }
  }

  /** Seals the current journal file and compacts everything up to now into a new snapshot, off this thread. */
  compact(): Promise<void> {
    if (this.compacting) return this.compacting;
    if (this.seq === this.snapshotSeq || !this.options.startCompaction) return Promise.resolve();
    const upto = this.seq;
    const sealed = this.journal;
    sealed.close();
    this.journal = new JournalWriter(this.layout.journalDir, upto + 1, sealed);
    const tracker = trackerOf(this.db);
    let job: CompactionJob = { kind: 'replay', seq: upto };
    if (tracker) {
      // Between batches, outside any transaction: the file holds exactly the state at `upto`.
      const size = fileSize(this.db);
      if (this.base && !fs.existsSync(this.base)) this.base = null;
      if (!this.base) tracker.markDirty(size); // nothing to patch: every page goes into the snapshot
      tracker.startCapture(size);
      job = { kind: 'patch', seq: upto, base: this.base, size, overlay: (fromPage, toPage, into) => tracker.overlay(fromPage, toPage, into) };
    }
    this.compacting = this.options
      .startCompaction(job)
      .then((file) => {
        // The compactor has already removed the files this snapshot made obsolete.
        tracker?.finishCapture(true);
        this.snapshotSeq = upto;
        this.base = file;
        this.options.onLog?.('info', `snapshot written at seq ${upto}`);
      })
      .catch((err: Error) => {
        tracker?.finishCapture(false);
        if (err instanceof UnusableBaseError) {
          this.quarantineDamagedBase(err);
          this.base = null; // the next snapshot is written whole
        }
        this.options.onLog?.('error', `compaction failed: ${err.message}`);
      })
      .finally(() => {
        this.compacting = null;
      });
    return this.compacting;
  }

  /**
   * A base snapshot that no longer matches its checksum must not stay on as the fallback generation
   * (pruning would keep it and delete the valid one before it): it goes into quarantine.
   */
  private quarantineDamagedBase(err: Error): void {
    if (!this.base || !fs.existsSync(this.base) || !/no longer matches its checksum|too short|no trailer|length mismatch|shorter than/.test(err.message))
      return;
    try {
      const moved = moveToQuarantine(this.layout.dataDir, this.base);
      this.options.onLog?.('warn', `damaged snapshot ${this.base} moved to ${moved}`);
    } catch (moveErr) {
      this.options.onLog?.('error', `damaged snapshot ${this.base} could not be moved to quarantine: ${(moveErr as Error).message}`);
    }
  }

  get status() {
    return {
      seq: this.seq,
      snapshotSeq: this.snapshotSeq,
      journalBytes: this.journal.bytes,
      compacting: this.compacting !== null,
      failed: this.failed?.message ?? null,
      storage: this.guard.status,
    };
  }

  /** Final snapshot straight from the live database: at shutdown a pause no longer matters. */
  async close(): Promise<void> {
    if (this.compacting) await this.compacting;
    await this.journal.sync().catch(() => undefined); // a failed flush is already reported; the snapshot below still saves the state
    this.journal.close();
    if (this.seq > this.snapshotSeq && !this.failed) {
      catchUpIndex(this.db);
      forgetStatements(this.db);
      // Unverified, it replaces nothing: the journal stays, and the next open replays it.
      if (writeVerifiedSnapshot(this.layout, this.seq, fileImage(this.db), (message) => this.options.onLog?.('error', message))) {
        this.snapshotSeq = this.seq;
        prune(this.layout, this.seq + 1);
      }
    }
    forgetStatements(this.db);
    this.db.close();
  }
}

/**
 * How the compactor writes: 512 KB between fdatasyncs, with a breath between chunks. A journal
 * fdatasync issued meanwhile waits for the chunk in flight: with 4 MB chunks the writes answered
 * during a snapshot had p99 about 20 ms, with 512 KB about 13 ms (2,000 sessions, writes back to
 * back), while a snapshot took twice as long (4–5 s instead of 2–3). Snapshots are rare; hooks are not.
 */
export const COMPACTION_PACE = { chunkBytes: 512 << 10, pauseMs: 2 };

/**
 * Compaction when the file's pages are not tracked, run in its own worker: load the newest
 * snapshot, replay up to `uptoSeq`, export, write.
 */
export async function compactByReplay(layout: Layout, uptoSeq: number): Promise<string> {
  const SQL = await loadSqlJs();
  const { db, report } = loadDatabase(SQL, layout, uptoSeq);
  let image: Uint8Array;
  try {
    if (report.appliedSeq !== uptoSeq) throw new BatonError('internal', `journal ends at ${report.appliedSeq}, expected ${uptoSeq}`);
    // A state rebuilt around damage is not the store's state: writing it would replace the journal
    // with a snapshot missing writes. The store thread's next open reports the damage instead.
    const problem = replayProblem(report, accountedSeqs(db));
    if (problem) throw new BatonError('internal', `no snapshot written at seq ${uptoSeq}: ${problem}`);
    catchUpIndex(db); // a snapshot carries the complete index
    forgetStatements(db);
    image = fileImage(db);
  } finally {
    // Closed before the slow write, so only the image stays in memory meanwhile.
    forgetStatements(db);
    db.close();
  }
  const file = await writeSnapshotPaced(layout.snapshotDir, uptoSeq, image, COMPACTION_PACE);
  verifyOrQuarantine(layout, file, { seq: uptoSeq, size: image.length });
  // The store rotated its journal to uptoSeq + 1 before starting this compaction.
  await pruneGradually(layout, uptoSeq + 1);
  return file;
}

/**
 * Compaction from the store thread's captured pages, run in its own worker: patch the base
 * snapshot, write. `window` (COMPACTION_PACE.chunkBytes long) is the one buffer it goes through.
 */
export async function compactByPatch(
  layout: Layout,
  job: { seq: number; base: string | null; size: number },
  source: PageSource,
  window: Uint8Array,
): Promise<string> {
  const file = await writePatchedSnapshot(layout.snapshotDir, job.seq, job.base, job.size, source, COMPACTION_PACE, window);
  verifyOrQuarantine(layout, file, { seq: job.seq, size: job.size }, window);
  await pruneGradually(layout, job.seq + 1);
  return file;
}

/** Why a state loaded for a compaction must not become a snapshot, or null. */
function replayProblem(report: OpenReport, accounted: number | null): string | null {
  if (report.skippedSnapshots.length > 0) return `snapshot ${report.skippedSnapshots.map((s) => path.basename(s.file)).join(' and ')} could not be used`;
  if (report.missing.length > 0) return report.missing.map((m) => `${describeRange(m)} missing (${m.cause})`).join('; ');
  if (accounted !== null && accounted !== report.appliedSeq) return `the state accounts for ${accounted} of ${report.appliedSeq} writes`;
  return null;
}

/**
 * Reads a snapshot just written back from disk and checks it (verifySnapshotFile). One that fails
 * goes into quarantine, so it can neither be loaded nor make the journal it should cover obsolete,
 * and the compaction fails.
 */
function verifyOrQuarantine(layout: Layout, file: string, expect: { seq: number; size: number }, window?: Uint8Array): void {
  try {
    verifySnapshotFile(file, expect, window);
  } catch (err) {
    const moved = fs.existsSync(file) ? moveToQuarantine(layout.dataDir, file) : null;
    throw new Error(
      `snapshot ${file} failed its check after writing (${(err as Error).message.replace(`${file}: `, '')})${moved ? `; moved to ${moved}` : ''}; the journal it covers is kept`,
      { cause: err },
    );
  }
}

/** writeSnapshot, then verifyOrQuarantine; null (after telling `onFailure`) when the snapshot did not verify. */
export function writeVerifiedSnapshot(layout: Layout, seq: number, image: Uint8Array, onFailure: (message: string) => void): string | null {
  const file = writeSnapshot(layout.snapshotDir, seq, image);
  try {
    verifyOrQuarantine(layout, file, { seq, size: image.length });
    return file;
  } catch (err) {
    onFailure((err as Error).message);
    return null;
  }
}
