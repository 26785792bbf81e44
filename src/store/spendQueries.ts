// What the sessions in scope spent in a window, summed per group and model from the stored requests
// (turn_usage; docs/storage.md, "Spend"), for GET /api/spend and `baton spend`. core/spendReport.ts
// prices and orders the sums.

import type { Database } from 'sql.js';
import type { Scope } from '../core/agents';
import type { ModelTally } from '../core/spend';
import type { SessionSpendRows, SpendRow, SpendSums } from '../core/spendReport';
import { all } from './db';
import { scopeSql } from './scopeSql';

export interface SpendWindow {
  /** Requests at or after this time (ISO 8601). */
  since?: string;
  project?: string;
}

const SUMS = `COUNT(*) AS n, SUM(u.input_tokens) AS "in", SUM(u.output_tokens) AS out, SUM(u.cache_read_tokens) AS cr, SUM(u.cache_write_tokens) AS cw,
  SUM(COALESCE(u.cost_usd, 0)) AS cost, SUM(u.cost_usd IS NOT NULL) AS costed,
  SUM(CASE WHEN u.cost_usd IS NULL THEN u.input_tokens ELSE 0 END) AS uin, SUM(CASE WHEN u.cost_usd IS NULL THEN u.output_tokens ELSE 0 END) AS uout,
  SUM(CASE WHEN u.cost_usd IS NULL THEN u.cache_read_tokens ELSE 0 END) AS ucr, SUM(CASE WHEN u.cost_usd IS NULL THEN u.cache_write_tokens ELSE 0 END) AS ucw`;

type SumRow = ModelTally & { g: string | null; model: string | null };

const tallyOf = (r: SumRow): ModelTally => ({
  n: r.n,
  in: r.in,
  out: r.out,
  cr: r.cr,
  cw: r.cw,
  cost: r.cost,
  costed: r.costed,
  uin: r.uin,
  uout: r.uout,
  ucr: r.ucr,
  ucw: r.ucw,
});

export function spendSums(db: Database, scope: Scope, window: SpendWindow): SpendSums {
  const s = scopeSql(scope);
  const where = [s.sql];
  const params: Array<string | number> = [...s.params];
  if (window.since) {
    where.push('u.at >= ?');
    params.push(window.since);
  }
  if (window.project) {
    where.push('s.project = ?');
    params.push(window.project);
  }
  const from = `FROM turn_usage u JOIN sessions s ON s.id = u.session_id WHERE ${where.join(' AND ')}`;
  const by = (group: string): SpendRow[] =>
    all<SumRow>(db, `SELECT ${group} AS g, u.model AS model, ${SUMS} ${from} GROUP BY g, u.model`, params).map((r) => ({
      group: r.g,
      model: r.model,
      tally: tallyOf(r),
    }));
  const sessions = new Map<number, SessionSpendRows>();
  for (const r of all<SumRow & { sid: number; session_key: string; agent_id: string; title: string | null; harness: string; project: string | null }>(
    db,
    `SELECT u.session_id AS sid, s.session_key, s.agent_id, s.title, s.harness, s.project, u.model AS model, ${SUMS} ${from} GROUP BY u.session_id, u.model`,
    params,
  )) {
    let session = sessions.get(r.sid);
    if (!session) {
      session = { key: r.session_key, agentId: r.agent_id, title: r.title, harness: r.harness, project: r.project, rows: [] };
      sessions.set(r.sid, session);
    }
    session.rows.push({ model: r.model, tally: tallyOf(r) });
  }
  return { byDay: by('substr(u.at, 1, 10)'), byProject: by('s.project'), byHarness: by('s.harness'), sessions: [...sessions.values()] };
}
