// A shard's matches for a query of phrases that must all occur, found from the few documents of one
// of its rare words instead of by FTS4. FTS4 reads the whole position list of every word a query
// names, so "are 0xf68a10cd" read all of "are" in every shard (2–4 ms a shard) to find the two
// turns that hold the identifier. When one of the query's words occurs in few documents of a
// shard, those are the only candidates. Each is split into tokens exactly as the index split it
// (unicode61: see tokensOf), the phrases are matched against the tokens, and the score is BM25
// over the same figures FTS4's matchinfo gives (rows, average length, this row's length, hits,
// rows with hits): the same turns, ranked by the same numbers. What BM25 needs about the other
// phrases (in how many of the shard's rows each occurs) is counted by FTS4 and, in a sealed shard,
// remembered.

import type { Database } from 'sql.js';
import { bm25FromMatchinfo, matchinfoFromBytes } from '../core/rank';
import { all, one, remembered } from './db';
import { turnLineReader, type TurnSpan } from './records';

/** A matching turn with its BM25 score, as the ranking window keeps it. */
export interface RankedTurn extends TurnSpan {
  session_id: number;
  seq: number;
  score: number;
}

/**
 * A word is rare in a shard when at most this many of its documents hold it. A candidate costs
 * about 0.2 ms (its segment's text, its tokens); FTS4 reads a shard's common words in 2–4 ms.
 */
export const RARE_DOCS = 16;
/** Words tried per shard before leaving the shard to FTS4 (a try reads at most RARE_DOCS + 1 docids). */
const TRIES = 2;
/** Per database: `table word` → the shard's documents holding the word (null: too many; see docsHolding). */
const rareDocs = new WeakMap<Database, Map<string, number[] | null>>();
/** Per database: `table phrase` → how many of a sealed shard's rows hold the phrase. */
const phraseRows = new WeakMap<Database, Map<string, number>>();
const tokenizers = new WeakSet<Database>();
// eslint-disable-next-line no-control-regex -- the whole ASCII range, NUL included on purpose
const NON_ASCII = /[^\x00-\x7f]/;
const ASCII_TOKEN = /[a-z0-9]+/g;

/**
 * The documents of a shard holding `word`, when there are at most RARE_DOCS; read in ascending
 * order, FTS4 stops early. A shard only gains documents, so "too many" holds for good even in the
 * newest shard; the list itself only in a sealed one.
 */
function docsHolding(db: Database, table: string, word: string, sealed: boolean): number[] | null {
  return remembered(
    rareDocs,
    db,
    `${table} ${word}`,
    (docs) => sealed || docs === null,
    () => {
      const docs = all<{ docid: number }>(db, `SELECT docid FROM ${table} WHERE ${table} MATCH ? LIMIT ${RARE_DOCS + 1}`, [`"${word}"`]).map((r) => r.docid);
      return docs.length <= RARE_DOCS ? docs : null;
    },
  );
}

/** The tokens of `text` as the index saw them (unicode61: folded, in order). */
function tokensOf(db: Database, text: string): string[] {
  // In ASCII text unicode61's tokens are the runs of letters and digits, lower-cased: read them
  // here (about 10 times faster than through fts3tokenize). Other text goes to the tokenizer itself.
  if (!NON_ASCII.test(text)) return text.toLowerCase().match(ASCII_TOKEN) ?? [];
  if (!tokenizers.has(db)) {
    // A temp table: it lives with the connection, never in the database file or its snapshots.
    db.exec('CREATE VIRTUAL TABLE IF NOT EXISTS temp.turn_tokens USING fts3tokenize(unicode61)');
    tokenizers.add(db);
  }
  // unicode61 tokens are letters and digits only, so a space separates them unambiguously.
  const joined = one<{ tokens: string | null }>(db, "SELECT group_concat(token, ' ') AS tokens FROM temp.turn_tokens WHERE input = ?", [text])?.tokens;
  return joined ? joined.split(' ') : [];
}

/** How many times `phrase` occurs in `tokens` (FTS4 counts overlapping occurrences too). */
function occurrences(tokens: string[], phrase: string[]): number {
  let count = 0;
  for (let i = 0; i + phrase.length <= tokens.length; i++) {
    let j = 0;
    while (j < phrase.length && tokens[i + j] === phrase[j]) j++;
    if (j === phrase.length) count++;
  }
  return count;
}

/**
 * The newest `want` turns of the shard `table` that hold every phrase and pass `filters` (SQL over
 * turns `t` and sessions `s`), scored as the FTS4 ranking scores them; null when none of the
 * query's words is rare in this shard (then FTS4 has to read it). `sealed`: the shard takes no
 * more turns, so what is learnt about it holds.
 */
export function rankFromRareWord(
  db: Database,
  table: string,
  sealed: boolean,
  phrases: string[][],
  filters: string[],
  params: Array<string | number>,
  want: number,
): RankedTurn[] | null {
  // Longer words first: they are the likelier to be rare.
  const words = [...new Set(phrases.flat())].sort((a, b) => b.length - a.length);
  // One word alone: FTS4 reads only its own position list anyway.
  if (words.length < 2) return null;
  let rare: string | null = null;
  let candidates: number[] | null = null;
  for (const word of words.slice(0, TRIES)) {
    candidates = docsHolding(db, table, word, sealed);
    if (candidates) {
      rare = word;
      break;
    }
  }
  if (!rare || !candidates) return null;
  if (candidates.length === 0) return [];

  const rows = all<Omit<RankedTurn, 'score'> & { doc_id: number; in_scope: number }>(
    db,
    `SELECT t.doc_id AS doc_id, t.session_id AS session_id, t.seq AS seq, t.segment_id AS segment_id, t.start AS start, t.length AS length,
            (${filters.length > 0 ? filters.join(' AND ') : '1'}) AS in_scope
     FROM transcript_turns t JOIN sessions s ON s.id = t.session_id
     WHERE t.doc_id IN (${candidates.map(() => '?').join(', ')}) ORDER BY t.doc_id DESC`,
    [...params, ...candidates],
  );
  const lineOf = turnLineReader(db);
  // Every candidate is checked, in scope or not: the phrases holding the rare word occur only in
  // candidates, so their rows-with-hits are counted here, over the whole shard as FTS4 counts them.
  const checked = rows.map((row) => {
    const tokens = tokensOf(db, lineOf(row));
    return { row, length: tokens.length, hits: phrases.map((phrase) => occurrences(tokens, phrase)) };
  });
  const matches = checked.filter((c) => c.row.in_scope && c.hits.every((h) => h > 0)).slice(0, want);
  if (matches.length === 0) return [];

  const rowsWithHits = phrases.map((phrase, p) =>
    phrase.includes(rare!)
      ? checked.filter((c) => c.hits[p] > 0).length
      : remembered(
          phraseRows,
          db,
          `${table} ${phrase.join(' ')}`,
          () => sealed,
          () => Number(one<{ n: number }>(db, `SELECT COUNT(*) AS n FROM ${table} WHERE ${table} MATCH ?`, [`"${phrase.join(' ')}"`])!.n),
        ),
  );
  // The shard's row count and average length, as matchinfo computes them.
  const info = one<{ info: Uint8Array }>(db, `SELECT matchinfo(${table}, 'na') AS info FROM ${table} WHERE ${table} MATCH ? LIMIT 1`, [`"${rare}"`])!.info;
  const [rowCount, averageLength] = matchinfoFromBytes(info);
  return matches.map(({ row, length, hits }) => {
    // matchinfo 'pcnalx' for one column: phrases, columns, rows, average, length, then per phrase
    // [hits here, hits in all rows (unused by BM25), rows with hits].
    const figures = new Uint32Array([phrases.length, 1, rowCount, averageLength, length, ...phrases.flatMap((_, p) => [hits[p], 0, rowsWithHits[p]])]);
    return { session_id: row.session_id, seq: row.seq, segment_id: row.segment_id, start: row.start, length: row.length, score: bm25FromMatchinfo(figures) };
  });
}
