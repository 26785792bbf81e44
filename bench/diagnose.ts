// Where the sql.js store spends its time: run after the benchmark on a private copy of the final
// snapshot (no Store, no worker), timing the pieces of an open, a search and a turn write
// separately. "Whole search" calls the real searchTranscripts; the pieces re-run its SQL, mirrored
// from src/store/queries.ts (ranking window, excerpts cut from the hit turns) and may lag behind it.

import type { Database } from 'sql.js';
import { compileSearchQuery } from '../src/core/searchQuery';
import { buildSnippet } from '../src/core/snippet';
import { planTranscriptDelta } from '../src/core/transcriptDelta';
import { all, one } from '../src/store/db';
import { registerFunctions } from '../src/store/engine/engine';
import { findSessionRow, rankNewestMatches, searchTranscripts } from '../src/store/queries';
import { applyRecord, turnLineReader } from '../src/store/records';
import { catchUpIndex, indexShards } from '../src/store/searchIndex';
import { listSnapshots, readSnapshot } from '../src/store/engine/snapshot';
import { loadSqlJs } from '../src/store/engine/sqljs';
import { now, Sample } from './stats';
import { mix, prng, type QuerySet, type Workload } from './workload';
import type { Diagnosis } from './types';

function timeSearch(db: Database, query: string) {
  const compiled = compileSearchQuery(query);
  const out = { total: 0, matchCount: 0, rank: 0, excerpts: 0, matched: 0 };
  if (!compiled.match) return out;
  let t0 = now();
  for (const { table } of indexShards(db))
    out.matched += Number(one<{ n: number }>(db, `SELECT COUNT(*) AS n FROM ${table} WHERE ${table} MATCH ?`, [compiled.match])!.n);
  out.matchCount = now() - t0;
  t0 = now();
  searchTranscripts(db, 'all', { query, limit: 10 });
  out.total = now() - t0;
  t0 = now();
  const ranked = rankNewestMatches(db, compiled.match, [], [], compiled);
  const best = new Map<number, (typeof ranked)[number]>();
  for (const row of ranked) {
    const seen = best.get(row.session_id);
    if (!seen || row.score < seen.score) best.set(row.session_id, row);
  }
  const top = [...best.values()].sort((a, b) => a.score - b.score).slice(0, 10);
  out.rank = now() - t0;
  t0 = now();
  const lineOf = turnLineReader(db);
  for (const hit of top) {
    one(db, 'SELECT * FROM sessions WHERE id = ?', [hit.session_id]);
    buildSnippet(lineOf(hit), { terms: compiled.terms, prefixTerms: compiled.prefixTerms, open: '[', close: ']' });
  }
  out.excerpts = now() - t0;
  return out;
}

export async function diagnoseSqljs(snapshotDir: string, w: Workload, queries: QuerySet, keys: string[], log: (m: string) => void): Promise<Diagnosis> {
  const SQL = await loadSqlJs();
  const newest = listSnapshots(snapshotDir)[0];
  let t0 = now();
  const { image } = readSnapshot(newest.path);
  const readVerifyMs = now() - t0;
  t0 = now();
  const db = new SQL.Database(image);
  const newDatabaseMs = now() - t0;
  registerFunctions(db);
  t0 = now();
  db.exec('PRAGMA quick_check');
  const quickCheckMs = now() - t0;
  t0 = now();
  const exported = db.export();
  const exportMs = now() - t0;
  const imageBytes = exported.length;
  log(
    `diagnose: image ${(imageBytes / 2 ** 20).toFixed(0)} MB, read+verify ${readVerifyMs.toFixed(0)} ms, new Database ${newDatabaseMs.toFixed(0)} ms, quick_check ${quickCheckMs.toFixed(0)} ms, export ${exportMs.toFixed(0)} ms`,
  );

  try {
    const search = {} as Diagnosis['search'];
    for (const kind of ['one', 'two', 'phrase'] as const) {
      const parts = { total: new Sample(), matchCount: new Sample(), rank: new Sample(), excerpts: new Sample() };
      let matched = 0;
      for (const q of queries[kind].slice(0, 100)) {
        const r = timeSearch(db, q);
        parts.total.push(r.total);
        parts.matchCount.push(r.matchCount);
        parts.rank.push(r.rank);
        parts.excerpts.push(r.excerpts);
        matched += r.matched;
      }
      search[kind] = {
        total: parts.total.summary(),
        matchCount: parts.matchCount.summary(),
        rank: parts.rank.summary(),
        excerpts: parts.excerpts.summary(),
        matchedTurns: matched / Math.min(100, queries[kind].length),
      };
    }

    // Write pieces, each in its own transaction as the engine commits them.
    const pick = prng(mix(w.options.seed, 6));
    const findRow = new Sample();
    const plan = new Sample();
    for (let i = 0; i < 200; i++) {
      const key = keys[Math.floor(pick() * keys.length)];
      t0 = now();
      const row = findSessionRow(db, { agentId: 'default' }, key)!;
      findRow.push(now() - t0);
      if (i < 50) {
        const s = keys.indexOf(key);
        const turns = w.transcript(s, w.options.turns);
        t0 = now();
        planTranscriptDelta({
          cursor: { sourceTurns: row.source_turns, sourceHash: row.source_hash, pending: JSON.parse(row.pending_turns) as string[] },
          incoming: turns,
          fromPayload: [],
          recentStored: [],
          isStored: () => false,
        });
        plan.push(now() - t0);
      }
    }
    const planRows = all<{ detail: string }>(
      db,
      "EXPLAIN QUERY PLAN SELECT s.* FROM sessions s WHERE s.session_key = ? AND (s.agent_id = ? OR s.agent_id IN (SELECT id FROM agents WHERE read_policy = 'shared')) ORDER BY s.updated_at DESC LIMIT 1",
      ['x', 'default'],
    );
    const applyOnce = (sample: Sample, i: number) => {
      const s = Math.floor(pick() * keys.length);
      const text = w.turn(s, 100 + i).text;
      const row = one<{ source_turns: number; source_hash: string; pending_turns: string }>(
        db,
        'SELECT source_turns, source_hash, pending_turns FROM sessions WHERE session_key = ?',
        [keys[s]],
      )!;
      db.exec('BEGIN');
      t0 = now();
      applyRecord(db, {
        t: 'turns',
        agentId: 'default',
        key: keys[s],
        turns: [{ role: 'user', text, hash: `bench${i}` }],
        cursor: { sourceTurns: row.source_turns + 1, sourceHash: row.source_hash, pending: JSON.parse(row.pending_turns) as string[] },
        at: new Date().toISOString(),
      });
      db.exec('COMMIT');
      sample.push(now() - t0);
      t0 = now();
      catchUpIndex(db);
      indexOne.push(now() - t0);
    };
    const apply = new Sample();
    const indexOne = new Sample();
    for (let i = 0; i < 300; i++) applyOnce(apply, i);
    return {
      imageBytes,
      open: { readVerifyMs, newDatabaseMs, quickCheckMs, exportMs },
      search,
      write: {
        findSessionRow: findRow.summary(),
        findSessionRowPlan: planRows.map((r) => r.detail).join('; '),
        planDelta40: plan.summary(),
        applyTurns: apply.summary(),
        indexOneTurn: indexOne.summary(),
      },
    };
  } finally {
    db.close();
  }
}
