// The full-text index trails the transcript: a write stores its turns and returns; turns are
// tokenised later, in batches — when the store is idle, before any search, and before a snapshot
// is exported — so a search always sees every stored turn while a hook never waits for
// tokenising or FTS segment merges. The index is derived state: it is never journaled, and a
// replayed store catches up the same way.

import type { Database } from 'sql.js';
import { all, metaNumber, run, setMetaNumber } from './db';
import { turnLineReader, type TurnSpan } from './records';

/** Turns stored but not yet in the full-text index. */
export function unindexedTurns(db: Database): number {
  return metaNumber(db, 'next_doc_id', 1) - metaNumber(db, 'indexed_doc_id', 1);
}

/**
 * When more than `backlog` turns wait (by default: any), indexes up to `maxTurns` of the oldest
 * (by default: all of them). Returns how many still wait. Runs in a savepoint, so it works inside
 * or outside a transaction.
 */
export function catchUpIndex(db: Database, maxTurns = Infinity, backlog = 0): number {
  const from = metaNumber(db, 'indexed_doc_id', 1);
  const next = metaNumber(db, 'next_doc_id', 1);
  if (next - from <= backlog) return next - from;
  const end = Math.min(next, from + maxTurns);
  db.exec('SAVEPOINT index_catch_up');
  try {
    const turns = all<TurnSpan & { doc_id: number }>(
      db,
      'SELECT doc_id, segment_id, start, length FROM transcript_turns WHERE doc_id >= ? AND doc_id < ? ORDER BY doc_id',
      [from, end],
    );
    const lineOf = turnLineReader(db);
    for (const turn of turns) run(db, 'INSERT INTO transcript_fts (docid, text) VALUES (?, ?)', [turn.doc_id, lineOf(turn)]);
    setMetaNumber(db, 'indexed_doc_id', end);
    db.exec('RELEASE index_catch_up');
  } catch (err) {
    db.exec('ROLLBACK TO index_catch_up');
    db.exec('RELEASE index_catch_up');
    throw err;
  }
  return next - end;
}
