// Session lifecycle commands used by the hook endpoint: start (with lineage), touch (transcript on
// prompt submit), end. Each runs atomically in the store worker, so the runtime-path claim check
// and the write it guards cannot be split by a concurrent request. What the harnesses say about
// lineage is decided before the command (the session service, with the harness registry) and comes
// in as data: the store knows no harness (docs/architecture.md, "Layers").

import { decideLineageWith, type LineageDecision } from '../core/lineage';
import type { ExecutionMode, LineageSource, Turn } from '../core/types';
import { recordTranscript, upsertSession, type CommandContext, type RecordTranscriptArgs } from './commands';
import { DEFAULT_AGENT, requireWritableSessionRow, writableSessionRow } from './ownership';
import { one } from './db';
import { findSessionRow, inheritSources, stripSessionPrefix, type TurnPool } from './queries';
import { CLAIM_TTL_MS, claimExpiresAt } from '../core/sessionKey';
import type { SubagentSummary } from '../core/subagentDigest';
import { sessionSubagents } from './subagentQueries';
import { assertClaimFree } from './claims';
import { takeStartMemories, type StartMemories } from './memoryCommands';
import { enqueueJob } from './jobs';
import type { StartMemoryBudget } from '../core/startMemories';

export { CLAIM_TTL_MS, claimExpiresAt };

type Row = NonNullable<ReturnType<typeof findSessionRow>>;

/** Throws 409 when another runtime path holds a live claim on the session (claims.ts), at the command's time. */
function checkClaim(ctx: CommandContext, row: Row, runtimePath: string | undefined, ttlMs?: number): void {
  assertClaimFree(row, runtimePath, ctx.now(), ttlMs);
}

export interface StartSessionArgs {
  /** The agent the write acts for (ownership.ts); default: the default agent. */
  agentId?: string;
  key: string;
  harness: string;
  project?: string | null;
  explicitParent?: string | null;
  propagatedParent?: string | null;
  harnessAgentId?: string | null;
  harnessAgentType?: string | null;
  /** A sub-agent's task, from its spawn call. */
  task?: string | null;
  /**
   * The new session's parent as the harnesses' signals decide it (the session service decides,
   * registry.ts decideLineage). Absent (a command journaled without it): explicit and propagated
   * parents only.
   */
  lineage?: LineageDecision;
  executionMode?: ExecutionMode | null;
  runtimePath?: string;
  title?: string | null;
  /** 'all' when the admin token writes: its child's parent is only ever the writing agent's own row (queries.ts parentSessionRow). */
  readableAgent?: string | 'all';
  claimTtlMs?: number;
  /** When given and the session has a parent: also return what its inherited block is built from (saves a round trip). */
  inheritTailChars?: number;
  /** With inheritTailChars, for a child with a task (given now or stored before): also read the parent's turns to choose from, within these bounds. */
  inheritTurnPool?: TurnPool;
  /** When given: the memories the session is told at its start, taken in the same write (docs/memory.md). */
  startMemories?: StartMemoryBudget;
}

export interface StartSessionResult {
  sessionKey: string;
  agentId: string;
  created: boolean;
  skipped: boolean;
  bypassed: boolean;
  parentSessionKey: string | null;
  lineageSource: LineageSource | null;
  inheritSources?: ReturnType<typeof inheritSources>;
  startMemories?: StartMemories;
  /** The session's task: given now, or stored at an earlier start (a start again without one keeps choosing by it). */
  task?: string | null;
}

export function startSession(ctx: CommandContext, args: StartSessionArgs): StartSessionResult {
  const started = withStartMemories(ctx, args, startOrResume(ctx, args));
  if (args.inheritTailChars === undefined || !started.parentSessionKey || started.bypassed) return started;
  // The one parent resolver: the writer's own row first; the admin's hooks never get another agent's.
  const writer = { agentId: started.agentId, admin: args.readableAgent === 'all' };
  // The parent's turns are read for the block only when the child has a task to choose them by.
  const task = args.task ?? (started.created ? null : (findSessionRow(ctx.db, { agentId: started.agentId }, started.sessionKey)?.task ?? null));
  const sources = inheritSources(ctx.db, writer, started.parentSessionKey, args.inheritTailChars, task ? args.inheritTurnPool : undefined);
  started.task = task;
  return { ...started, inheritSources: sources && started.lineageSource === 'project-recency' ? { ...sources, inferredParent: true } : sources };
}

function withStartMemories(ctx: CommandContext, args: StartSessionArgs, started: StartSessionResult): StartSessionResult {
  if (!args.startMemories || started.bypassed) return started;
  return { ...started, startMemories: takeStartMemories(ctx, { agentId: started.agentId, key: started.sessionKey, budget: args.startMemories }) };
}

function startOrResume(ctx: CommandContext, args: StartSessionArgs): StartSessionResult {
  const key = stripSessionPrefix(args.key);
  const callerAgent = args.agentId ?? DEFAULT_AGENT;
  const existing = writableSessionRow(ctx.db, args.agentId, key);
  if (existing) {
    const base = {
      sessionKey: key,
      agentId: existing.agent_id,
      parentSessionKey: existing.parent_session_key,
      lineageSource: existing.lineage_source as LineageSource | null,
    };
    if (existing.bypassed) return { ...base, created: false, skipped: false, bypassed: true };
    checkClaim(ctx, existing, args.runtimePath, args.claimTtlMs);
    // A duplicate start (the harness re-sent it, or resumed): keep the session, refresh its claim.
    const set: Parameters<typeof upsertSession>[1] = { agentId: existing.agent_id, key, status: 'active', endedAt: null, endReason: null };
    if (args.runtimePath) Object.assign(set, { runtimePath: args.runtimePath, claimedAt: ctx.now() });
    if (!existing.parent_session_key && args.explicitParent) Object.assign(set, { parentSessionKey: args.explicitParent, lineageSource: 'explicit' });
    // A task learned after the first start (OpenCode's child sends its prompt after it was created).
    if (args.task && !existing.task) set.task = args.task;
    upsertSession(ctx, set);
    const after = findSessionRow(ctx.db, { agentId: existing.agent_id }, key)!;
    return {
      ...base,
      parentSessionKey: after.parent_session_key,
      lineageSource: after.lineage_source as LineageSource | null,
      created: false,
      skipped: true,
      bypassed: false,
    };
  }

  const decision =
    args.lineage ??
    decideLineageWith({ harness: args.harness, sessionKey: key, explicitParent: args.explicitParent, propagatedParent: args.propagatedParent }, [], undefined);
  let parentKey: string | null = null;
  let source: LineageSource | null = null;
  const agentId = callerAgent;
  if (decision.kind === 'parent') {
    parentKey = stripSessionPrefix(decision.parentKey);
    source = decision.source;
  } else if (decision.kind === 'recency') {
    // The recency fallback for Claude Code sub-agents without an explicit parent (docs/harnesses.md,
    // "Lineage"): the most recently active session of the same project, harness and agent scope
    // that has turns and is still active (never a just-started sibling with nothing to hand down; docs/inheritance.md).
    const recent = one<{ session_key: string }>(
      ctx.db,
      `SELECT session_key FROM sessions WHERE agent_id = ? AND project IS ? AND harness = ? AND session_key != ? AND turn_count > 0 AND status = 'active'
       ORDER BY updated_at DESC, id DESC LIMIT 1`,
      [callerAgent, args.project ?? null, args.harness, key],
    );
    if (recent) {
      parentKey = recent.session_key;
      source = 'project-recency';
    }
  }

  upsertSession(ctx, {
    agentId,
    key,
    harness: args.harness,
    project: args.project ?? null,
    parentSessionKey: parentKey,
    lineageSource: source,
    harnessAgentId: args.harnessAgentId ?? null,
    harnessAgentType: args.harnessAgentType ?? null,
    ...(args.task ? { task: args.task } : {}),
    executionMode: args.executionMode ?? null,
    status: 'active',
    runtimePath: args.runtimePath ?? null,
    claimedAt: args.runtimePath ? ctx.now() : null,
    title: args.title ?? null,
  });
  return { sessionKey: key, agentId, created: true, skipped: false, bypassed: false, parentSessionKey: parentKey, lineageSource: source };
}

export interface TouchSessionArgs {
  /** The agent the write acts for (ownership.ts); default: the default agent. */
  agentId?: string;
  key: string;
  harness: string;
  project?: string | null;
  runtimePath?: string;
  turns: Turn[];
  fromPayload: Turn[];
  /** See RecordTranscriptArgs: turns a file gained since its last read, and where this read stopped. */
  continuation?: RecordTranscriptArgs['continuation'];
  file?: RecordTranscriptArgs['file'];
  /** Ends the session after the write (session-end). */
  end?: {
    reason: string | null;
    status: 'ended' | 'completed' | 'failed';
    parentSessionKey?: string;
    /** Recorded with a parent set at the end: the harness's spawner signal (registry.ts reparentSource); default 'explicit'. */
    reparentSource?: LineageSource;
    /**
     * A job of this kind queued in the same write as the end: the work after a session's end done
     * in the background, which a crash cannot lose (docs/memory.md, "Background jobs").
     */
    followUpJob?: string;
  };
  claimTtlMs?: number;
}

export interface TouchSessionResult {
  sessionKey: string;
  agentId: string;
  bypassed: boolean;
  appended: number;
  turnCount: number;
  charCount: number;
  /** The file was read from a cursor the session has moved past: nothing was written (read it again in full). */
  stale?: boolean;
  /** Whether the file's cursor was kept (the next read may continue it). */
  fileKept?: boolean;
  /** The job `end.followUpJob` queued with the end. */
  followUpJobId?: string;
  /**
   * What a prompt may take once (docs/runs.md, docs/inheritance.md), read in the same write so a
   * prompt with nothing waiting (nearly all) costs no further round trip to the store.
   */
  waiting?: { deliveries: boolean; subagents: boolean };
}

/** Whether finished ASYNC_CALLBACK runs of a parent wait to be delivered. */
function deliveriesWaiting(ctx: CommandContext, key: string): boolean {
  return (
    one(
      ctx.db,
      `SELECT 1 FROM subagent_runs WHERE parent_session_key = ? AND execution_mode = 'ASYNC_CALLBACK' AND status IN ('completed', 'failed') AND callback_delivered_at IS NULL LIMIT 1`,
      [key],
    ) !== undefined
  );
}

/** Writes the transcript delta (prompt submit, session end); creates the session if the harness never started it. */
export function touchSession(ctx: CommandContext, args: TouchSessionArgs): TouchSessionResult {
  const key = stripSessionPrefix(args.key);
  const callerAgent = args.agentId ?? DEFAULT_AGENT;
  let row = writableSessionRow(ctx.db, args.agentId, key);
  if (row?.bypassed) {
    return { sessionKey: key, agentId: row.agent_id, bypassed: true, appended: 0, turnCount: row.turn_count, charCount: row.char_count };
  }
  if (row) checkClaim(ctx, row, args.runtimePath, args.claimTtlMs);
  const agentId = row?.agent_id ?? callerAgent;
  if (!row) {
    upsertSession(ctx, { agentId, key, harness: args.harness, project: args.project ?? null, status: 'active' });
    row = writableSessionRow(ctx.db, agentId, key)!;
  }
  const written = recordTranscript(
    ctx,
    { agentId, key, turns: args.turns, fromPayload: args.fromPayload, continuation: args.continuation, file: args.file },
    row,
  );
  if (written.stale) return { sessionKey: key, agentId, bypassed: false, ...written };
  const set: Parameters<typeof upsertSession>[1] = { agentId, key };
  if (!row.project && args.project) set.project = args.project;
  if (args.end) {
    Object.assign(set, { status: args.end.status, endedAt: ctx.now(), endReason: args.end.reason, runtimePath: null, claimedAt: null });
    const parent = args.end.parentSessionKey ? stripSessionPrefix(args.end.parentSessionKey) : null;
    if (parent && parent !== key && parent !== row.parent_session_key)
      Object.assign(set, { parentSessionKey: parent, lineageSource: args.end.reparentSource ?? 'explicit' });
  } else if (args.runtimePath) {
    Object.assign(set, { runtimePath: args.runtimePath, claimedAt: ctx.now(), ...(row.status !== 'active' ? { status: 'active', endedAt: null } : {}) });
  }
  if (Object.keys(set).length > 2) upsertSession(ctx, set);
  const followUp = args.end?.followUpJob ? enqueueJob(ctx, { agentId, kind: args.end.followUpJob, sessionKey: key, payload: {} }).id : null;
  const waiting = { deliveries: deliveriesWaiting(ctx, key), subagents: (row as Row & { children_due?: number }).children_due === 1 };
  return { sessionKey: key, agentId, bypassed: false, ...written, waiting, ...(followUp ? { followUpJobId: followUp } : {}) };
}

/** Ends every other active root session of a project (Claude Code sends no SessionEnd on /clear). */
export function endPreviousSessions(
  ctx: CommandContext,
  args: { agentId?: string; project: string; harness: string; exceptKey: string; reason: string },
): { ended: string[] } {
  const agentId = args.agentId ?? DEFAULT_AGENT;
  const rows = ctx.db.exec(
    `SELECT session_key FROM sessions WHERE agent_id = ? AND project = ? AND harness = ? AND status = 'active' AND parent_session_key IS NULL AND session_key != ?`,
    [agentId, args.project, args.harness, stripSessionPrefix(args.exceptKey)],
  );
  const keys = (rows[0]?.values ?? []).map((r) => String(r[0]));
  for (const key of keys) {
    upsertSession(ctx, { agentId, key, status: 'ended', endedAt: ctx.now(), endReason: args.reason, runtimePath: null, claimedAt: null });
  }
  return { ended: keys };
}

export function setBypass(ctx: CommandContext, args: { agentId?: string; key: string; enabled: boolean }): { key: string; bypassed: boolean } {
  const row = requireWritableSessionRow(ctx.db, args.agentId, args.key);
  upsertSession(ctx, { agentId: row.agent_id, key: row.session_key, bypassed: args.enabled });
  return { key: row.session_key, bypassed: args.enabled };
}

/** A compaction happened in a session: its next prompt hears which sub-agents ran (docs/inheritance.md). */
export function markCompacted(ctx: CommandContext, args: { agentId?: string; key: string }): { marked: boolean } {
  const row = writableSessionRow(ctx.db, args.agentId, args.key);
  if (!row) return { marked: false };
  upsertSession(ctx, { agentId: row.agent_id, key: row.session_key, childrenDue: true });
  return { marked: true };
}

/**
 * The sub-agents of a session due since its last compaction, taken once: the mark is cleared in
 * the same write that reads them, so two prompts at once never both get the section and a crash
 * before the reply loses nothing but the reminder.
 */
export function takeSubagentsDue(ctx: CommandContext, args: { agentId?: string; key: string }): { children: SubagentSummary[] } | null {
  const row = writableSessionRow(ctx.db, args.agentId, args.key) as (Row & { children_due?: number }) | undefined;
  if (!row || !row.children_due) return null;
  upsertSession(ctx, { agentId: row.agent_id, key: row.session_key, childrenDue: false });
  return { children: sessionSubagents(ctx.db, row.agent_id, row.session_key) };
}
