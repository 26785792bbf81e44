// Read side of the memory surfaces: recall over memories (FTS4), entity context for prompts,
// temporal summary nodes and their expansion.

import type { Database } from 'sql.js';
import { isLowSignal, meaningfulWords, relevanceScore } from '../core/promptRelevance';
import { compileSearchQuery, withQuestionFallback, type CompiledQuery } from '../core/searchQuery';
import { stripSessionPrefix } from '../core/sessionKey';
import { all, one } from './db';
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

/** One phrase (a name or an alias, lower case) an active entity is called by. */
interface EntityPhrase {
  id: number;
  name: string;
  lower: string;
}

interface AgentEntities {
  /** Phrases by their first word (letters and digits, lower case). */
  byFirstWord: Map<string, EntityPhrase[]>;
  /** Phrases with no letter or digit at all. */
  wordless: EntityPhrase[];
  /** Each entity's phrases' words: naming the entity does not count as an attribute's relevance. */
  ownWords: Map<number, Set<string>>;
}

interface EntityIndex {
  /** The highest entity id (of any agent) already looked at. */
  top: number;
  /** meta.entity_edits when the index was built: a rename, alias or (de)activation since starts it over. */
  edits: string;
  perAgent: Map<string, AgentEntities>;
}

const entityIndexes = new WeakMap<Database, EntityIndex>();
const WORD = /[\p{L}\p{N}]+/gu;
const WORD_CHAR = /[\p{L}\p{N}]/u;
/** Entities a prompt brings, and attributes each brings (docs/memory.md). */
const ENTITIES_PER_PROMPT = 5;
const ATTRIBUTES_PER_ENTITY = 5;
/** Attributes of one entity scored per prompt, most important first: a bound on the work, not a budget. */
const ATTRIBUTES_SCORED = 200;

function addPhrase(kept: AgentEntities, phrase: EntityPhrase): void {
  const first = phrase.lower.match(WORD)?.[0];
  if (!first) kept.wordless.push(phrase);
  else if (kept.byFirstWord.has(first)) kept.byFirstWord.get(first)!.push(phrase);
  else kept.byFirstWord.set(first, [phrase]);
}

/**
 * The agent's active entities' names and aliases, indexed by first word and kept between prompts.
 * Entities added since are brought in by the rows with a higher id than any seen (a range of the
 * table's rowid, usually empty); an edit of any entity (counted in meta.entity_edits) rebuilds the
 * index, since it may rename, alias or deactivate one.
 */
function agentEntities(db: Database, agentId: string): AgentEntities {
  const edits = one<{ value: string }>(db, "SELECT value FROM meta WHERE key = 'entity_edits'")?.value ?? '0';
  let index = entityIndexes.get(db);
  if (!index || index.edits !== edits) {
    index = { top: 0, edits, perAgent: new Map() };
    entityIndexes.set(db, index);
  }
  for (const row of all<{ id: number; agent_id: string; name: string; aliases: string; active: number }>(
    db,
    'SELECT id, agent_id, name, aliases, active FROM entities WHERE id > ? ORDER BY id',
    [index.top],
  )) {
    index.top = row.id;
    // Every agent's entities are read once: an agent asked about later starts from rows kept here.
    let kept = index.perAgent.get(row.agent_id);
    if (!kept) {
      kept = { byFirstWord: new Map(), wordless: [], ownWords: new Map() };
      index.perAgent.set(row.agent_id, kept);
    }
    if (row.active !== 1) continue;
    const phrases = [row.name, ...(JSON.parse(row.aliases) as string[])];
    const own = new Set<string>();
    for (const phrase of phrases) {
      addPhrase(kept, { id: row.id, name: row.name, lower: phrase.toLowerCase() });
      for (const word of meaningfulWords(phrase)) own.add(word);
    }
    kept.ownWords.set(row.id, own);
  }
  return index.perAgent.get(agentId) ?? { byFirstWord: new Map(), wordless: [], ownWords: new Map() };
}

/**
 * Current attributes of the known, active entities the prompt names by name or alias (whole-word,
 * case-insensitive), longest mentions first. A mention that names more than one entity names none
 * (which one was meant is unknown), and a low-signal prompt names nothing. Each entity's attributes
 * are ranked by their relevance to the prompt (src/core/promptRelevance.ts) and kept when it is at
 * least `minScore`. Runs on every prompt, so it costs the prompt's length, not the agent's entity
 * count: a phrase the prompt contains as a whole word has its first word among the prompt's words.
 */
export function entityContext(
  db: Database,
  agentId: string,
  prompt: string,
  minScore: number,
): Array<{ entity: string; kind: string; content: string; importance: number }> {
  if (isLowSignal(prompt)) return [];
  const lower = prompt.toLowerCase();
  const names = agentEntities(db, agentId);
  const candidates = [...names.wordless];
  for (const word of new Set(lower.match(WORD) ?? [])) candidates.push(...(names.byFirstWord.get(word) ?? []));
  const byPhrase = new Map<string, EntityPhrase[]>();
  for (const c of candidates.filter((p) => namesWholeWord(lower, p.lower))) byPhrase.set(c.lower, [...(byPhrase.get(c.lower) ?? []), c]);
  // Longest unambiguous mention first; an entity named twice counts once, at its longest.
  const named = new Map<number, EntityPhrase>();
  for (const [phrase, entities] of [...byPhrase].sort(([a], [b]) => b.length - a.length)) {
    if (new Set(entities.map((e) => e.id)).size > 1) continue;
    if (!named.has(entities[0].id)) named.set(entities[0].id, { ...entities[0], lower: phrase });
  }
  const chosen = [...named.values()].sort((a, b) => b.lower.length - a.lower.length || a.id - b.id).slice(0, ENTITIES_PER_PROMPT);
  const promptWords = meaningfulWords(prompt);
  return chosen.flatMap((e) => {
    const own = names.ownWords.get(e.id) ?? new Set<string>();
    const words = new Set([...promptWords].filter((w) => !own.has(w)));
    return all<{ id: number; kind: string; content: string; importance: number }>(
      db,
      'SELECT id, kind, content, importance FROM entity_attributes WHERE entity_id = ? AND active = 1 ORDER BY importance DESC, id DESC LIMIT ?',
      [e.id, ATTRIBUTES_SCORED],
    )
      .map((a) => ({ ...a, score: relevanceScore(a.importance, words, a.content) }))
      .filter((a) => a.score >= minScore)
      .sort((a, b) => b.score - a.score || b.importance - a.importance || b.id - a.id)
      .slice(0, ATTRIBUTES_PER_ENTITY)
      .map((a) => ({ entity: e.name, kind: a.kind, content: a.content, importance: a.importance }));
  });
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
