// Write commands: each reads what it needs, decides, and emits journal records (records.ts).
// They run inside the store worker, one at a time, inside a savepoint: a command that throws
// leaves nothing behind, in the database or in the journal.

import type { Database } from 'sql.js';
import { BatonError } from '../core/errors';
import { planTranscriptDelta } from '../core/transcriptDelta';
import { canMove, isTerminal } from '../core/runs';
import { titleFromTurns } from '../core/sessionTitle';
import type { ExecutionMode, ReadPolicy, RunStatus, SubagentRun, SubagentRunContext, Turn } from '../core/types';
import { all, one } from './db';
import { findOwnSessionRow, getRun, type findSessionRow, stripSessionPrefix } from './queries';
import { DEFAULT_AGENT, mayWriteRun, requireWritableSessionRow, writableSessionRow } from './ownership';
import type { RunFields, SessionFields, StoreRecord } from './records';
import type { FileReadCursor, TranscriptFileCursor } from '../core/fileCursor';
import type { TurnUsage } from '../core/spend';
import { turnHash } from '../core/hash';
import { storedUsageKeys, type UsageEntry } from './spendTally';

export interface CommandContext {
  db: Database;
  emit(record: StoreRecord): void;
  now(): string;
  newId(): string;
}

export { DEFAULT_AGENT } from './ownership';

export function ensureAgent(ctx: CommandContext, agentId: string, readPolicy: ReadPolicy = 'shared'): void {
  if (!one(ctx.db, 'SELECT id FROM agents WHERE id = ?', [agentId])) ctx.emit({ t: 'agent', id: agentId, readPolicy, at: ctx.now() });
}

export interface UpsertSessionArgs extends SessionFields {
  agentId?: string;
  key: string;
}

export function upsertSession(ctx: CommandContext, args: UpsertSessionArgs): { created: boolean } {
  const agentId = args.agentId ?? DEFAULT_AGENT;
  const key = stripSessionPrefix(args.key);
  if (!key) throw new BatonError('invalid_request', 'sessionKey must not be empty');
  ensureAgent(ctx, agentId);
  const existing = one(ctx.db, 'SELECT id FROM sessions WHERE agent_id = ? AND session_key = ?', [agentId, key]);
  const { agentId: _a, key: _k, ...set } = args;
  ctx.emit({ t: 'session', agentId, key, set, at: ctx.now() });
  return { created: !existing };
}

export interface RecordTranscriptArgs {
  agentId?: string;
  key: string;
  harness?: string;
  project?: string | null;
  /** The normalised transcript as the harness has it now (whole or partial). */
  turns: Turn[];
  /** Turns known from the hook payload (prompt, last reply), stored when the source lags. */
  fromPayload?: Turn[];
  /**
   * Set when `turns` are only what a transcript file gained since the read this file cursor
   * describes: the write applies only while the session's cursor is still that read's.
   */
  continuation?: Pick<TranscriptFileCursor, 'sourceTurns' | 'sourceHash' | 'sourceChars' | 'rehash'>;
  /** The file the turns were read from, where its read stopped (saved with the turns), and whether it was read to its end. */
  file?: {
    path: string;
    cursor: FileReadCursor;
    complete: boolean;
    /** The cursor takes this source even when it is shorter than what the cursor covered (a file read again from its start). */
    adopt: boolean;
  };
}

export interface RecordTranscriptResult {
  appended: number;
  turnCount: number;
  charCount: number;
  /** The session's cursor moved since the file was read (another write came first): nothing was written, read the file again in full. */
  stale?: boolean;
  /** Whether the file's cursor was kept (the next read may continue it). */
  fileKept?: boolean;
}

/** `found`: the session's row when the caller has just looked it up (saves a second lookup). */
export function recordTranscript(ctx: CommandContext, args: RecordTranscriptArgs, found?: ReturnType<typeof findSessionRow>): RecordTranscriptResult {
  const agentId = args.agentId ?? DEFAULT_AGENT;
  const key = stripSessionPrefix(args.key);
  let row = found?.agent_id === agentId && found.session_key === key ? found : findOwnSessionRow(ctx.db, agentId, key);
  if (!row) {
    upsertSession(ctx, { agentId, key, harness: args.harness, project: args.project ?? null });
    row = findOwnSessionRow(ctx.db, agentId, key)!;
  }
  const sid = row.id;
  const c = args.continuation;
  if (c && (c.sourceTurns !== row.source_turns || c.sourceHash !== row.source_hash)) {
    return { appended: 0, turnCount: row.turn_count, charCount: row.char_count, stale: true };
  }
  const recent = all<{ role: Turn['role']; hash: string }>(ctx.db, 'SELECT role, hash FROM transcript_turns WHERE session_id = ? ORDER BY seq DESC LIMIT 16', [
    sid,
  ]).reverse();
  const plan = planTranscriptDelta({
    cursor: { sourceTurns: row.source_turns, sourceHash: row.source_hash, pending: JSON.parse(row.pending_turns) as string[] },
    incoming: args.turns,
    fromPayload: args.fromPayload ?? [],
    recentStored: recent,
    isStored: (hash) => one(ctx.db, 'SELECT 1 FROM transcript_turns WHERE session_id = ? AND hash = ? LIMIT 1', [sid, hash]) !== undefined,
    continuation: c ? { sourceChars: c.sourceChars, byHash: c.rehash } : undefined,
    // A file read from its start becomes the source the cursor describes, so the next read continues it.
    adopt: args.file?.adopt === true,
  });
  const cursorMoved =
    plan.cursor.sourceTurns !== row.source_turns || plan.cursor.sourceHash !== row.source_hash || JSON.stringify(plan.cursor.pending) !== row.pending_turns;
  if (plan.append.length > 0 || cursorMoved) {
    ctx.emit({
      t: 'turns',
      agentId,
      key,
      turns: plan.append.map((t) => ({ role: t.role, text: t.text, at: t.at, hash: t.hash })),
      cursor: plan.cursor,
      at: ctx.now(),
    });
  }
  // A request whose usage the read found after its turn (that turn stored by an earlier read) waits in the parse state: it counts now, with the newest turn.
  const waiting = args.file?.cursor.parse.pendingUsage;
  recordUsage(ctx, agentId, key, sid, waiting ? [...args.turns, { role: 'system', text: '', usage: waiting }] : args.turns);
  nameUntitledSession(ctx, agentId, key, row.title, plan.append);
  if (args.file) {
    // The file continues the session's cursor only when that cursor now describes all of it read so far.
    const cursor =
      plan.sourceChars !== null
        ? {
            ...args.file.cursor,
            sourceTurns: plan.cursor.sourceTurns,
            sourceHash: plan.cursor.sourceHash,
            sourceChars: plan.sourceChars,
            ...(plan.byHash && !args.file.complete ? { rehash: true } : {}),
          }
        : null;
    ctx.emit({ t: 'transcriptFile', agentId, key, path: args.file.path, cursor, at: ctx.now() });
  }
  const after = one<{ turn_count: number; char_count: number }>(ctx.db, 'SELECT turn_count, char_count FROM sessions WHERE id = ?', [sid])!;
  return {
    appended: plan.append.length,
    turnCount: after.turn_count,
    charCount: after.char_count,
    ...(args.file ? { fileKept: plan.sourceChars !== null } : {}),
  };
}

/**
 * The usage the turns carry (core/spend.ts), each request once: in the same command as the turns,
 * so the session's and its ancestors' tallies change with them (spendTally.ts). Read from every
 * turn given, not only the ones appended: a request whose turn was stored before (from a hook's
 * payload, or a read that stopped mid-message) still counts once.
 */
function recordUsage(ctx: CommandContext, agentId: string, key: string, sid: number, turns: Turn[]): void {
  const fresh = new Map<string, Turn & { usage: TurnUsage }>();
  for (const turn of turns) {
    if (!turn.usage) continue;
    // Lines of one message repeat its usage; were a stream's later line to count more output, the later count is the whole.
    const seen = fresh.get(turn.usage.key);
    if (!seen || turn.usage.outputTokens > seen.usage.outputTokens) fresh.set(turn.usage.key, turn as Turn & { usage: TurnUsage });
  }
  if (fresh.size === 0) return;
  const stored = storedUsageKeys(ctx.db, sid, [...fresh.keys()]);
  const entries: UsageEntry[] = [];
  for (const turn of fresh.values()) {
    if (stored.has(turn.usage.key)) continue;
    const seq =
      turn.text === ''
        ? one<{ seq: number }>(ctx.db, 'SELECT turn_count AS seq FROM sessions WHERE id = ? AND turn_count > 0', [sid])
        : one<{ seq: number }>(ctx.db, 'SELECT seq FROM transcript_turns WHERE session_id = ? AND hash = ? ORDER BY seq DESC LIMIT 1', [
            sid,
            turnHash(turn.role, turn.text),
          ]);
    const u = turn.usage;
    // Only the fields the journal keeps, bounded: a transcript is the harness's, not Baton's.
    entries.push({
      key: u.key.slice(0, 200),
      model: u.model === null ? null : u.model.slice(0, 200),
      inputTokens: u.inputTokens,
      outputTokens: u.outputTokens,
      cacheReadTokens: u.cacheReadTokens,
      cacheWriteTokens: u.cacheWriteTokens,
      costUsd: u.costUsd,
      seq: seq?.seq ?? null,
      at: boundedTime(u.at) ?? boundedTime(turn.at) ?? ctx.now(),
    });
  }
  if (entries.length > 0) ctx.emit({ t: 'usage', agentId, key, entries });
}

/** A time a transcript gave, when it is one (ISO 8601, at most 40 characters): spend is grouped by its day. */
function boundedTime(at: string | undefined): string | undefined {
  return at !== undefined && at.length <= 40 && !Number.isNaN(Date.parse(at)) ? at : undefined;
}

/** Forgets where a session's reads of a transcript stopped: the next one starts from the beginning. */
export function forgetTranscriptFile(ctx: CommandContext, args: { agentId: string; key: string; path: string }): { forgotten: boolean } {
  const row = writableSessionRow(ctx.db, args.agentId, stripSessionPrefix(args.key));
  if (!row || !one(ctx.db, 'SELECT 1 FROM transcript_files WHERE session_id = ? AND path = ?', [row.id, args.path])) return { forgotten: false };
  ctx.emit({ t: 'transcriptFile', agentId: row.agent_id, key: row.session_key, path: args.path, cursor: null, at: ctx.now() });
  return { forgotten: true };
}

/** A session the harness gave no title is named after its first user prompt (core/sessionTitle.ts). */
function nameUntitledSession(
  ctx: CommandContext,
  agentId: string,
  key: string,
  title: string | null,
  appended: ReadonlyArray<Pick<Turn, 'role' | 'text'>>,
): void {
  if (title) return;
  const fromPrompt = titleFromTurns(appended);
  if (fromPrompt) ctx.emit({ t: 'session', agentId, key, set: { title: fromPrompt }, at: ctx.now() });
}

export interface UpdateSessionArgs {
  agentId?: string;
  key: string;
  set: SessionFields;
}

export function updateSession(ctx: CommandContext, args: UpdateSessionArgs): { updated: true } {
  const row = requireWritableSessionRow(ctx.db, args.agentId, args.key);
  ctx.emit({ t: 'session', agentId: row.agent_id, key: row.session_key, set: args.set, at: ctx.now() });
  return { updated: true };
}

export interface AddCheckpointArgs {
  agentId?: string;
  key: string;
  digest: string;
  focalEntities?: string[];
  /** Turns covered; defaults to every turn stored so far. */
  extractionCursor?: number;
  source?: string;
}

export function addCheckpoint(ctx: CommandContext, args: AddCheckpointArgs): { extractionCursor: number } {
  const row = requireWritableSessionRow(ctx.db, args.agentId, args.key);
  const cursor = args.extractionCursor ?? row.turn_count;
  ctx.emit({
    t: 'checkpoint',
    agentId: row.agent_id,
    key: row.session_key,
    digest: args.digest,
    focalEntities: args.focalEntities ?? [],
    extractionCursor: cursor,
    source: args.source ?? null,
    at: ctx.now(),
  });
  return { extractionCursor: cursor };
}

export interface AddAttributeArgs {
  agentId?: string;
  entity: string;
  entityKind?: string;
  kind?: string;
  content: string;
  importance?: number;
  sessionKey?: string;
  /** `extracted` (with the turn it came from) or `hand`. */
  origin?: 'extracted' | 'hand';
  sourceSeq?: number;
  sourceRole?: string;
}

export function addAttribute(ctx: CommandContext, args: AddAttributeArgs): { ok: true; id: number } {
  const agentId = args.agentId ?? DEFAULT_AGENT;
  ensureAgent(ctx, agentId);
  ctx.emit({
    t: 'attribute',
    agentId,
    entity: args.entity,
    entityKind: args.entityKind ?? 'entity',
    kind: args.kind ?? 'attribute',
    content: args.content,
    importance: args.importance ?? 0.5,
    sessionKey: args.sessionKey ?? null,
    origin: args.origin ?? null,
    sourceSeq: args.sourceSeq ?? null,
    sourceRole: args.sourceRole ?? null,
    at: ctx.now(),
  });
  return { ok: true, id: one<{ id: number }>(ctx.db, 'SELECT MAX(id) AS id FROM entity_attributes')!.id };
}

export interface SetEntityArgs {
  agentId?: string;
  /** The entity to edit; absent: the entity named `name` is created (or changed, when it exists). */
  id?: number;
  name?: string;
  kind?: string;
  description?: string;
  active?: boolean;
  /** Replaces the entity's aliases (other names a prompt may call it by). */
  aliases?: string[];
}

/** Creates or edits an entity of the writer's own agent; returns its id. */
export function setEntity(ctx: CommandContext, args: SetEntityArgs): { id: number } {
  const agentId = args.agentId ?? DEFAULT_AGENT;
  let id = args.id;
  if (id !== undefined) {
    if (!one(ctx.db, 'SELECT id FROM entities WHERE id = ? AND agent_id = ?', [id, agentId])) throw new BatonError('not_found', `entity ${id} not found`);
    if (args.name !== undefined) {
      const clash = one<{ id: number }>(ctx.db, 'SELECT id FROM entities WHERE agent_id = ? AND name = ? AND id != ?', [agentId, args.name, id]);
      if (clash) throw new BatonError('conflict', `an entity named "${args.name}" exists already (id ${clash.id})`);
    }
  } else if (args.name === undefined) throw new BatonError('invalid_request', 'name: required to create an entity');
  ensureAgent(ctx, agentId);
  ctx.emit({
    t: 'entitySet',
    agentId,
    id: id ?? null,
    name: args.name ?? null,
    kind: args.kind ?? null,
    description: args.description ?? null,
    active: args.active ?? null,
    aliases: args.aliases ? distinctAliases(args.aliases) : null,
    at: ctx.now(),
  });
  id ??= one<{ id: number }>(ctx.db, 'SELECT id FROM entities WHERE agent_id = ? AND name = ?', [agentId, args.name!])!.id;
  return { id };
}

/** Aliases trimmed, each once whatever its case (the first spelling kept), empty ones dropped. */
function distinctAliases(aliases: string[]): string[] {
  const seen = new Set<string>();
  const kept: string[] = [];
  for (const alias of aliases.map((a) => a.trim())) {
    if (!alias || seen.has(alias.toLowerCase())) continue;
    seen.add(alias.toLowerCase());
    kept.push(alias);
  }
  return kept;
}

export interface SetAttributeArgs {
  agentId?: string;
  id: number;
  content?: string;
  active?: boolean;
  importance?: number;
}

/** Edits or (de)activates an entity attribute (a constraint) of the writer's own agent. */
export function setAttribute(ctx: CommandContext, args: SetAttributeArgs): { updated: boolean } {
  const agentId = args.agentId ?? DEFAULT_AGENT;
  const own = one<{ id: number }>(ctx.db, 'SELECT a.id FROM entity_attributes a JOIN entities e ON e.id = a.entity_id WHERE a.id = ? AND e.agent_id = ?', [
    args.id,
    agentId,
  ]);
  if (!own) throw new BatonError('not_found', `constraint ${args.id} not found`);
  ctx.emit({
    t: 'attributeSet',
    agentId,
    id: args.id,
    content: args.content ?? null,
    active: args.active ?? null,
    importance: args.importance ?? null,
    at: ctx.now(),
  });
  return { updated: true };
}

export interface AddMemoryArgs {
  agentId?: string;
  sessionKey?: string | null;
  project?: string | null;
  content: string;
  type?: string | null;
  tags?: string | null;
  who?: string | null;
  importance?: number;
  sourceType?: string | null;
  sourceId?: string | null;
}

export function addMemory(ctx: CommandContext, args: AddMemoryArgs): { id: string } {
  const agentId = args.agentId ?? DEFAULT_AGENT;
  ensureAgent(ctx, agentId);
  const id = ctx.newId();
  ctx.emit({
    t: 'memory',
    id,
    agentId,
    sessionKey: args.sessionKey ?? null,
    project: args.project ?? null,
    content: args.content,
    type: args.type ?? null,
    tags: args.tags ?? null,
    who: args.who ?? null,
    importance: args.importance ?? 0.5,
    sourceType: args.sourceType ?? null,
    sourceId: args.sourceId ?? null,
    at: ctx.now(),
  });
  return { id };
}

export interface AddSummaryArgs {
  agentId?: string;
  kind: string;
  depth?: number;
  sourceType: string;
  sourceRef?: string | null;
  sessionKey?: string | null;
  project?: string | null;
  content: string;
  score?: number;
  meta?: Record<string, unknown>;
  parents?: string[];
}

export function addSummary(ctx: CommandContext, args: AddSummaryArgs): { id: string } {
  const agentId = args.agentId ?? DEFAULT_AGENT;
  ensureAgent(ctx, agentId);
  const id = ctx.newId();
  ctx.emit({
    t: 'summary',
    id,
    agentId,
    kind: args.kind,
    depth: args.depth ?? 0,
    sourceType: args.sourceType,
    sourceRef: args.sourceRef ?? null,
    sessionKey: args.sessionKey ?? null,
    project: args.project ?? null,
    content: args.content,
    score: args.score ?? 0.5,
    metaJson: JSON.stringify(args.meta ?? {}),
    parents: args.parents ?? [],
    at: ctx.now(),
  });
  return { id };
}

/** The process fields are not the API's to set: only the server records them (runProcesses.ts). */
export interface UpsertRunArgs extends Omit<RunFields, 'files' | 'hostPid' | 'childPid' | 'childIdentity'>, Partial<Pick<SubagentRunContext, 'files'>> {
  id?: string;
  /** The admin: may change any agent's run (ownership.ts). */
  anyAgent?: boolean;
  runner?: string;
  status?: RunStatus;
  executionMode?: ExecutionMode;
}

export function upsertRun(ctx: CommandContext, args: UpsertRunArgs): { id: string } {
  const { id: given, anyAgent: _any, ...set } = args;
  const id = given ?? ctx.newId();
  const existing = one<{ status: RunStatus; agent_id: string }>(ctx.db, 'SELECT status, agent_id FROM subagent_runs WHERE id = ?', [id]);
  if (!existing) {
    if (!set.runner) throw new BatonError('invalid_request', 'runner is required for a new run');
    ensureAgent(ctx, set.agentId ?? DEFAULT_AGENT);
    set.agentId ??= DEFAULT_AGENT;
    set.status ??= 'pending';
  } else {
    // A run keeps the agent it was created for, and only that agent (or the admin) changes it.
    if (!mayWriteRun(args, existing.agent_id)) throw new BatonError('conflict', `run id ${id} is taken`);
    delete set.agentId;
  }
  // A finished run is a record of what happened: nothing about it changes any more (docs/runs.md).
  if (existing && isTerminal(existing.status)) {
    const what = set.status && set.status !== existing.status ? `it cannot become ${set.status}` : 'a finished run cannot change';
    throw new BatonError('conflict', `run ${id} is ${existing.status}; ${what}`);
  }
  if (existing && set.status && set.status !== existing.status && !canMove(existing.status, set.status)) {
    throw new BatonError('conflict', `run ${id} is ${existing.status}; it cannot become ${set.status}`);
  }
  ctx.emit({ t: 'run', id, set, at: ctx.now() });
  return { id };
}

/**
 * Takes the finished ASYNC_CALLBACK runs of a parent that were not delivered yet, and marks them
 * delivered in the same atomic step: two windows asking at once cannot both deliver a result.
 */
/**
 * Takes the finished ASYNC_CALLBACK runs of a parent not delivered yet: marks them delivered and
 * returns them in the same write, so a result is never marked without being handed over.
 */
export function takeDeliveries(ctx: CommandContext, args: { parentSessionKey: string; agentId?: string; anyAgent?: boolean }): { runs: SubagentRun[] } {
  const rows = all<{ id: string; agent_id: string }>(
    ctx.db,
    `SELECT id, agent_id FROM subagent_runs WHERE parent_session_key = ? AND execution_mode = 'ASYNC_CALLBACK'
     AND status IN ('completed', 'failed') AND callback_delivered_at IS NULL ORDER BY finished_at, created_at`,
    [stripSessionPrefix(args.parentSessionKey)],
  ).filter((r) => mayWriteRun(args, r.agent_id));
  for (const row of rows) ctx.emit({ t: 'run', id: row.id, set: { callbackDeliveredAt: ctx.now() }, at: ctx.now() });
  return { runs: rows.map((r) => getRun(ctx.db, 'all', r.id)).filter((r): r is SubagentRun => r !== null) };
}

export interface CreateTokenArgs {
  agentId: string;
  permissions: string[];
  secretHash: string;
  label?: string;
}

export function createToken(ctx: CommandContext, args: CreateTokenArgs): { id: string } {
  ensureAgent(ctx, args.agentId);
  const id = ctx.newId();
  ctx.emit({ t: 'token', id, agentId: args.agentId, permissions: args.permissions, secretHash: args.secretHash, label: args.label ?? null, at: ctx.now() });
  return { id };
}

export function setAgentPolicy(ctx: CommandContext, args: { agentId: string; readPolicy: ReadPolicy }): { ok: true } {
  ensureAgent(ctx, args.agentId, args.readPolicy);
  ctx.emit({ t: 'agentPolicy', id: args.agentId, readPolicy: args.readPolicy });
  return { ok: true };
}
