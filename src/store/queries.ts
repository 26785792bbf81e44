// Read side of the store: sessions, transcripts, lineage, checkpoints, constraints and search.
// Every query takes a Scope: which agents' data the caller may see.

import type { Database } from 'sql.js';
import type { CheckpointRecord, ExecutionMode, LineageSource, SearchHit, SessionStatus, SubagentRun, Role } from '../core/types';
import type { SessionRecord } from '../core/session';
import { BatonError } from '../core/errors';
import { compileSearchQuery, withQuestionFallback, type CompiledQuery } from '../core/searchQuery';
import { buildSnippet } from '../core/snippet';
import { redactSecrets } from '../core/redact';
import { all, eachRow, one, remembered } from './db';
import { turnLineReader, type TurnSpan } from './records';
import { catchUpIndex, indexShards } from './searchIndex';
import { rankFromRareWord, type RankedTurn } from './rareWordMatches';

export type { RankedTurn };
import { segmentText, type StoredSegment } from './segmentText';
import type { ParentWriter, Scope } from '../core/agents';
import { stripSessionPrefix } from '../core/sessionKey';
import type { ConstraintSource } from '../core/constraintBudget';
import { scopeSql } from './scopeSql';
import { parseTally, sessionSpendOf, type SessionSpend } from '../core/spend';
import { DEFAULT_PRICES } from '../core/prices';
import { activeConstraints, constraintOrigin, constraintSource, inactiveEntityNames, sessionConstraints, sessionFocus } from './ruleQueries';

/** 'all' for admin callers; otherwise the caller's agent plus every agent whose read policy is shared. */
export type { Scope };

export { scopeSql };

/**
 * scopeSql for a lookup by key (a row or two): checks each row's agent by primary key instead of
 * listing the shared agents first, which scopeSql does once per query, the better trade when many
 * rows are filtered.
 */
function rowScopeSql(scope: Scope): { sql: string; params: string[] } {
  if (scope === 'all') return { sql: '1', params: [] };
  return {
    sql: `(s.agent_id = ? OR ((SELECT read_policy FROM agents WHERE id = s.agent_id) = 'shared' AND NOT EXISTS (SELECT 1 FROM agents WHERE id = ? AND read_policy = 'isolated')))`,
    params: [scope.agentId, scope.agentId],
  };
}

export { stripSessionPrefix };

interface SessionRow {
  id: number;
  agent_id: string;
  session_key: string;
  harness: string;
  project: string | null;
  parent_session_key: string | null;
  lineage_source: string | null;
  harness_agent_id: string | null;
  harness_agent_type: string | null;
  task: string | null;
  execution_mode: string | null;
  status: string;
  runtime_path: string | null;
  claimed_at: string | null;
  bypassed: number;
  title: string | null;
  created_at: string;
  updated_at: string;
  ended_at: string | null;
  end_reason: string | null;
  turn_count: number;
  char_count: number;
  child_count?: number;
  spend_own: string | null;
  spend_total: string | null;
}

const SESSION_SELECT = `SELECT s.*, (SELECT COUNT(*) FROM sessions c WHERE c.parent_session_key = s.session_key AND c.agent_id = s.agent_id) AS child_count FROM sessions s`;

function toSession(row: SessionRow): SessionRecord {
  return {
    key: row.session_key,
    agentId: row.agent_id,
    harness: row.harness,
    project: row.project,
    parentSessionKey: row.parent_session_key,
    lineageSource: row.lineage_source as LineageSource | null,
    harnessAgentId: row.harness_agent_id,
    harnessAgentType: row.harness_agent_type,
    task: row.task ?? null,
    executionMode: row.execution_mode as ExecutionMode | null,
    status: row.status as SessionStatus,
    runtimePath: row.runtime_path,
    claimedAt: row.claimed_at,
    bypassed: row.bypassed === 1,
    title: row.title,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    endedAt: row.ended_at,
    endReason: row.end_reason,
    turnCount: row.turn_count,
    charCount: row.char_count,
    childCount: row.child_count ?? 0,
    // Priced with the shipped table here; the server prices it again with the configured one (sessionService.ts sessionStatus).
    spend: storedSpend(row.spend_own, row.spend_total),
  };
}

/** Spends already worked out, by their stored tallies: a tree read again (each refresh) prices each session once. */
const spendsSeen = new Map<string, SessionSpend>();

/** Shared between the records that read it: nobody may change it. */
function frozen<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) frozen(inner);
    Object.freeze(value);
  }
  return value;
}

function storedSpend(own: string | null, total: string | null): SessionSpend {
  if (own === null && total === null) return { own: null, total: null };
  const key = `${own ?? ''}\u0000${total ?? ''}`;
  let spend = spendsSeen.get(key);
  if (!spend) {
    if (spendsSeen.size >= 5000) spendsSeen.clear();
    spend = frozen(sessionSpendOf(parseTally(own), parseTally(total), DEFAULT_PRICES));
    spendsSeen.set(key, spend);
  }
  return spend;
}

/**
 * The newest of a key's rows in scope (several agents may share a key; usually there is one row).
 * With `agentId`, only that agent's row, and only when it is in scope: a request naming an agent
 * it may not read finds nothing, exactly as for a key that does not exist (docs/security.md,
 * "Reads by key name the agent").
 * The newest is picked here: with ORDER BY updated_at LIMIT 1 SQLite spent 40–100 µs on what an
 * unordered lookup by the same index does in about 10.
 */
function newestRowForKey<T extends { updated_at: string; agent_id: string }>(
  db: Database,
  select: string,
  scope: Scope,
  key: string,
  agentId?: string,
): T | undefined {
  const s = rowScopeSql(scope);
  const ofAgent = agentId === undefined ? '' : ' AND s.agent_id = ?';
  let newest: T | undefined;
  for (const row of all<T>(db, `${select} WHERE s.session_key = ?${ofAgent} AND ${s.sql}`, [
    stripSessionPrefix(key),
    ...(agentId === undefined ? [] : [agentId]),
    ...s.params,
  ])) {
    // Keys are per agent: the caller's own session of a key comes before a shared agent's one.
    if (scope !== 'all' && row.agent_id === scope.agentId) return row;
    if (!newest || row.updated_at >= newest.updated_at) newest = row; // ties: the later row, as before
  }
  return newest;
}

type InternalRow = SessionRow & { source_turns: number; source_hash: string; pending_turns: string };

/**
 * The internal row (with its integer id), or undefined. With `agentId`, exactly that agent's row
 * (if the scope reads it). Otherwise the caller's own agent's row comes first, then the newest
 * when several readable agents have the key.
 */
export function findSessionRow(db: Database, scope: Scope, key: string, agentId?: string): InternalRow | undefined {
  return newestRowForKey(db, 'SELECT s.* FROM sessions s', scope, key, agentId);
}

/** Exactly the given agent's row for the key (what a write may touch; see ownership.ts). */
export function findOwnSessionRow(db: Database, agentId: string, key: string): InternalRow | undefined {
  return one(db, 'SELECT s.* FROM sessions s WHERE s.agent_id = ? AND s.session_key = ?', [agentId, stripSessionPrefix(key)]);
}

/**
 * The session a parent key means for a child written by `writer` — the one resolver of every
 * parent looked up by key (docs/security.md, "Parents belong to the child's agent"). Any agent
 * with `remember` may write under any key, so another agent's row of the same key is never
 * preferred over the writer's own:
 * - the admin token (the user's hooks, acting for the agent they name, else the default agent):
 *   only that agent's own row, never another agent's that happens to be newer;
 * - an agent token: its own row, else the newest row of the key it may read (read policies).
 */
export function parentSessionRow(db: Database, writer: ParentWriter, key: string): InternalRow | undefined {
  if (writer.admin) return findOwnSessionRow(db, writer.agentId, key);
  return findSessionRow(db, { agentId: writer.agentId }, key);
}

export function getSession(db: Database, scope: Scope, key: string, agentId?: string): SessionRecord | null {
  const row = newestRowForKey<SessionRow>(db, SESSION_SELECT, scope, key, agentId);
  return row ? toSession(row) : null;
}

/** The session parentSessionRow resolves, as a record. */
export function getParentSession(db: Database, writer: ParentWriter, key: string): SessionRecord | null {
  const row = parentSessionRow(db, writer, key);
  return row ? getSessionById(db, row.id) : null;
}

export function getSessionById(db: Database, id: number): SessionRecord | null {
  const row = one<SessionRow>(db, `${SESSION_SELECT} WHERE s.id = ?`, [id]);
  return row ? toSession(row) : null;
}

export function requireSession(db: Database, scope: Scope, key: string, agentId?: string): SessionRecord {
  const session = getSession(db, scope, key, agentId);
  if (!session) throw new BatonError('not_found', `session ${stripSessionPrefix(key)} not found`);
  return session;
}

export interface ListOptions {
  project?: string;
  status?: SessionStatus;
  parentKey?: string | null;
  /** Only this agent's sessions (the children of its row of parentKey; keys are per agent). */
  agentId?: string;
  rootsOnly?: boolean;
  since?: string;
  limit?: number;
  offset?: number;
}

export function listSessions(db: Database, scope: Scope, opts: ListOptions = {}): { sessions: SessionRecord[]; total: number } {
  const s = scopeSql(scope);
  const where = [s.sql];
  const params: Array<string | number> = [...s.params];
  if (opts.project) {
    where.push('s.project = ?');
    params.push(opts.project);
  }
  if (opts.status) {
    where.push('s.status = ?');
    params.push(opts.status);
  }
  if (opts.since) {
    where.push('s.updated_at >= ?');
    params.push(opts.since);
  }
  if (opts.agentId !== undefined) {
    where.push('s.agent_id = ?');
    params.push(opts.agentId);
  }
  if (opts.parentKey) {
    where.push('s.parent_session_key = ?');
    params.push(opts.parentKey);
  } else if (opts.rootsOnly) {
    // A root: no parent, or a parent this caller cannot see (so nothing disappears from the forest).
    where.push(
      `(s.parent_session_key IS NULL OR NOT EXISTS (SELECT 1 FROM sessions p WHERE p.session_key = s.parent_session_key AND p.agent_id = s.agent_id))`,
    );
  }
  const whereSql = where.join(' AND ');
  const total = Number(one<{ n: number }>(db, `SELECT COUNT(*) AS n FROM sessions s WHERE ${whereSql}`, params)!.n);
  const limit = Math.max(1, Math.min(opts.limit ?? 100, 10_000));
  const rows = all<SessionRow>(db, `${SESSION_SELECT} WHERE ${whereSql} ORDER BY s.updated_at DESC, s.id DESC LIMIT ? OFFSET ?`, [
    ...params,
    limit,
    Math.max(0, opts.offset ?? 0),
  ]);
  return { sessions: rows.map(toSession), total };
}

export interface TreeNode extends SessionRecord {
  children: TreeNode[];
}

/** The lineage forest, any depth. Cycles (a corrupt parent chain) are cut, never followed forever. */
export function sessionTree(db: Database, scope: Scope, opts: { project?: string; limit?: number } = {}): TreeNode[] {
  const { sessions } = listSessions(db, scope, { project: opts.project, limit: opts.limit ?? 10_000 });
  const byKey = new Map<string, TreeNode>();
  for (const session of sessions) byKey.set(`${session.agentId}\u0000${session.key}`, { ...session, children: [] });
  const roots: TreeNode[] = [];
  for (const node of byKey.values()) {
    const parent = node.parentSessionKey ? byKey.get(`${node.agentId}\u0000${node.parentSessionKey}`) : undefined;
    if (parent && !isAncestor(node, parent, byKey)) parent.children.push(node);
    else roots.push(node);
  }
  return roots;
}

function isAncestor(node: TreeNode, candidateParent: TreeNode, byKey: Map<string, TreeNode>): boolean {
  let cursor: TreeNode | undefined = candidateParent;
  for (let hops = 0; cursor && hops < 10_000; hops++) {
    if (cursor === node) return true;
    cursor = cursor.parentSessionKey ? byKey.get(`${cursor.agentId}\u0000${cursor.parentSessionKey}`) : undefined;
  }
  return false;
}

export function transcriptContent(db: Database, sessionId: number): string {
  const rows = all<{ text: StoredSegment }>(db, 'SELECT text FROM transcript_segments WHERE session_id = ? ORDER BY ordinal', [sessionId]);
  const text = rows.map((r) => segmentText(r.text)).join('');
  return text.endsWith('\n') ? text.slice(0, -1) : text;
}

export interface StoredTurn {
  seq: number;
  role: Role;
  text: string;
  at: string | null;
}

/** Turns [from, from + limit) in order; text sliced in JS so offsets stay UTF-16 exact. */
export function readTurns(db: Database, sessionId: number, from = 1, limit = 500): StoredTurn[] {
  const rows = all<TurnSpan & { seq: number; role: Role; at: string | null }>(
    db,
    'SELECT seq, role, at, segment_id, start, length FROM transcript_turns WHERE session_id = ? AND seq >= ? ORDER BY seq LIMIT ?',
    [sessionId, from, limit],
  );
  const lineOf = turnLineReader(db);
  return rows.map((row) => {
    const rendered = lineOf(row);
    return { seq: row.seq, role: row.role, at: row.at, text: rendered.slice(rendered.indexOf(': ') + 2) };
  });
}

/** The last `chars` characters of the rendered transcript from turn `afterSeq + 1` on; reads only the segments it needs. */
export function transcriptTail(db: Database, sessionId: number, chars: number, afterSeq = 0): string {
  let startSegment = -1;
  let startOffset = 0;
  if (afterSeq > 0) {
    const first = one<{ segment_id: number; start: number }>(db, 'SELECT segment_id, start FROM transcript_turns WHERE session_id = ? AND seq = ?', [
      sessionId,
      afterSeq + 1,
    ]);
    if (!first) return '';
    startSegment = first.segment_id;
    startOffset = first.start;
  }
  const pieces: string[] = [];
  let total = 0;
  // Newest first, and only as many segments as the tail needs: a long session has thousands.
  eachRow<{ id: number; text: StoredSegment }>(
    db,
    'SELECT id, text FROM transcript_segments WHERE session_id = ? ORDER BY ordinal DESC',
    [sessionId],
    (segment) => {
      const whole = segmentText(segment.text);
      const text = segment.id === startSegment ? whole.slice(startOffset) : whole;
      pieces.unshift(text);
      total += text.length;
      return total < chars + 1 && segment.id !== startSegment;
    },
  );
  let tail = pieces.join('');
  if (tail.endsWith('\n')) tail = tail.slice(0, -1);
  return tail.length > chars ? tail.slice(tail.length - chars) : tail;
}

export function latestCheckpoint(db: Database, sessionId: number, sessionKey: string): CheckpointRecord | null {
  const row = one<{ id: number; digest: string; focal_entities: string; extraction_cursor: number; source: string | null; created_at: string }>(
    db,
    'SELECT * FROM checkpoints WHERE session_id = ? ORDER BY id DESC LIMIT 1',
    [sessionId],
  );
  if (!row) return null;
  return {
    id: row.id,
    sessionKey,
    digest: row.digest,
    focalEntities: JSON.parse(row.focal_entities) as string[],
    extractionCursor: row.extraction_cursor,
    source: row.source,
    createdAt: row.created_at,
  };
}

export interface SearchOptions {
  query: string;
  sessionKey?: string;
  /** Only this agent's rows (with sessionKey: one session, the row a parent key resolved to). */
  agentId?: string;
  project?: string;
  excludeSessionKey?: string;
  limit?: number;
}

/** How many matching turns (newest first) are ranked per search. */
export const RANK_WINDOW = 200;

const HIT_OPEN = '\u0002';
const HIT_CLOSE = '\u0003';

/** What a compiled query tells the ranking besides its MATCH expression (see CompiledQuery). */
export interface QueryShape {
  /** Words every match contains: a shard lacking one is skipped unread. */
  requiredWords?: string[];
  /** The query's phrases when all must occur: a shard where one of their words is rare is ranked from that word's documents. */
  phrases?: string[][] | null;
}

/**
 * BM25 (from matchinfo) of the newest RANK_WINDOW turns that match `match` and the `filters` (SQL
 * over turns `t` and sessions `s`). Shards are read newest first and each one's docids newest
 * first, so the cost is bounded however common the words are and however large the store grows.
 * A score uses its own shard's statistics (document count, average length, term frequencies):
 * shards hold thousands of turns each, so their statistics differ little. The query's shape makes
 * some shards cheaper: one that lacks a required word is skipped, and one where a word of an
 * all-phrases query is rare is ranked from that word's few documents (rareWordMatches.ts).
 */
export function rankNewestMatches(db: Database, match: string, filters: string[], params: Array<string | number>, shape: QueryShape = {}): RankedTurn[] {
  const ranked: RankedTurn[] = [];
  // Rarer-looking words first: the first one missing settles it.
  const probes = [...(shape.requiredWords ?? [])].sort((a, b) => b.length - a.length);
  const shards = indexShards(db);
  for (const [i, { table }] of shards.entries()) {
    const want = RANK_WINDOW - ranked.length;
    if (want <= 0) break;
    const sealed = i > 0;
    if (!probes.every((word) => shardHasWord(db, table, word, sealed))) continue;
    const fromRareWord = shape.phrases ? rankFromRareWord(db, table, sealed, shape.phrases, filters, params, want) : null;
    if (fromRareWord) {
      ranked.push(...fromRareWord);
      continue;
    }
    ranked.push(
      ...all<RankedTurn>(
        db,
        `SELECT t.session_id AS session_id, t.seq AS seq, t.segment_id AS segment_id, t.start AS start, t.length AS length,
                bm25(matchinfo(${table}, 'pcnalx')) AS score
         FROM ${table} JOIN transcript_turns t ON t.doc_id = ${table}.docid JOIN sessions s ON s.id = t.session_id
         WHERE ${[`${table} MATCH ?`, ...filters].join(' AND ')} ORDER BY ${table}.docid DESC LIMIT ?`,
        [match, ...params, want],
      ),
    );
  }
  return ranked;
}

/** What shardHasWord learnt, per database: `table word` → whether the word occurs there. */
const wordsInShards = new WeakMap<Database, Map<string, boolean>>();

/**
 * Whether a word occurs anywhere in a shard. Read in ascending docid order, FTS4 loads a word's
 * doclist incrementally, so the first hit ends the look-up (a leaf page or so, however common the
 * word); the ranking query reads newest first, which FTS4 can only do by loading the whole doclist,
 * positions included, of every word it names. A query with few matches used to pay that in every
 * shard, even in shards that lack one of its words altogether. Turns are never removed from the
 * index, so a word once found stays found; a `sealed` shard (not the newest) takes no more turns,
 * so a word missing there stays missing too: both answers are remembered.
 */
function shardHasWord(db: Database, table: string, word: string, sealed: boolean): boolean {
  return remembered(
    wordsInShards,
    db,
    `${table} ${word}`,
    (found) => found || sealed,
    () => one(db, `SELECT docid FROM ${table} WHERE ${table} MATCH ? LIMIT 1`, [`"${word}"`]) !== undefined,
  );
}

/**
 * Full-text search over transcript turns: rank the newest matching turns by BM25 (from matchinfo),
 * keep the best turn per session, then cut excerpts from those turns' text.
 * Excerpts mark hits with [[ and ]] unless other markers are asked for.
 */
export function searchTranscripts(db: Database, scope: Scope, opts: SearchOptions, markers = { open: '[[', close: ']]' }): SearchHit[] {
  const limit = Math.max(1, Math.min(opts.limit ?? 10, 100));
  return searchCompiled(db, scope, opts, compileSearchQuery(opts.query), limit, markers);
}

/** searchTranscripts, then a question's any-of form when the strict query finds little (docs/inheritance.md). */
export function searchTranscriptsOrQuestion(db: Database, scope: Scope, opts: SearchOptions, markers = { open: '[[', close: ']]' }): SearchHit[] {
  const limit = Math.max(1, Math.min(opts.limit ?? 10, 100));
  return withQuestionFallback(
    opts.query,
    limit,
    (compiled) => searchCompiled(db, scope, opts, compiled, limit, markers),
    (hit) => hit.sessionKey,
  );
}

function searchCompiled(
  db: Database,
  scope: Scope,
  opts: SearchOptions,
  compiled: CompiledQuery,
  limit: number,
  markers: { open: string; close: string },
): SearchHit[] {
  if (!compiled.match) return [];
  catchUpIndex(db); // every stored turn is searchable
  const s = scopeSql(scope);
  const where = [s.sql];
  const params: Array<string | number> = [...s.params];
  if (opts.sessionKey) {
    where.push('s.session_key = ?');
    params.push(stripSessionPrefix(opts.sessionKey));
  }
  if (opts.agentId !== undefined) {
    where.push('s.agent_id = ?');
    params.push(opts.agentId);
  }
  if (opts.project) {
    where.push('s.project = ?');
    params.push(opts.project);
  }
  if (opts.excludeSessionKey) {
    where.push('s.session_key != ?');
    params.push(stripSessionPrefix(opts.excludeSessionKey));
  }
  const ranked = rankNewestMatches(db, compiled.match, where, params, compiled);
  const best = new Map<number, (typeof ranked)[number]>();
  for (const row of ranked) {
    const seen = best.get(row.session_id);
    if (!seen || row.score < seen.score) best.set(row.session_id, row);
  }
  const top = [...best.values()].sort((a, b) => a.score - b.score).slice(0, limit);
  const lineOf = turnLineReader(db);
  return top.map((hit) => {
    const session = one<SessionRow>(db, 'SELECT * FROM sessions WHERE id = ?', [hit.session_id])!;
    const excerpt = buildSnippet(lineOf(hit), { terms: compiled.terms, prefixTerms: compiled.prefixTerms, open: HIT_OPEN, close: HIT_CLOSE });
    return {
      sessionKey: session.session_key,
      title: session.title,
      agentId: session.agent_id,
      harness: session.harness,
      project: session.project,
      parentSessionKey: session.parent_session_key,
      updatedAt: session.updated_at,
      excerpt: markedExcerpt(excerpt, compiled.terms, markers),
      rank: Math.round(hit.score * 1e4) / 1e4,
      turnSeq: hit.seq,
    };
  });
}

/**
 * Swaps the internal hit markers for the caller's, with secrets redacted. Hit markers can split a
 * secret (a URL's scheme and host are both words), so redaction runs on the plain text and, when it
 * changed anything, the hits are marked again by word.
 */
function markedExcerpt(excerpt: string, terms: string[], markers: { open: string; close: string }): string {
  const plain = excerpt.split(HIT_OPEN).join('').split(HIT_CLOSE).join('');
  const redacted = redactSecrets(plain);
  if (redacted === plain) return excerpt.split(HIT_OPEN).join(markers.open).split(HIT_CLOSE).join(markers.close);
  if (terms.length === 0) return redacted;
  const escaped = terms.map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const word = new RegExp(`(?<![\\p{L}\\p{N}])(${escaped.join('|')})[\\p{L}\\p{N}]*`, 'giu');
  return redacted.replace(word, (m) => markers.open + m + markers.close);
}

interface RunRow {
  id: string;
  agent_id: string;
  session_key: string | null;
  parent_session_key: string | null;
  runner: string;
  status: string;
  execution_mode: string;
  workspace_path: string | null;
  spec_id: string | null;
  prompt: string | null;
  files: string;
  tools: string | null;
  result_content: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  duration_ms: number | null;
  error: string | null;
  callback_delivered_at: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  updated_at: string;
}

function toRun(row: RunRow): SubagentRun {
  return {
    id: row.id,
    agentId: row.agent_id,
    sessionKey: row.session_key,
    parentSessionKey: row.parent_session_key,
    runner: row.runner,
    status: row.status as SubagentRun['status'],
    executionMode: row.execution_mode as ExecutionMode,
    context: {
      workspacePath: row.workspace_path ?? undefined,
      specId: row.spec_id ?? undefined,
      prompt: row.prompt ?? undefined,
      files: JSON.parse(row.files) as string[],
      ...(row.tools === null ? {} : { tools: JSON.parse(row.tools) as string[] }),
    },
    resultContent: row.result_content,
    inputTokens: row.input_tokens,
    outputTokens: row.output_tokens,
    durationMs: row.duration_ms,
    error: row.error,
    callbackDeliveredAt: row.callback_delivered_at,
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    updatedAt: row.updated_at,
  };
}

export interface RunFilter {
  runner?: string;
  status?: string;
  since?: string;
  specId?: string;
  parentSessionKey?: string;
  limit?: number;
}

export function listRuns(db: Database, scope: Scope, filter: RunFilter = {}): SubagentRun[] {
  const s = scopeSql(scope, 'r.agent_id');
  const where = [s.sql];
  const params: Array<string | number> = [...s.params];
  for (const [column, value] of [
    ['r.runner', filter.runner],
    ['r.status', filter.status],
    ['r.spec_id', filter.specId],
    ['r.parent_session_key', filter.parentSessionKey],
  ] as const) {
    if (value) {
      where.push(`${column} = ?`);
      params.push(value);
    }
  }
  if (filter.since) {
    where.push('r.created_at >= ?');
    params.push(filter.since);
  }
  const rows = all<RunRow>(db, `SELECT r.* FROM subagent_runs r WHERE ${where.join(' AND ')} ORDER BY r.created_at DESC LIMIT ?`, [
    ...params,
    Math.max(1, Math.min(filter.limit ?? 100, 1000)),
  ]);
  return rows.map(toRun);
}

export function getRun(db: Database, scope: Scope, id: string): SubagentRun | null {
  const s = scopeSql(scope, 'r.agent_id');
  const row = one<RunRow>(db, `SELECT r.* FROM subagent_runs r WHERE r.id = ? AND ${s.sql}`, [id, ...s.params]);
  return row ? toRun(row) : null;
}

/** How many of the parent's turns a child's task chooses from: the newest, within both bounds (docs/inheritance.md). */
export interface TurnPool {
  maxTurns: number;
  maxChars: number;
}

/**
 * The parent's newest turns after `afterSeq`, transcript order, within `pool`: at most maxTurns
 * turns and maxChars characters of text (the newest turn always, its end when it alone is longer).
 * `omitted`: the turns after `afterSeq` left out before them.
 */
export function turnPool(db: Database, sessionId: number, afterSeq: number, pool: TurnPool): { turns: StoredTurn[]; omitted: number } {
  const rows = all<TurnSpan & { seq: number; role: Role; at: string | null }>(
    db,
    'SELECT seq, role, at, segment_id, start, length FROM transcript_turns WHERE session_id = ? AND seq > ? ORDER BY seq DESC LIMIT ?',
    [sessionId, afterSeq, Math.max(1, pool.maxTurns)],
  );
  const lineOf = turnLineReader(db);
  const turns: StoredTurn[] = [];
  let chars = 0;
  for (const row of rows) {
    const rendered = lineOf(row);
    let text = rendered.slice(rendered.indexOf(': ') + 2);
    if (chars + text.length > pool.maxChars) {
      if (turns.length) break;
      text = text.slice(text.length - pool.maxChars);
    }
    chars += text.length;
    turns.unshift({ seq: row.seq, role: row.role, at: row.at, text });
  }
  return { turns, omitted: turns.length ? turns[0].seq - afterSeq - 1 : 0 };
}

/**
 * Everything the inherited block needs about a parent, read in one go (one consistent view):
 * title, latest checkpoint, transcript tail since that checkpoint, constraints of focal entities,
 * the parent's last turn (the block's stamp) and, for a child with a task (`pool` given), the
 * parent's turns since the checkpoint to choose from.
 */
export function inheritSources(db: Database, writer: ParentWriter, parentKey: string, tailChars: number, pool?: TurnPool) {
  const row = parentSessionRow(db, writer, parentKey);
  if (!row) return null;
  const checkpoint = latestCheckpoint(db, row.id, row.session_key);
  const afterSeq = checkpoint ? checkpoint.extractionCursor : 0;
  const full = transcriptTail(db, row.id, tailChars + 1, afterSeq);
  const tail = full.length > tailChars ? full.slice(full.length - tailChars) : full;
  const lastTurn = one<{ seq: number; at: string | null }>(db, 'SELECT seq, at FROM transcript_turns WHERE session_id = ? ORDER BY seq DESC LIMIT 1', [row.id]);
  const chosenFrom = pool ? turnPool(db, row.id, afterSeq, pool) : null;
  // The rolling digest: the last compaction summary and every checkpoint since (oldest first).
  const rows = all<{ id: number; digest: string; source: string | null; focal_entities: string }>(
    db,
    'SELECT id, digest, source, focal_entities FROM checkpoints WHERE session_id = ? ORDER BY id DESC LIMIT 200',
    [row.id],
  );
  const stop = rows.findIndex((r) => r.source === 'compaction');
  const rolling = stop >= 0 ? rows.slice(0, stop + 1) : rows;
  const digests = [...rolling].reverse().map((r) => ({ digest: r.digest, source: r.source }));
  // Focal entities: those put in focus by hand, then those of the whole rolling span (newest
  // checkpoint's first); an entity deactivated by hand never comes back on its own.
  const inactive = inactiveEntityNames(db, row.agent_id);
  const focal = [...new Set([...sessionFocus(db, row.agent_id, row.session_key), ...rolling.flatMap((r) => JSON.parse(r.focal_entities) as string[])])].filter(
    (name) => !inactive.has(name),
  );
  const byKey = new Map<string, { entity: string; content: string; origin: string; source: ConstraintSource; importance: number; recency: number }>();
  for (const c of [...sessionConstraints(db, row.agent_id, row.session_key), ...activeConstraints(db, row.agent_id, focal)]) {
    const k = `${c.entity}\u0000${c.content}`;
    if (!byKey.has(k))
      byKey.set(k, {
        entity: c.entity,
        content: c.content,
        origin: constraintOrigin(c, row.session_key),
        source: constraintSource(c, row.session_key),
        importance: c.importance,
        // Rules stated in one turn share a time: among those, the order they were stated in (the query's, by id) stands.
        recency: Date.parse(c.createdAt) || 0,
      });
  }
  return {
    parentKey: row.session_key,
    agentId: row.agent_id,
    title: row.title,
    harness: row.harness,
    checkpoint: checkpoint ? { digest: checkpoint.digest, createdAt: checkpoint.createdAt } : null,
    tail,
    tailTruncated: full.length > tailChars,
    ...(chosenFrom ? { turns: chosenFrom.turns, turnsOmitted: chosenFrom.omitted } : {}),
    // A turn without its own time (most hooks send none) was stored when the session was last updated.
    lastTurn: lastTurn ? { seq: lastTurn.seq, at: lastTurn.at ?? row.updated_at } : null,
    digests,
    focalEntities: focal,
    inferredParent: false,
    constraints: [...byKey.values()],
    updatedAt: row.updated_at,
  };
}
