// Background jobs in the store (the `jobs` table, migration 7): work a route queues and answers
// for at once (a checkpoint extraction, a session summary), done later by the server's job runner
// (src/server/jobs.ts). A queued job is journalled like every write, so it survives a crash or a
// restart and is resumed when the next server starts (docs/memory.md, "Background jobs").

import type { Database } from 'sql.js';
import { BatonError } from '../core/errors';
import type { Scope } from '../core/agents';
import { all, one, run } from './db';

export type JobStatus = 'pending' | 'running' | 'completed' | 'failed';

/** The journal records of jobs (part of records.ts's StoreRecord). */
export type JobRecord =
  | {
      t: 'job';
      id: string;
      agentId: string;
      kind: string;
      sessionKey: string | null;
      payload: string;
      throughSeq: number | null;
      at: string;
    }
  | { t: 'jobSet'; id: string; status: JobStatus; result: string | null; error: string | null; started: boolean; at: string };

export function applyJobRecord(db: Database, rec: JobRecord): void {
  if (rec.t === 'job') {
    run(
      db,
      `INSERT INTO jobs (id, agent_id, kind, session_key, status, payload, through_seq, attempts, created_at, updated_at)
       VALUES (?, ?, ?, ?, 'pending', ?, ?, 0, ?, ?)`,
      [rec.id, rec.agentId, rec.kind, rec.sessionKey, rec.payload, rec.throughSeq, rec.at, rec.at],
    );
    return;
  }
  const finished = rec.status === 'completed' || rec.status === 'failed';
  run(
    db,
    `UPDATE jobs SET status = ?, result = COALESCE(?, result), error = ?, updated_at = ?,
       attempts = attempts + ?, started_at = CASE WHEN ? THEN ? ELSE started_at END, finished_at = CASE WHEN ? THEN ? ELSE finished_at END
     WHERE id = ?`,
    [rec.status, rec.result, rec.error, rec.at, rec.started ? 1 : 0, rec.started ? 1 : 0, rec.at, finished ? 1 : 0, rec.at, rec.id],
  );
}

/** What a command needs (a CommandContext of commands.ts fits). */
export interface JobContext {
  db: Database;
  emit(record: JobRecord): void;
  now(): string;
  newId(): string;
}

export interface EnqueueJobArgs {
  agentId: string;
  kind: string;
  sessionKey?: string | null;
  payload: Record<string, unknown>;
  /** The last turn the job covers (checkpoint jobs). */
  throughSeq?: number;
  /**
   * Queue only if the session's cursor for this kind is still this turn (the newest checkpoint's,
   * or a queued job's): a second caller who saw the same cursor gets `queued: false` instead of a
   * second job over the same turns.
   */
  expectCursor?: number;
}

export function enqueueJob(ctx: JobContext, args: EnqueueJobArgs): { id: string | null; queued: boolean } {
  if (args.expectCursor !== undefined && args.sessionKey) {
    if (jobCursor(ctx.db, { agentId: args.agentId, key: args.sessionKey, kind: args.kind }) !== args.expectCursor) return { id: null, queued: false };
  }
  const id = ctx.newId();
  ctx.emit({
    t: 'job',
    id,
    agentId: args.agentId,
    kind: args.kind,
    sessionKey: args.sessionKey ?? null,
    payload: JSON.stringify(args.payload),
    throughSeq: args.throughSeq ?? null,
    at: ctx.now(),
  });
  return { id, queued: true };
}

/** Moves a job on: running (one more attempt), completed with a result, or failed with an error. */
export function setJob(ctx: JobContext, args: { id: string; status: JobStatus; result?: unknown; error?: string }): { ok: true } {
  if (!one(ctx.db, 'SELECT id FROM jobs WHERE id = ?', [args.id])) throw new BatonError('not_found', `job ${args.id} not found`);
  ctx.emit({
    t: 'jobSet',
    id: args.id,
    status: args.status,
    result: args.result === undefined ? null : JSON.stringify(args.result),
    error: args.error ?? null,
    started: args.status === 'running',
    at: ctx.now(),
  });
  return { ok: true };
}

/**
 * The turn a session's checkpoints have covered: the newest checkpoint's extraction cursor, or
 * the last turn of a job of `kind` still queued or running for it, whichever is further.
 */
export function jobCursor(db: Database, a: { agentId: string; key: string; kind: string }): number {
  const checkpoint = one<{ c: number | null }>(
    db,
    `SELECT c.extraction_cursor AS c FROM checkpoints c JOIN sessions s ON s.id = c.session_id
     WHERE s.agent_id = ? AND s.session_key = ? ORDER BY c.id DESC LIMIT 1`,
    [a.agentId, a.key],
  );
  const queued = one<{ c: number | null }>(
    db,
    "SELECT MAX(through_seq) AS c FROM jobs WHERE agent_id = ? AND session_key = ? AND kind = ? AND status IN ('pending', 'running')",
    [a.agentId, a.key, a.kind],
  );
  return Math.max(Number(checkpoint?.c ?? 0), Number(queued?.c ?? 0));
}

interface JobRow {
  id: string;
  agent_id: string;
  kind: string;
  session_key: string | null;
  status: JobStatus;
  payload: string;
  result: string | null;
  error: string | null;
  attempts: number;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  updated_at: string;
}

function toJob(row: JobRow) {
  return {
    id: row.id,
    agentId: row.agent_id,
    kind: row.kind,
    sessionKey: row.session_key,
    status: row.status,
    payload: JSON.parse(row.payload) as Record<string, unknown>,
    result: row.result === null ? null : (JSON.parse(row.result) as unknown),
    error: row.error,
    attempts: Number(row.attempts),
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    updatedAt: row.updated_at,
  };
}
export type Job = ReturnType<typeof toJob>;

/** A job as its reader may see it: its own agent's, or any for the admin (jobs are not shared). */
export function getJob(db: Database, scope: Scope, id: string): Job | null {
  const row = one<JobRow>(db, 'SELECT * FROM jobs WHERE id = ?', [id]);
  if (!row || (scope !== 'all' && row.agent_id !== scope.agentId)) return null;
  return toJob(row);
}

/**
 * The oldest job not finished. One runner works at a time, so a job still `running` when the
 * runner asks is one a stopped or crashed server left: it is resumed.
 */
export function nextJob(db: Database): Job | null {
  const row = one<JobRow>(db, "SELECT * FROM jobs WHERE status IN ('pending', 'running') ORDER BY created_at, rowid LIMIT 1");
  return row ? toJob(row) : null;
}

/** Jobs not finished, oldest first (for tests and diagnostics). */
export function openJobs(db: Database, limit = 100): Job[] {
  return all<JobRow>(db, "SELECT * FROM jobs WHERE status IN ('pending', 'running') ORDER BY created_at, rowid LIMIT ?", [limit]).map(toJob);
}
