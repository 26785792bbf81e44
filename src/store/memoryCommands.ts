// Write commands of the memory side (docs/memory.md): what a finished session leaves behind, the
// recall ledger of context epochs, and the MEMORY.md head (its lease and its last write). Each
// runs in one savepoint (commands.ts), so a check and the write it guards cannot be split.

import { BatonError } from '../core/errors';
import { ruleKey } from '../core/constraints';
import type { CommandContext } from './commands';
import { ensureAgent } from './commands';
import { all, one } from './db';
import { DEFAULT_AGENT } from './ownership';
import { scopeSql, stripSessionPrefix } from './queries';
import { contextEpoch } from './memoryQueries';
import { fitStartMemories, type StartMemoryBudget } from '../core/startMemories';

export interface SessionMemoryArgs {
  agentId?: string;
  key: string;
  /** The last turn the extraction looked at. */
  toSeq: number;
  project: string | null;
  who: string | null;
  summary: string;
  memories: Array<{ type: string; content: string; importance: number; tags: string | null; seq: number }>;
}

/** The newest summary node of a session's end, or undefined. */
function sessionSummaryNode(ctx: CommandContext, agentId: string, key: string) {
  return one<{ id: string; meta_json: string }>(
    ctx.db,
    "SELECT id, meta_json FROM summary_nodes WHERE agent_id = ? AND session_key = ? AND kind = 'session' ORDER BY created_at DESC, rowid DESC LIMIT 1",
    [agentId, key],
  );
}

/**
 * Stores a session's extracted memories and its summary node, once: a session already summarised up
 * to `toSeq` is left alone, and a memory the session already left (same normal form) is not stored
 * again. The node hangs under the parent session's summary and above its sub-agents' summaries.
 */
export function recordSessionMemory(ctx: CommandContext, args: SessionMemoryArgs): { summaryId: string | null; memoryIds: string[]; skipped: boolean } {
  const agentId = args.agentId ?? DEFAULT_AGENT;
  const key = stripSessionPrefix(args.key);
  const previous = sessionSummaryNode(ctx, agentId, key);
  const previousTo = previous ? Number((JSON.parse(previous.meta_json) as { toSeq?: number }).toSeq ?? 0) : -1;
  if (previous && previousTo >= args.toSeq) return { summaryId: previous.id, memoryIds: [], skipped: true };
  ensureAgent(ctx, agentId);
  const known = new Set(
    all<{ content: string }>(ctx.db, "SELECT content FROM memories WHERE agent_id = ? AND session_key = ? AND source_type = 'session-end'", [agentId, key]).map(
      (m) => ruleKey(m.content),
    ),
  );
  const session = one<{ parent_session_key: string | null }>(ctx.db, 'SELECT parent_session_key FROM sessions WHERE agent_id = ? AND session_key = ?', [
    agentId,
    key,
  ]);
  const parent = session?.parent_session_key ? sessionSummaryNode(ctx, agentId, session.parent_session_key) : undefined;
  // Sub-agents that ended first: their summaries hang under this one too (a node may have several parents).
  const children = all<{ id: string }>(
    ctx.db,
    `SELECT n.id FROM summary_nodes n JOIN sessions s ON s.agent_id = n.agent_id AND s.session_key = n.session_key
     WHERE n.agent_id = ? AND n.kind = 'session' AND s.parent_session_key = ?`,
    [agentId, key],
  ).map((c) => c.id);
  const at = ctx.now();
  const summaryId = ctx.newId();
  const fresh = args.memories.filter((m) => !known.has(ruleKey(m.content)));
  ctx.emit({
    t: 'summary',
    id: summaryId,
    agentId,
    kind: 'session',
    depth: 0,
    sourceType: 'summary',
    sourceRef: key,
    sessionKey: key,
    project: args.project,
    content: args.summary,
    score: 0.9,
    metaJson: JSON.stringify({ source: 'session-end', fromSeq: previous ? previousTo + 1 : 1, toSeq: args.toSeq, memories: fresh.length }),
    parents: parent ? [parent.id] : [],
    children,
    at,
  });
  const memoryIds = fresh.map((m) => {
    const id = ctx.newId();
    ctx.emit({
      t: 'memory',
      id,
      agentId,
      sessionKey: key,
      project: args.project,
      content: m.content,
      type: m.type,
      tags: m.tags,
      who: args.who,
      importance: m.importance,
      sourceType: 'session-end',
      sourceId: summaryId,
      at,
    });
    return id;
  });
  return { summaryId, memoryIds, skipped: false };
}

/** Marks memories as returned to a session's context in the given epoch (the recall ledger). */
export function recordRecalled(ctx: CommandContext, args: { agentId: string; sessionKey: string; epoch: number; memoryIds: string[] }): { ok: true } {
  if (args.memoryIds.length === 0) return { ok: true };
  ctx.emit({
    t: 'recalled',
    agentId: args.agentId,
    sessionKey: stripSessionPrefix(args.sessionKey),
    epoch: args.epoch,
    memoryIds: args.memoryIds,
    at: ctx.now(),
  });
  return { ok: true };
}

/** A memory told to a session at its start: the project's (`project`) or the agent's, of no project (`agent`). */
export interface StartMemory {
  id: string;
  content: string;
  type: string | null;
  tags: string | null;
  project: string | null;
  sessionKey: string | null;
  importance: number;
  createdAt: string;
  scope: 'project' | 'agent';
}

export interface StartMemories {
  /** The session's context epoch the memories were ledgered in. */
  contextEpoch: number;
  memories: StartMemory[];
  /** The section for the session's context ('' for none). */
  text: string;
}

/** Types that restate other rows (a compaction's whole summary, a saved recall brief): never told at a start. */
const NOT_AT_START = ['compaction', 'aggregate'];
/** The most candidates looked at: the budget keeps far fewer. */
const START_CANDIDATES = 50;

/**
 * The memories a session is told at its start (docs/memory.md, "At session start"), taken once per
 * context epoch: those of its project first, then the agent's own of no project, each group ranked
 * by importance, newest first among equals (recall's order when there is no query to match). Left
 * out: the session's own memories (its context made them), types that restate other rows, and
 * every memory the recall ledger says the session's context already holds in this epoch. Those that
 * fit the budget are written to that same ledger, in this one step, so a second start of the session
 * in the epoch (a resume) and a recall in it do not return them again.
 */
export function takeStartMemories(ctx: CommandContext, args: { agentId: string; key: string; budget: StartMemoryBudget }): StartMemories {
  const key = stripSessionPrefix(args.key);
  const epoch = contextEpoch(ctx.db, args.agentId, key);
  const session = one<{ project: string | null }>(ctx.db, 'SELECT project FROM sessions WHERE agent_id = ? AND session_key = ?', [args.agentId, key]);
  const project = session?.project || null;
  const scope = scopeSql({ agentId: args.agentId }, 'm.agent_id');
  const rows = all<{
    id: string;
    content: string;
    type: string | null;
    tags: string | null;
    project: string | null;
    session_key: string | null;
    importance: number;
    created_at: string;
  }>(
    ctx.db,
    `SELECT m.id, m.content, m.type, m.tags, m.project, m.session_key, m.importance, m.created_at FROM memories m
     WHERE ${scope.sql} AND (m.project IS NULL OR m.project = ?)
       AND COALESCE(m.type, '') NOT IN (${NOT_AT_START.map(() => '?').join(', ')})
       AND NOT (m.agent_id = ? AND m.session_key IS ?)
       AND NOT EXISTS (SELECT 1 FROM recall_ledger r WHERE r.agent_id = ? AND r.session_key = ? AND r.epoch = ? AND r.memory_id = m.id)
     ORDER BY m.project IS NULL, m.importance DESC, m.created_at DESC, m.rowid DESC LIMIT ?`,
    [...scope.params, project, ...NOT_AT_START, args.agentId, key, args.agentId, key, epoch, START_CANDIDATES],
  );
  const ranked = rows.map((r): StartMemory => ({
    id: r.id,
    content: r.content,
    type: r.type,
    tags: r.tags,
    project: r.project,
    sessionKey: r.session_key,
    importance: r.importance,
    createdAt: r.created_at,
    scope: r.project === null ? 'agent' : 'project',
  }));
  const { chosen, text } = fitStartMemories(ranked, args.budget);
  recordRecalled(ctx, { agentId: args.agentId, sessionKey: key, epoch, memoryIds: chosen.map((m) => m.id) });
  return { contextEpoch: epoch, memories: chosen, text };
}

interface HeadRow {
  lease_id: string | null;
  lease_session_key: string | null;
  lease_expires_at: string | null;
}

/** The live lease on an agent's MEMORY.md head, if any (an expired one is no lease). */
function liveLease(ctx: CommandContext, agentId: string): HeadRow | undefined {
  const row = one<HeadRow>(ctx.db, 'SELECT lease_id, lease_session_key, lease_expires_at FROM memory_heads WHERE agent_id = ?', [agentId]);
  return row?.lease_id && row.lease_expires_at && row.lease_expires_at > ctx.now() ? row : undefined;
}

/** Whether the writer (its lease id or its session) is the lease's holder. */
function holds(lease: HeadRow, writer: { leaseId?: string; sessionKey?: string | null }): boolean {
  return (writer.leaseId !== undefined && writer.leaseId === lease.lease_id) || (!!writer.sessionKey && writer.sessionKey === lease.lease_session_key);
}

/**
 * Takes the lease on an agent's MEMORY.md head for `leaseMs`; 409 while another writer holds a live
 * one. The holder (same session, or same lease id) renews its own lease.
 */
export function takeHeadLease(
  ctx: CommandContext,
  args: { agentId: string; sessionKey?: string | null; leaseId?: string; leaseMs: number },
): { leaseId: string; expiresAt: string } {
  const sessionKey = args.sessionKey ? stripSessionPrefix(args.sessionKey) : null;
  const lease = liveLease(ctx, args.agentId);
  if (lease && !holds(lease, { leaseId: args.leaseId, sessionKey })) {
    throw new BatonError('conflict', `another writer holds the MEMORY.md lease for agent "${args.agentId}" until ${lease.lease_expires_at}`);
  }
  ensureAgent(ctx, args.agentId);
  const leaseId = lease?.lease_id ?? ctx.newId();
  const expiresAt = new Date(Date.parse(ctx.now()) + args.leaseMs).toISOString();
  ctx.emit({ t: 'headLease', agentId: args.agentId, leaseId, sessionKey, expiresAt, at: ctx.now() });
  return { leaseId, expiresAt };
}

/**
 * Records a MEMORY.md write and ends the lease; 409 while another writer holds a live one. Answers
 * the hash of the agent's write before this one (null for its first), by which the server knows
 * the agent's own file (docs/memory.md, "MEMORY.md").
 */
export function writeHead(
  ctx: CommandContext,
  args: { agentId: string; leaseId?: string; sessionKey?: string | null; contentHash: string },
): { ok: true; previousHash: string | null } {
  const sessionKey = args.sessionKey ? stripSessionPrefix(args.sessionKey) : null;
  const lease = liveLease(ctx, args.agentId);
  if (lease && !holds(lease, { leaseId: args.leaseId, sessionKey })) {
    throw new BatonError('conflict', `another writer holds the MEMORY.md lease for agent "${args.agentId}"`);
  }
  const previous = one<{ written_hash: string | null }>(ctx.db, 'SELECT written_hash FROM memory_heads WHERE agent_id = ?', [args.agentId]);
  ensureAgent(ctx, args.agentId);
  ctx.emit({ t: 'headWritten', agentId: args.agentId, sessionKey, contentHash: args.contentHash, at: ctx.now() });
  return { ok: true, previousHash: previous?.written_hash ?? null };
}
