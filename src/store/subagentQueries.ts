// What a session's sub-agents did: its child sessions (with their first prompt as the task and
// their last answer as the result) and the runs it spawned, merged where a run has a child session.

import type { Database } from 'sql.js';
import type { SubagentSummary } from '../core/subagentDigest';
import { all, one } from './db';
import { turnLineReader, type TurnSpan } from './records';

interface ChildRow {
  id: number;
  session_key: string;
  harness_agent_type: string | null;
  status: string;
  created_at: string;
}

interface RunRow {
  id: string;
  session_key: string | null;
  runner: string;
  status: string;
  prompt: string | null;
  result_content: string | null;
  error: string | null;
  created_at: string;
}

/** The first or the last turn of a role in a session, as text. */
function turnText(db: Database, sessionId: number, role: 'user' | 'assistant', newest: boolean): string | null {
  const span = one<TurnSpan>(
    db,
    `SELECT segment_id, start, length FROM transcript_turns WHERE session_id = ? AND role = ? ORDER BY seq ${newest ? 'DESC' : 'ASC'} LIMIT 1`,
    [sessionId, role],
  );
  if (!span) return null;
  const line = turnLineReader(db)(span);
  return line.slice(line.indexOf(': ') + 2);
}

/** The sub-agents of one session of one agent, oldest first (at most `limit`, the newest kept). */
export function sessionSubagents(db: Database, agentId: string, key: string, limit = 100): SubagentSummary[] {
  const children = all<ChildRow>(
    db,
    `SELECT id, session_key, harness_agent_type, status, created_at FROM sessions WHERE agent_id = ? AND parent_session_key = ? ORDER BY created_at DESC, id DESC LIMIT ?`,
    [agentId, key, limit],
  );
  const runs = all<RunRow>(
    db,
    `SELECT id, session_key, runner, status, prompt, result_content, error, created_at FROM subagent_runs WHERE agent_id = ? AND parent_session_key = ? ORDER BY created_at DESC LIMIT ?`,
    [agentId, key, limit],
  );
  const byKey = new Map(runs.filter((r) => r.session_key).map((r) => [r.session_key!, r]));
  const out: SubagentSummary[] = children.map((c) => {
    const r = byKey.get(c.session_key);
    byKey.delete(c.session_key);
    return {
      sessionKey: c.session_key,
      runId: r?.id ?? null,
      type: c.harness_agent_type ?? r?.runner ?? null,
      task: r?.prompt ?? turnText(db, c.id, 'user', false),
      status: r ? r.status : c.status,
      result: r ? (r.result_content ?? r.error) : turnText(db, c.id, 'assistant', true),
      at: c.created_at,
    };
  });
  for (const r of runs) {
    if (r.session_key && children.some((c) => c.session_key === r.session_key)) continue;
    out.push({
      sessionKey: r.session_key,
      runId: r.id,
      type: r.runner,
      task: r.prompt,
      status: r.status,
      result: r.result_content ?? r.error,
      at: r.created_at,
    });
  }
  return out.sort((a, b) => a.at.localeCompare(b.at)).slice(-limit);
}
