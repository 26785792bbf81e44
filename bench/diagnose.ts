// Where the sql.js store spends its time: run after the benchmark on a private copy of the final
// snapshot (no Store, no worker), timing the pieces of an open, a search and a turn write
// separately. "Whole search" calls the real searchTranscripts; the pieces re-run its SQL, mirrored
// from src/store/queries.ts (ranking window, snippet per hit, turnAtHit) and may lag behind it.

import type { Database } from 'sql.js';
import { compileSearchQuery } from '../src/core/searchQuery';
import { planTranscriptDelta } from '../src/core/transcriptDelta';
import { all, one } from '../src/store/db';
import { registerFunctions } from '../src/store/engine';
import { findSessionRow, RANK_WINDOW, searchTranscripts } from '../src/store/queries';
import { applyRecord } from '../src/store/records';
import { listSnapshots, readSnapshot } from '../src/store/snapshot';
import { loadSqlJs } from '../src/store/sqljs';
import { now, Sample, type Summary } from './stats';
import { mix, prng, type QuerySet, type Workload } from './workload';

export interface Diagnosis {
  imageBytes: number;
  open: { readVerifyMs: number; newDatabaseMs: number; quickCheckMs: number; exportMs: number };
  search: Record<
    'one' | 'two' | 'phrase',
    { total: Summary; matchCount: Summary; rank: Summary; snippets: Summary; turnAtHit: Summary; matchedSegments: number }
  >;
  write: {
    findSessionRow: Summary;
    findSessionRowPlan: string;
    planDelta40: Summary;
    applyTurns: Summary;
    applyTurnsNoFts: Summary;
  };
}

const HIT_OPEN = '\u0002';
const HIT_CLOSE = '\u0003';

function timeSearch(db: Database, query: string) {
  const compiled = compileSearchQuery(query);
  const out = { total: 0, matchCount: 0, rank: 0, snippets: 0, turnAtHit: 0, matched: 0 };
  if (!compiled.match) return out;
  let t0 = now();
  out.matched = Number(one<{ n: number }>(db, 'SELECT COUNT(*) AS n FROM transcript_fts WHERE transcript_fts MATCH ?', [compiled.match])!.n);
  out.matchCount = now() - t0;
  t0 = now();
  searchTranscripts(db, 'all', { query, limit: 10 });
  out.total = now() - t0;
  t0 = now();
  const ranked = all<{ docid: number; session_id: number; score: number }>(
    db,
    `SELECT transcript_fts.docid AS docid, seg.session_id AS session_id, bm25(matchinfo(transcript_fts, 'pcnalx')) AS score
     FROM transcript_fts JOIN transcript_segments seg ON seg.id = transcript_fts.docid JOIN sessions s ON s.id = seg.session_id
     WHERE transcript_fts MATCH ? AND 1 ORDER BY transcript_fts.docid DESC LIMIT ${RANK_WINDOW}`,
    [compiled.match],
  );
  const best = new Map<number, { docid: number; score: number }>();
  for (const row of ranked) {
    const seen = best.get(row.session_id);
    if (!seen || row.score < seen.score) best.set(row.session_id, { docid: row.docid, score: row.score });
  }
  const top = [...best.entries()].sort((a, b) => a[1].score - b[1].score).slice(0, 10);
  out.rank = now() - t0;
  for (const [sessionId, hit] of top) {
    t0 = now();
    one(db, 'SELECT * FROM sessions WHERE id = ?', [sessionId]);
    const snippet = one<{ excerpt: string; first_seq: number }>(
      db,
      `SELECT snippet(transcript_fts, ?, ?, '…', -1, 24) AS excerpt, seg.first_seq AS first_seq
       FROM transcript_fts JOIN transcript_segments seg ON seg.id = transcript_fts.docid
       WHERE transcript_fts MATCH ? AND transcript_fts.docid = ?`,
      [HIT_OPEN, HIT_CLOSE, compiled.match, hit.docid],
    );
    out.snippets += now() - t0;
    t0 = now();
    const segment = one<{ text: string }>(db, 'SELECT text FROM transcript_segments WHERE id = ?', [hit.docid]);
    if (segment && compiled.terms.length > 0) {
      const lower = segment.text.toLowerCase();
      const positions = compiled.terms.map((t) => lower.indexOf(t)).filter((p) => p >= 0);
      if (positions.length > 0) {
        one(db, 'SELECT seq FROM transcript_turns WHERE session_id = ? AND segment_id = ? AND start <= ? ORDER BY start DESC LIMIT 1', [
          sessionId,
          hit.docid,
          Math.min(...positions),
        ]);
      }
    }
    out.turnAtHit += now() - t0;
    void snippet;
  }
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
  log(`diagnose: image ${(imageBytes / 2 ** 20).toFixed(0)} MB, read+verify ${readVerifyMs.toFixed(0)} ms, new Database ${newDatabaseMs.toFixed(0)} ms, quick_check ${quickCheckMs.toFixed(0)} ms, export ${exportMs.toFixed(0)} ms`);

  try {
    const search = {} as Diagnosis['search'];
    for (const kind of ['one', 'two', 'phrase'] as const) {
      const parts = { total: new Sample(), matchCount: new Sample(), rank: new Sample(), snippets: new Sample(), turnAtHit: new Sample() };
      let matched = 0;
      for (const q of queries[kind].slice(0, 100)) {
        const r = timeSearch(db, q);
        parts.total.push(r.total);
        parts.matchCount.push(r.matchCount);
        parts.rank.push(r.rank);
        parts.snippets.push(r.snippets);
        parts.turnAtHit.push(r.turnAtHit);
        matched += r.matched;
      }
      search[kind] = {
        total: parts.total.summary(),
        matchCount: parts.matchCount.summary(),
        rank: parts.rank.summary(),
        snippets: parts.snippets.summary(),
        turnAtHit: parts.turnAtHit.summary(),
        matchedSegments: matched / Math.min(100, queries[kind].length),
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
      const row = one<{ source_turns: number; source_hash: string; pending_turns: string }>(db, 'SELECT source_turns, source_hash, pending_turns FROM sessions WHERE session_key = ?', [keys[s]])!;
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
    };
    const apply = new Sample();
    for (let i = 0; i < 300; i++) applyOnce(apply, i);
    db.exec('DROP TRIGGER transcript_segments_ai; DROP TRIGGER transcript_segments_bu; DROP TRIGGER transcript_segments_au;');
    const applyNoFts = new Sample();
    for (let i = 300; i < 600; i++) applyOnce(applyNoFts, i);
    return {
      imageBytes,
      open: { readVerifyMs, newDatabaseMs, quickCheckMs, exportMs },
      search,
      write: {
        findSessionRow: findRow.summary(),
        findSessionRowPlan: planRows.map((r) => r.detail).join('; '),
        planDelta40: plan.summary(),
        applyTurns: apply.summary(),
        applyTurnsNoFts: applyNoFts.summary(),
      },
    };
  } finally {
    db.close();
  }
}
