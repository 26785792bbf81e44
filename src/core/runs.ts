// Sub-agent runs and parent propagation (docs/runs.md), the pure parts:
// the status lifecycle, the environment and placeholder a spawned process gets, and the text of
// aggregated callback deliveries.

import type { ExecutionMode, RunStatus, SubagentRun } from './types';

export const EXECUTION_MODES: ExecutionMode[] = ['SYNC', 'ASYNC_POLL', 'ASYNC_CALLBACK'];

/** completed and failed are terminal: a finished run never changes again. */
export function isTerminal(status: RunStatus): boolean {
  return status === 'completed' || status === 'failed';
}

/** pending → running → completed | failed; terminal states never change. */
export function canMove(from: RunStatus, to: RunStatus): boolean {
  if (from === to) return false;
  if (from === 'pending') return to === 'running' || to === 'failed';
  if (from === 'running') return to === 'completed' || to === 'failed';
  return false;
}

export const AGENT_SESSION_ENV = 'AGENT_SESSION_ID';
export const AGENT_SESSION_HEADER = 'X-Agent-Session-Id';
const PLACEHOLDER = /\$\{AGENT_SESSION_ID\}/g;

/** Replaces `${AGENT_SESSION_ID}` in a config value (command args, URLs, headers). */
export function expandAgentSession(value: string, sessionKey: string): string {
  return value.replace(PLACEHOLDER, sessionKey);
}

/** The environment a child process gets: the parent's, plus the session it belongs to. */
export function childEnvironment(base: Record<string, string | undefined>, sessionKey: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) if (v !== undefined) env[k] = v;
  env[AGENT_SESSION_ENV] = sessionKey;
  return env;
}

/** The session key of a run's child session: under its parent, so the tree shows it there. */
export function runSessionKey(parentKey: string | null, runId: string): string {
  return parentKey ? `${parentKey}/run-${runId.slice(0, 8)}` : `run-${runId}`;
}

/** One message that delivers every finished callback run to the parent at once. */
export function aggregateDeliveries(runs: SubagentRun[]): string {
  const lines = [`Sub-agent results (${runs.length}):`];
  for (const run of runs) {
    const head = `- run ${run.id} (${run.runner}${run.context.specId ? `, spec ${run.context.specId}` : ''}) ${run.status}`;
    const body = run.status === 'completed' ? (run.resultContent ?? '') : `error: ${run.error ?? 'unknown'}`;
    lines.push(
      head +
        (body
          ? `:\n${body
              .split('\n')
              .map((l) => `  ${l}`)
              .join('\n')}`
          : ''),
    );
  }
  return lines.join('\n');
}
