// The full-text index trails the transcript: a write stores its turns and returns; turns are
// tokenised later, in batches — when the store is idle, before any search, and before a snapshot
// is exported — so a search always sees every stored turn while a hook never waits for
// tokenising or FTS segment merges. The index is derived state: it is never journaled, and a
// replayed store catches up the same way.
//
// Segment merges are paced too. FTS4 writes each slice as a small segment and, once 16 pile up on
// one level, merges them all at once; a level-2 or level-3 merge took 50–240 ms (measured at 40,000
// turns), and whoever waited on the store thread waited that long. FTS4's own automerge does not
// run for transactions as small as a slice, so every slice does a bounded share of merge work
// itself ('merge=X,Y': write at most X pages, merging levels that hold at least Y segments), which
// keeps every level below the 16 that forces a full merge.

import type { Database } from 'sql.js';
import { all, metaNumber, run, setMetaNumber } from './db';
import { turnLineReader, type TurnSpan } from './records';

/** Merge work per slice, in pages written: over what a slice of 2 turns adds summed over all levels. */
const MERGE_PAGES_PER_SLICE = 8;
/** A level is merged once it holds this many segments (FTS4 forces a full merge at 16). */
const MERGE_MIN_SEGMENTS = 8;

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
    run(db, `INSERT INTO transcript_fts (transcript_fts) VALUES ('merge=${MERGE_PAGES_PER_SLICE},${MERGE_MIN_SEGMENTS}')`);
    setMetaNumber(db, 'indexed_doc_id', end);
    db.exec('RELEASE index_catch_up');
  } catch (err) {
    db.exec('ROLLBACK TO index_catch_up');
    db.exec('RELEASE index_catch_up');
    throw err;
  }
  return next - end;
}
