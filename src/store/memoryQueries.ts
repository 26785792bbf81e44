// Read side of the memory surfaces: recall over memories (FTS4), entity context for prompts,
// temporal summary nodes and their expansion.

import type { Database } from 'sql.js';
import { compileSearchQuery, withQuestionFallback, type CompiledQuery } from '../core/searchQuery';
import { stripSessionPrefix } from '../core/sessionKey';
import { all, keptFor, one } from './db';
import { findSessionRow, listSessions, scopeSql, transcriptTail, type Scope } from './queries';
import { listConstraints } from './ruleQueries';

export interface RecallOptions {
  query: string;
  keywordQuery?: string;
  project?: string;
  limit?: number;
  type?: string;
  tags?: string;
  who?: string;
  since?: string;
  until?: string;
  /** Leave out the memories this session's context already holds in this epoch (the recall ledger). */
  notRecalledIn?: { agentId: string; sessionKey: string; epoch: number };
}

export interface RecallAnswer {
  hits: MemoryHit[];
  /** Some hits came from the question form of the query, not the query as typed. */
  supplementary: boolean;
}

export interface MemoryHit {
  id: string;
  content: string;
  type: string | null;
  tags: string | null;
  who: string | null;
  project: string | null;
  sessionKey: string | null;
  importance: number;
  createdAt: string;
  score: number;
}

interface MemoryRow {
  id: string;
  content: string;
  type: string | null;
  tags: string | null;
  who: string | null;
  project: string | null;
  session_key: string | null;
  importance: number;
  created_at: string;
}

function toHit(r: MemoryRow, score: number): MemoryHit {
  return {
    id: r.id,
    content: r.content,
    type: r.type,
    tags: r.tags,
    who: r.who,
    project: r.project,
    sessionKey: r.session_key,
    importance: r.importance,
    createdAt: r.created_at,
    score,
  };
}

/** The agent's most important memories, newest first among equals: MEMORY.md's Global Head (docs/memory.md). */
export function topMemories(db: Database, scope: Scope, opts: { limit?: number } = {}): MemoryHit[] {
  const s = scopeSql(scope, 'm.agent_id');
  const limit = Math.max(1, Math.min(opts.limit ?? 20, 100));
  const rows = all<MemoryRow>(db, `SELECT m.* FROM memories m WHERE ${s.sql} ORDER BY m.importance DESC, m.created_at DESC LIMIT ?`, [...s.params, limit]);
  return rows.map((r) => toHit(r, 0));
}

/** Types that MEMORY.md shows in sections of their own, or that restate other rows: not in the Global Head. */
const NOT_IN_HEAD = ['constraint', 'open-question', 'compaction', 'aggregate'];

function ownMemories(db: Database, agentId: string, where: string, params: Array<string | number>, limit: number): MemoryHit[] {
  return all<MemoryRow>(
    db,
    `SELECT m.* FROM memories m WHERE m.agent_id = ? AND ${where} ORDER BY m.importance DESC, m.created_at DESC, m.rowid DESC LIMIT ?`,
    [agentId, ...params, limit],
  ).map((r) => toHit(r, 0));
}

/**
 * Everything MEMORY.md projects for one agent (its own rows, not the shared agents'), in one
 * round trip: ranked memories, open questions, constraints, summary nodes and their links,
 * the sessions of the ledger window and the active ones.
 */
export function headSources(db: Database, agentId: string, opts: { since: string; headLimit: number }) {
  const scope = { agentId };
  const own = <T extends { agentId: string }>(rows: T[]) => rows.filter((r) => r.agentId === agentId);
  const head = ownMemories(db, agentId, `COALESCE(m.type, '') NOT IN (${NOT_IN_HEAD.map(() => '?').join(', ')})`, NOT_IN_HEAD, opts.headLimit);
  const openQuestions = ownMemories(db, agentId, "m.type = 'open-question'", [], 20);
  const constraintMemories = ownMemories(db, agentId, "m.type = 'constraint'", [], 60);
  // A deactivated entity's rules no longer hold (docs/inheritance.md): not durable notes either.
  const inactive = new Set(all<{ name: string }>(db, 'SELECT name FROM entities WHERE agent_id = ? AND active = 0', [agentId]).map((e) => e.name));
  const constraints = own(listConstraints(db, scope, { limit: 200 })).filter((c) => !inactive.has(c.entity));
  const summaries = all<{ id: string; kind: string; session_key: string | null; content: string; created_at: string }>(
    db,
    'SELECT id, kind, session_key, content, created_at FROM summary_nodes WHERE agent_id = ? ORDER BY created_at DESC, rowid DESC LIMIT 100',
    [agentId],
  ).map((n) => ({ id: n.id, kind: n.kind, sessionKey: n.session_key, content: n.content, createdAt: n.created_at }));
  const links = all<{ parent_id: string; child_id: string }>(
    db,
    'SELECT l.parent_id, l.child_id FROM summary_links l JOIN summary_nodes n ON n.id = l.child_id WHERE n.agent_id = ? LIMIT 5000',
    [agentId],
  ).map((l) => ({ parentId: l.parent_id, childId: l.child_id }));
  const ledger = own(listSessions(db, scope, { since: opts.since, limit: 200 }).sessions);
  const active = own(listSessions(db, scope, { status: 'active', limit: 50 }).sessions);
  const memoryCounts: Record<string, number> = {};
  for (const row of all<{ session_key: string; n: number }>(
    db,
    'SELECT session_key, COUNT(*) AS n FROM memories WHERE agent_id = ? AND session_key IS NOT NULL GROUP BY session_key',
    [agentId],
  )) {
    memoryCounts[row.session_key] = Number(row.n);
  }
  return { head, openQuestions, constraintMemories, constraints, summaries, links, ledger, active, memoryCounts };
}

export function recallMemories(db: Database, scope: Scope, opts: RecallOptions): RecallAnswer {
  const limit = Math.max(1, Math.min(opts.limit ?? 10, 50));
  const raw = opts.keywordQuery || opts.query;
  const strict = compileSearchQuery(raw).match;
  let supplementary = false;
  // The strict query first; a question's any-of form (plurals trimmed) only when it finds nothing,
  // as session search does (docs/memory.md). Type and tags are searched with the text.
  const hits = withQuestionFallback(
    raw,
    limit,
    (compiled) => {
      const found = recallCompiled(db, scope, opts, compiled, limit);
      if (compiled.match !== strict && found.length) supplementary = true;
      return found;
    },
    (hit) => hit.id,
    { stem: true },
  );
  return { hits, supplementary };
}

/** The last turn a session's end summary covers, or 0 (so a session-end with nothing new reads no turns). */
export function summarizedTo(db: Database, agentId: string, sessionKey: string): number {
  const node = one<{ meta_json: string }>(
    db,
    "SELECT meta_json FROM summary_nodes WHERE agent_id = ? AND session_key = ? AND kind = 'session' ORDER BY created_at DESC, rowid DESC LIMIT 1",
    [agentId, stripSessionPrefix(sessionKey)],
  );
  return node ? Number((JSON.parse(node.meta_json) as { toSeq?: unknown }).toSeq) || 0 : 0;
}

/** The session's context epoch: how many compactions it has been through (docs/memory.md). */
export function contextEpoch(db: Database, agentId: string, sessionKey: string): number {
  return Number(
    one<{ n: number }>(db, "SELECT COUNT(*) AS n FROM summary_nodes WHERE agent_id = ? AND session_key = ? AND kind = 'compaction'", [
      agentId,
      stripSessionPrefix(sessionKey),
    ])!.n,
  );
}

function recallCompiled(db: Database, scope: Scope, opts: RecallOptions, compiled: CompiledQuery, limit: number): MemoryHit[] {
  const s = scopeSql(scope, 'm.agent_id');
  const where = [s.sql];
  const params: Array<string | number> = [...s.params];
  const filters: Array<[string, string | undefined]> = [
    ['m.project = ?', opts.project],
    ['m.type = ?', opts.type],
    ['m.who = ?', opts.who],
    ['m.created_at >= ?', opts.since],
    ['m.created_at <= ?', opts.until],
  ];
  for (const [sql, value] of filters) {
    if (value) {
      where.push(sql);
      params.push(value);
    }
  }
  for (const tag of (opts.tags ?? '')
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean)) {
    where.push("(',' || REPLACE(COALESCE(m.tags, ''), ' ', '') || ',') LIKE ?");
    params.push(`%,${tag},%`);
  }
  if (opts.notRecalledIn) {
    where.push('NOT EXISTS (SELECT 1 FROM recall_ledger r WHERE r.agent_id = ? AND r.session_key = ? AND r.epoch = ? AND r.memory_id = m.id)');
    params.push(opts.notRecalledIn.agentId, stripSessionPrefix(opts.notRecalledIn.sessionKey), opts.notRecalledIn.epoch);
  }
  if (!compiled.match) return [];
  const rows = all<MemoryRow & { score: number }>(
    db,
    `SELECT m.*, bm25(matchinfo(memories_fts, 'pcnalx')) AS score FROM memories_fts JOIN memories m ON m.rowid = memories_fts.docid
     WHERE memories_fts MATCH ? AND ${where.join(' AND ')} ORDER BY score - m.importance LIMIT ?`,
    [compiled.match, ...params, limit],
  );
  return rows.map((r) => toHit(r, Math.round(r.score * 1e4) / 1e4));
}

interface EntityName {
  id: number;
  name: string;
  lower: string;
}

interface AgentEntities {
  /** The highest entity id (of any agent) already looked at. */
  top: number;
  /** Names by their first word (letters and digits, lower case). */
  byFirstWord: Map<string, EntityName[]>;
  /** Names with no letter or digit at all. */
  wordless: EntityName[];
}

const entityNames = new WeakMap<Database, Map<string, AgentEntities>>();
const WORD = /[\p{L}\p{N}]+/gu;
const WORD_CHAR = /[\p{L}\p{N}]/u;

/**
 * The agent's entity names, indexed by first word and kept between prompts. Entities are only ever
 * added, and reads see committed rows only, so the index is brought up to date by the rows with a
 * higher id than any seen (a range of the table's rowid, usually empty).
 */
function agentEntities(db: Database, agentId: string): AgentEntities {
  const perAgent = keptFor(entityNames, db, () => new Map<string, AgentEntities>());
  let kept = perAgent.get(agentId);
  if (!kept) {
    kept = { top: 0, byFirstWord: new Map(), wordless: [] };
    perAgent.set(agentId, kept);
  }
  for (const row of all<{ id: number; agent_id: string; name: string }>(db, 'SELECT id, agent_id, name FROM entities WHERE id > ? ORDER BY id', [kept.top])) {
    kept.top = row.id;
    if (row.agent_id !== agentId) continue;
    const entry = { id: row.id, name: row.name, lower: row.name.toLowerCase() };
    const first = entry.lower.match(WORD)?.[0];
    if (!first) kept.wordless.push(entry);
    else if (kept.byFirstWord.has(first)) kept.byFirstWord.get(first)!.push(entry);
    else kept.byFirstWord.set(first, [entry]);
  }
  return kept;
}

/**
 * Current attributes of known entities the prompt names (whole-word, case-insensitive), longest
 * names first. Runs on every prompt, so it costs the prompt's length, not the agent's entity count:
 * a name the prompt contains as a whole word has its first word among the prompt's words.
 */
export function entityContext(
  db: Database,
  agentId: string,
  prompt: string,
  minScore: number,
): Array<{ entity: string; kind: string; content: string; importance: number }> {
  const lower = prompt.toLowerCase();
  const names = agentEntities(db, agentId);
  const candidates = [...names.wordless];
  for (const word of new Set(lower.match(WORD) ?? [])) candidates.push(...(names.byFirstWord.get(word) ?? []));
  const named = candidates.filter((e) => namesWholeWord(lower, e.lower)).sort((a, b) => b.name.length - a.name.length || a.id - b.id);
  return named
    .slice(0, 5)
    .flatMap((e) =>
      all<{ kind: string; content: string; importance: number }>(
        db,
        'SELECT kind, content, importance FROM entity_attributes WHERE entity_id = ? AND active = 1 AND importance >= ? ORDER BY importance DESC, id DESC LIMIT 5',
        [e.id, minScore],
      ).map((a) => ({ entity: e.name, ...a })),
    );
}

/** Whether `name` occurs in `text` with no letter or digit right before or after it (at any occurrence). */
function namesWholeWord(text: string, name: string): boolean {
  if (!name) return false;
  for (let at = text.indexOf(name); at >= 0; at = text.indexOf(name, at + 1)) {
    const before = at === 0 ? ' ' : text[at - 1];
    const after = text[at + name.length] ?? ' ';
    if (!WORD_CHAR.test(before) && !WORD_CHAR.test(after)) return true;
  }
  return false;
}

export interface SummaryNode {
  id: string;
  kind: string;
  depth: number;
  source_type: string;
  source_ref: string | null;
  meta_json: string;
  session_key: string | null;
  project: string | null;
  content: string;
  score: number;
  created_at: string;
}

export function listSummaries(db: Database, scope: Scope, opts: { sessionKey?: string; agentId?: string; limit?: number } = {}): SummaryNode[] {
  const s = scopeSql(scope, 'n.agent_id');
  const where = [s.sql];
  const params: Array<string | number> = [...s.params];
  // Only this agent's (keys are per agent: with sessionKey, that agent's session of the key).
  if (opts.agentId !== undefined) {
    where.push('n.agent_id = ?');
    params.push(opts.agentId);
  }
  if (opts.sessionKey) {
    where.push('n.session_key = ?');
    params.push(opts.sessionKey);
  }
  return all<SummaryNode>(
    db,
    `SELECT n.id, n.kind, n.depth, n.source_type, n.source_ref, n.meta_json, n.session_key, n.project, n.content, n.score, n.created_at
     FROM summary_nodes n WHERE ${where.join(' AND ')} ORDER BY n.created_at DESC, n.rowid DESC LIMIT ?`,
    [...params, Math.max(1, Math.min(opts.limit ?? 100, 1000))],
  );
}

export function expandSummary(db: Database, scope: Scope, opts: { id: string; includeTranscript?: boolean; transcriptCharLimit?: number }) {
  const s = scopeSql(scope, 'n.agent_id');
  const node = one<SummaryNode & { agent_id: string }>(db, `SELECT n.* FROM summary_nodes n WHERE n.id = ? AND ${s.sql}`, [opts.id, ...s.params]);
  if (!node) return null;
  const link = (sql: string) => all<{ id: string; kind: string; depth: number; source_type: string }>(db, sql, [opts.id]);
  const parents = link('SELECT n.id, n.kind, n.depth, n.source_type FROM summary_links l JOIN summary_nodes n ON n.id = l.parent_id WHERE l.child_id = ?');
  const children = link('SELECT n.id, n.kind, n.depth, n.source_type FROM summary_links l JOIN summary_nodes n ON n.id = l.child_id WHERE l.parent_id = ?');
  const linkedMemories = all<{ id: string; content: string; created_at: string }>(
    db,
    'SELECT id, content, created_at FROM memories WHERE agent_id = ? AND source_id = ? ORDER BY created_at',
    [node.agent_id, node.id],
  );
  let transcript: { sessionKey: string; excerpt: string } | null = null;
  if (opts.includeTranscript && node.session_key) {
    const row = findSessionRow(db, { agentId: node.agent_id }, node.session_key);
    if (row)
      transcript = { sessionKey: row.session_key, excerpt: transcriptTail(db, row.id, Math.max(1, Math.min(opts.transcriptCharLimit ?? 2000, 100_000))) };
  }
  return {
    node: {
      id: node.id,
      kind: node.kind,
      depth: node.depth,
      sourceType: node.source_type,
      sourceRef: node.source_ref,
      content: node.content,
      meta: JSON.parse(node.meta_json) as unknown,
    },
    parents: parents.map((p) => ({ id: p.id, kind: p.kind, depth: p.depth, sourceType: p.source_type })),
    children: children.map((c) => ({ id: c.id, kind: c.kind, depth: c.depth, sourceType: c.source_type })),
    linkedMemories: linkedMemories.map((m) => ({ id: m.id, content: m.content, createdAt: m.created_at })),
    transcript,
  };
}
