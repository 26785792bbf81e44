// The spend of each session, kept as it is written (docs/storage.md, "Spend"): a request's usage is
// stored with its turn (turn_usage) and added, in the same record, to the session's own tally and
// to the rolled-up tally of the session and every ancestor. A session that gains or changes its
// parent moves its rolled-up tally from the old ancestors to the new ones, and a session recorded
// after its children starts with theirs: a read never walks the tree.

import type { Database } from 'sql.js';
import { addTally, parseTally, tallyOf, type SpendTally, type TurnUsage } from '../core/spend';
import { changes, one, run } from './db';

/** One request's usage as a journal record carries it: with the turn it came with and its time. */
export interface UsageEntry extends TurnUsage {
  /** The stored turn it came with (null when that turn was not stored). */
  seq: number | null;
  at: string;
}

/** A chain of parents is followed at most this far (a corrupt chain is cut, never followed forever). */
const MAX_DEPTH = 10_000;

interface TallyRow {
  id: number;
  agent_id: string;
  session_key: string;
  parent_session_key: string | null;
  spend_total: string | null;
}

function parentRow(db: Database, row: Pick<TallyRow, 'agent_id' | 'parent_session_key'>): TallyRow | undefined {
  if (!row.parent_session_key) return undefined;
  return one<TallyRow>(db, 'SELECT id, agent_id, session_key, parent_session_key, spend_total FROM sessions WHERE agent_id = ? AND session_key = ?', [
    row.agent_id,
    row.parent_session_key,
  ]);
}

/** Adds sign·delta to the rolled-up tally of `start`'s ancestors (not `start` itself), stopping at a cycle back to it. */
function addToAncestors(db: Database, start: TallyRow, delta: SpendTally | null, sign: 1 | -1): void {
  if (!delta) return;
  const seen = new Set<number>([start.id]);
  let cursor = parentRow(db, start);
  for (let depth = 0; cursor && !seen.has(cursor.id) && depth < MAX_DEPTH; depth++) {
    seen.add(cursor.id);
    run(db, 'UPDATE sessions SET spend_total = ? WHERE id = ?', [serialise(addTally(parseTally(cursor.spend_total), delta, sign)), cursor.id]);
    cursor = parentRow(db, cursor);
  }
}

function serialise(tally: SpendTally | null): string | null {
  return tally ? JSON.stringify(tally) : null;
}

function tallyRow(db: Database, sessionId: number): TallyRow & { spend_own: string | null } {
  return one(db, 'SELECT id, agent_id, session_key, parent_session_key, spend_own, spend_total FROM sessions WHERE id = ?', [sessionId])!;
}

/** Stores requests' usage (each key once per session) and adds what was new to the session's and its ancestors' tallies. */
export function applyUsage(db: Database, sessionId: number, entries: UsageEntry[]): void {
  let delta: SpendTally | null = null;
  for (const e of entries) {
    run(
      db,
      `INSERT OR IGNORE INTO turn_usage (session_id, usage_key, seq, model, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd, at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [sessionId, e.key, e.seq, e.model, e.inputTokens, e.outputTokens, e.cacheReadTokens, e.cacheWriteTokens, e.costUsd, e.at],
    );
    if (changes(db) === 1) delta = addTally(delta, tallyOf(e));
  }
  if (!delta) return;
  const row = tallyRow(db, sessionId);
  run(db, 'UPDATE sessions SET spend_own = ?, spend_total = ? WHERE id = ?', [
    serialise(addTally(parseTally(row.spend_own), delta)),
    serialise(addTally(parseTally(row.spend_total), delta)),
    sessionId,
  ]);
  addToAncestors(db, row, delta, 1);
}

/** The usage keys of a session already stored, among `keys`. */
export function storedUsageKeys(db: Database, sessionId: number, keys: string[]): Set<string> {
  const stored = new Set<string>();
  for (const key of keys) if (one(db, 'SELECT 1 FROM turn_usage WHERE session_id = ? AND usage_key = ?', [sessionId, key])) stored.add(key);
  return stored;
}

/**
 * A session's parent changes (or is set): its rolled-up tally leaves the old ancestors and joins
 * the new ones. Call with the row as it was, then let the caller write the new parent, then call
 * the returned function.
 */
export function moveBetweenParents(db: Database, sessionId: number): () => void {
  const before = tallyRow(db, sessionId);
  const total = parseTally(before.spend_total);
  addToAncestors(db, before, total, -1);
  return () => addToAncestors(db, tallyRow(db, sessionId), total, 1);
}

/**
 * A session row just created: its children recorded before it (their parent key names it) bring
 * their rolled-up tallies, which then reach its own ancestors.
 */
export function adoptChildrenTallies(db: Database, sessionId: number): void {
  const row = tallyRow(db, sessionId);
  let sum: SpendTally | null = null;
  const stmt = db.prepare('SELECT spend_total FROM sessions WHERE agent_id = ? AND parent_session_key = ? AND id != ? AND spend_total IS NOT NULL');
  try {
    stmt.bind([row.agent_id, row.session_key, sessionId]);
    while (stmt.step()) sum = addTally(sum, parseTally((stmt.get() as [string])[0]));
  } finally {
    stmt.free();
  }
  if (!sum) return;
  run(db, 'UPDATE sessions SET spend_total = ? WHERE id = ?', [serialise(addTally(parseTally(row.spend_total), sum)), sessionId]);
  addToAncestors(db, row, sum, 1);
}
