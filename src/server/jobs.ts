// The server's background job runner (docs/memory.md, "Background jobs"). Jobs live in the store
// (src/store/jobs.ts), so a route can answer `{queued: true, jobId}` at once and the work is done
// here, one job at a time, oldest first. Started with the server: jobs a stopped or crashed
// server left pending (or running) are resumed then. A job that fails is not retried; one that
// was interrupted is, up to MAX_ATTEMPTS times.

import * as crypto from 'node:crypto';
import { BatonError, errorClassOf } from '../core/errors';
import { silentLogger, type Logger } from '../core/logger';
import type { EnqueueJobArgs, Job } from '../store/jobs';
import type { StoreAccess } from '../store/store';
import type { SessionArtifacts } from './artifacts';
import { SUMMARY_JOB } from './artifacts';
import type { MemoryService } from './memoryService';
import { readScope, writeAgent, type Caller } from './security';

export const CHECKPOINT_JOB = 'checkpoint-extract';
/** Attempts before a job that keeps being interrupted is given up. */
export const MAX_ATTEMPTS = 3;
/** How long closing the server waits for the job in progress. */
const STOP_WAIT_MS = 10_000;

export type JobHandler = (job: Job) => Promise<unknown>;

export class JobRunner {
  private readonly handlers = new Map<string, JobHandler>();
  private loop: Promise<void> | null = null;
  private stopped = false;
  /** Set by enqueue: the runner looks again before it sleeps. */
  private poked = false;
  private wake: (() => void) | null = null;

  constructor(
    private readonly store: StoreAccess,
    private readonly logger: Logger = silentLogger,
  ) {}

  handle(kind: string, handler: JobHandler): void {
    this.handlers.set(kind, handler);
  }

  async enqueue(args: EnqueueJobArgs): Promise<{ id: string | null; queued: boolean }> {
    const queued = await this.store.write('enqueueJob', args);
    if (queued.queued) this.poke();
    return queued;
  }

  /** Starts working through the queue (once). */
  start(): void {
    this.loop ??= this.run();
  }

  /** Stops after the job in progress (waiting for it at most 10 s); an unfinished job resumes at the next start. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.poke();
    if (!this.loop) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.loop, new Promise<void>((resolve) => (timer = setTimeout(resolve, STOP_WAIT_MS)))]);
    clearTimeout(timer);
  }

  /** Looks at the queue again now (a job was queued by a write of its own, not by enqueue). */
  poke(): void {
    this.poked = true;
    this.wake?.();
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      this.poked = false;
      let job: Job | null;
      try {
        job = await this.store.read('nextJob', {});
      } catch (err) {
        this.logger.warn(`jobs: cannot read the queue (${errorClassOf(err)}); stopped`);
        return;
      }
      if (!job) {
        if (!this.poked && !this.stopped) await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = null;
        continue;
      }
      if (!(await this.runOne(job))) return;
    }
  }

  /** Runs one job to its end; false when the store can no longer be written (the runner stops). */
  private async runOne(job: Job): Promise<boolean> {
    const handler = this.handlers.get(job.kind);
    try {
      if (job.attempts >= MAX_ATTEMPTS) {
        await this.store.write('setJob', { id: job.id, status: 'failed', error: `interrupted ${job.attempts} times; given up` });
        return true;
      }
      if (!handler) {
        await this.store.write('setJob', { id: job.id, status: 'failed', error: `no handler for jobs of kind ${job.kind}` });
        return true;
      }
      await this.store.write('setJob', { id: job.id, status: 'running' });
    } catch (err) {
      this.logger.warn(`jobs: cannot update job state (${errorClassOf(err)}); stopped`);
      return false;
    }
    let outcome: { status: 'completed'; result: unknown } | { status: 'failed'; error: string };
    try {
      outcome = { status: 'completed', result: (await handler(job)) ?? null };
    } catch (err) {
      if (this.stopped) return false; // the store may be closing: leave it running, resumed next start
      outcome = { status: 'failed', error: err instanceof BatonError ? err.message : `the job failed (${errorClassOf(err)})` };
      this.logger.warn(`jobs: ${job.kind} failed (${errorClassOf(err)})`);
    }
    try {
      await this.store.write('setJob', { id: job.id, ...outcome });
    } catch (err) {
      this.logger.warn(`jobs: cannot record the end of a job (${errorClassOf(err)}); stopped`);
      return false;
    }
    return true;
  }
}

/** The jobs a server runs and the artifacts they write, wired together. */
export interface BackgroundWork {
  jobs: JobRunner;
  artifacts: SessionArtifacts;
  /** `POST /api/hooks/session-checkpoint-extract`: `{queued: true, jobId}` for a real job, or `{skipped: true}`. */
  queueCheckpoint(
    caller: Caller,
    input: { sessionKey: string; agentId?: string; project?: string },
  ): Promise<{ queued: true; jobId: string } | { skipped: true }>;
  /**
   * compaction-complete with its markdown artifact: the file is written first, then `complete`
   * (the memory side) records the summary node with compaction_path; the reply carries the path.
   */
  compaction<R extends object>(
    caller: Caller,
    input: { summary: string; harness: string; sessionKey?: string; agentId?: string; project?: string },
    complete: (compactionPath: string) => Promise<R>,
  ): Promise<R & { compaction_path: string }>;
  /** A job as its caller may see it, or null. */
  jobView(caller: Caller, id: string): Promise<ReturnType<typeof jobView> | null>;
}

export function jobView(job: Job) {
  return {
    id: job.id,
    kind: job.kind,
    status: job.status,
    agentId: job.agentId,
    sessionKey: job.sessionKey,
    result: job.result,
    error: job.error,
    attempts: job.attempts,
    createdAt: job.createdAt,
    startedAt: job.startedAt,
    finishedAt: job.finishedAt,
  };
}

export function backgroundWork(
  store: StoreAccess,
  memory: MemoryService,
  makeArtifacts: (queue: JobRunner) => SessionArtifacts,
  logger?: Logger,
): BackgroundWork {
  const jobs = new JobRunner(store, logger);
  const artifacts = makeArtifacts(jobs);
  jobs.handle(SUMMARY_JOB, (job) => artifacts.writeSummary(job));
  jobs.handle(CHECKPOINT_JOB, async (job) => {
    const p = job.payload as { fromSeq: number; throughSeq: number; project: string | null };
    // A compaction since the job was queued may already cover these turns: the cursor never goes back.
    const latest = await store.read('latestCheckpoint', { scope: { agentId: job.agentId }, key: job.sessionKey! });
    if (latest && latest.extractionCursor >= p.throughSeq) return { skipped: true, extractionCursor: latest.extractionCursor };
    return memory.writeCheckpoint({ agentId: job.agentId, key: job.sessionKey!, project: p.project, fromSeq: p.fromSeq, toSeq: p.throughSeq });
  });
  return {
    jobs,
    artifacts,
    async queueCheckpoint(caller, input) {
      const agentId = writeAgent(caller, input.agentId);
      const key = input.sessionKey;
      // Queued jobs count as covered: the cursor advances when the job is queued, not when it ends.
      const cursor = await store.read('jobCursor', { agentId, key, kind: CHECKPOINT_JOB });
      const due = await memory.checkpointDue(caller, input, cursor);
      if (!due) return { skipped: true };
      const queued = await jobs.enqueue({
        agentId: due.agentId,
        kind: CHECKPOINT_JOB,
        sessionKey: due.key,
        payload: { fromSeq: due.fromSeq, throughSeq: due.toSeq, project: due.project },
        throughSeq: due.toSeq,
        expectCursor: cursor,
      });
      // Another call queued these turns meanwhile: that job covers them.
      return queued.queued && queued.id ? { queued: true, jobId: queued.id } : { skipped: true };
    },
    async compaction(caller, input, complete) {
      const agentId = writeAgent(caller, input.agentId);
      const target = await artifacts.compactionTarget(agentId, input.sessionKey ?? null, input.harness, crypto.randomUUID());
      await artifacts.writeCompaction(agentId, target, input.summary, input.project ?? null);
      return { ...(await complete(target.compaction_path)), compaction_path: target.compaction_path };
    },
    async jobView(caller, id) {
      const job = await store.read('getJob', { scope: readScope(caller), id });
      return job ? jobView(job) : null;
    },
  };
}
