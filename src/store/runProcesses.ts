// The processes behind the runs Baton starts itself (POST /api/runs/spawn, `baton run`): which
// Baton process runs each one and the pid and identity of its child (docs/runs.md, "After a
// crash"). Only the server writes these, never a request. When a store opens, no run of its own
// has started yet, so a run still pending or running with a host was left by a process that
// died: it is failed, and handed back so that its child can be ended if it still runs.

import type { RunStatus } from '../core/types';
import { isTerminal } from '../core/runs';
import { all, one } from './db';
import { upsertSession, type CommandContext } from './commands';
import { stripSessionPrefix } from './queries';

export interface RunProcessArgs {
  id: string;
  hostPid?: number;
  childPid?: number;
  childIdentity?: string | null;
}

/** Records who runs a run, or its child; a finished run is left as it is. */
export function recordRunProcess(ctx: CommandContext, args: RunProcessArgs): { recorded: boolean } {
  const row = one<{ status: RunStatus }>(ctx.db, 'SELECT status FROM subagent_runs WHERE id = ?', [args.id]);
  if (!row || isTerminal(row.status)) return { recorded: false };
  const { id, ...set } = args;
  ctx.emit({ t: 'run', id, set, at: ctx.now() });
  return { recorded: true };
}

export interface InterruptedRun {
  runId: string;
  /** Its child, when it was recorded. */
  childPid: number | null;
  childIdentity: string | null;
}

/** Fails every unfinished run a Baton process started (and ends its child session); returns them. */
export function failInterruptedRuns(ctx: CommandContext, args: { error: string }): { runs: InterruptedRun[] } {
  const rows = all<{ id: string; agent_id: string; session_key: string | null; child_pid: number | null; child_identity: string | null }>(
    ctx.db,
    `SELECT id, agent_id, session_key, child_pid, child_identity FROM subagent_runs
     WHERE status IN ('pending', 'running') AND host_pid IS NOT NULL ORDER BY created_at`,
  );
  const runs: InterruptedRun[] = [];
  for (const row of rows) {
    const at = ctx.now();
    ctx.emit({ t: 'run', id: row.id, set: { status: 'failed', error: args.error, finishedAt: at }, at });
    const session = row.session_key
      ? one<{ status: string }>(ctx.db, 'SELECT status FROM sessions WHERE agent_id = ? AND session_key = ?', [
          row.agent_id,
          stripSessionPrefix(row.session_key),
        ])
      : undefined;
    if (row.session_key && session?.status === 'active')
      upsertSession(ctx, {
        agentId: row.agent_id,
        key: row.session_key,
        status: 'failed',
        endedAt: at,
        endReason: args.error.slice(0, 200),
        runtimePath: null,
        claimedAt: null,
      });
    runs.push({ runId: row.id, childPid: row.child_pid, childIdentity: row.child_identity });
  }
  return { runs };
}
