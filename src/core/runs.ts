// Sub-agent runs and parent propagation (docs/runs.md), the pure parts:
// the status lifecycle, the environment and placeholder a spawned process gets, and the text of
// aggregated callback deliveries.

import { withTask } from './handedContext';
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
/** The run a child process belongs to, inherited by all it starts (docs/runs.md, "After a crash"). */
export const RUN_ID_ENV = 'BATON_RUN_ID';
export const AGENT_SESSION_HEADER = 'X-Agent-Session-Id';
const PLACEHOLDER = /\$\{AGENT_SESSION_ID\}/g;

/** Replaces `${AGENT_SESSION_ID}` in a runner's argument, the one place it is replaced (docs/runs.md). */
export function expandAgentSession(value: string, sessionKey: string): string {
  return value.replace(PLACEHOLDER, sessionKey);
}

/** C0 and C1 control characters, DEL, and the Unicode line and paragraph separators. */
function hasControlCharacter(text: string): boolean {
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || c === 0x2028 || c === 0x2029) return true;
  }
  return false;
}

/**
 * Why `sessionKey` may not be put into these command arguments through `${AGENT_SESSION_ID}`,
 * or null when it may (docs/runs.md, "How a child learns its parent"). The key comes from the
 * caller (its parent's key), while the arguments are the user's: it must not add lines or control
 * characters to them, nor be read as an option where it begins an argument.
 */
export function agentSessionArgumentProblem(args: readonly string[], sessionKey: string): string | null {
  const used = args.filter((a) => a.includes('${AGENT_SESSION_ID}'));
  if (used.length === 0) return null;
  if (hasControlCharacter(sessionKey)) return 'must not contain control characters (a newline, a tab, …)';
  if (sessionKey.startsWith('-') && used.some((a) => a.startsWith('${AGENT_SESSION_ID}'))) return "must not begin with '-' (it would be read as an option)";
  return null;
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

/** What became of one file a run names (docs/runs.md, "What the child is told"). */
export type RunFileStatus = 'included' | 'truncated' | 'missing' | 'binary' | 'outside' | 'not a file' | 'unreadable' | 'over budget' | 'no workspace';

export interface RunFile {
  /** As the run names it. */
  path: string;
  status: RunFileStatus;
  /** Its text (all of it, or the head when truncated). */
  content?: string;
  /** Its size on disk, when known. */
  bytes?: number;
}

const FILE_NOTES: Record<Exclude<RunFileStatus, 'included'>, string> = {
  truncated: 'truncated',
  missing: 'not found',
  binary: 'binary, not included',
  outside: 'outside the workspace, not read',
  'not a file': 'not a regular file, not read',
  unreadable: 'could not be read',
  'over budget': 'not included: the file budget was used up',
  'no workspace': 'not read: the run has no workspace',
};

/** The part of a child's prompt that names its spec and the files it was given. */
export function runBrief(specId: string | undefined, files: RunFile[]): string {
  const parts: string[] = [];
  if (specId) parts.push(`## Spec\n\nThis task belongs to spec ${specId}.`);
  if (files.length) {
    const lines = ['## Files'];
    for (const file of files) {
      const size = file.bytes === undefined ? '' : `, ${file.bytes} bytes`;
      if (file.status === 'included') lines.push('', `### ${file.path}${size}`, '', fence(file.content ?? ''));
      else if (file.status === 'truncated') lines.push('', `### ${file.path} (${FILE_NOTES.truncated}${size})`, '', fence(file.content ?? ''), '[… cut here]');
      else lines.push('', `- ${file.path}: ${FILE_NOTES[file.status]}`);
    }
    parts.push(lines.join('\n'));
  }
  return parts.join('\n\n');
}

/** A code fence longer than any backtick run in the text, so the text cannot close it. */
function fence(text: string): string {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((m) => m.length));
  const mark = '`'.repeat(longest + 1);
  return `${mark}\n${text}${text.endsWith('\n') ? '' : '\n'}${mark}`;
}

/** The prompt a child runs with: what it inherits, its spec and files, then its task. */
export function childPrompt(inherited: string, task: string, brief = ''): string {
  return withTask([inherited, brief].filter((p) => p.trim()).join('\n\n'), task);
}
