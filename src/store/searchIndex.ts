// The full-text index trails the transcript: a write stores its turns and returns; turns are
// tokenised later, in batches — when the store is idle, before any search, and before a snapshot
// is exported — so a search always sees every stored turn while a hook never waits for
// tokenising or FTS segment merges. The index is derived state: it is never journaled, and a
// replayed store catches up the same way.
//
// The index is sharded: consecutive runs of SHARD_DOCS documents each go into their own FTS4 table
// (listed in index_shards). FTS4 reads a term's whole doclist, positions included, for every query
// that names it, so one table made a search for a common word or phrase cost more as the store
// grew. A search reads the shards newest first and stops once its ranking window is full, so it
// reads about one shard's worth of a common word however large the store is (queries.ts).
//
// Segment merges are paced too. FTS4 writes each slice as a small segment and, once 16 pile up on
// one level, merges them all at once; a level-2 or level-3 merge took 50–240 ms (measured at 40,000
// turns), and whoever waited on the store thread waited that long. FTS4's own automerge does not
// run for transactions as small as a slice, so every slice does a bounded share of merge work
// itself ('merge=X,Y': write at most X pages, merging levels that hold at least Y segments), which
// keeps every level below the 16 that forces a full merge.

import type { Database } from 'sql.js';
import { all, metaNumber, one, run, setMetaNumber, utf8 } from './db';
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
 * Documents per shard: a common word's doclist in one shard reads in a few ms, and a search for a
 * rare word visits one shard per 16,384 turns (5 at 2,000 sessions of 40 turns). Kept in the meta
 * table as `index_shard_docs` when set; a change applies to shards created afterwards.
 */
export const SHARD_DOCS = 16_384;

export interface IndexShard {
  id: number;
  firstDoc: number;
  /** The FTS4 table holding this shard's documents. */
  table: string;
}

function toShard(row: { id: number; first_doc: number }): IndexShard {
  return { id: row.id, firstDoc: row.first_doc, table: `transcript_fts_${row.id}` };
}

/** The full-text index's shards, newest first. */
export function indexShards(db: Database): IndexShard[] {
  return all<{ id: number; first_doc: number }>(db, 'SELECT id, first_doc FROM index_shards ORDER BY first_doc DESC').map(toShard);
}

/** The shard a document goes into: the newest, or a new one once the newest holds its share. */
function shardFor(db: Database, newest: IndexShard, docId: number, shardDocs: number): IndexShard {
  if (docId - newest.firstDoc < shardDocs) return newest;
  const shard = toShard({ id: newest.id + 1, first_doc: docId });
  db.exec(`CREATE VIRTUAL TABLE ${shard.table} USING fts4 (content="", text, tokenize=unicode61)`);
  run(db, `INSERT INTO ${shard.table} (${shard.table}) VALUES ('automerge=8')`);
  run(db, 'INSERT INTO index_shards (id, first_doc) VALUES (?, ?)', [shard.id, shard.firstDoc]);
  return shard;
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
    const shardDocs = metaNumber(db, 'index_shard_docs', SHARD_DOCS);
    let shard = toShard(one<{ id: number; first_doc: number }>(db, 'SELECT id, first_doc FROM index_shards ORDER BY first_doc DESC LIMIT 1')!);
    const written = new Set<string>();
    for (const turn of turns) {
      shard = shardFor(db, shard, turn.doc_id, shardDocs);
      run(db, `INSERT INTO ${shard.table} (docid, text) VALUES (?, CAST(? AS TEXT))`, [turn.doc_id, utf8(lineOf(turn))]);
      written.add(shard.table);
    }
    for (const table of written) run(db, `INSERT INTO ${table} (${table}) VALUES ('merge=${MERGE_PAGES_PER_SLICE},${MERGE_MIN_SEGMENTS}')`);
    setMetaNumber(db, 'indexed_doc_id', end);
    db.exec('RELEASE index_catch_up');
  } catch (err) {
    db.exec('ROLLBACK TO index_catch_up');
    db.exec('RELEASE index_catch_up');
    throw err;
  }
  return next - end;
}
