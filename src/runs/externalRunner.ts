// A runner that starts an external CLI as a child process (for example `claude -p` or
// `codex exec`): the prompt goes to its stdin, its stdout is the result. The child gets
// AGENT_SESSION_ID (docs/runs.md), and `${AGENT_SESSION_ID}` in its arguments is replaced,
// so whatever it starts in turn (hooks, MCP servers) records its parent; and BATON_RUN_ID, by
// which a restart finds what a crashed server's run left running. Bounded: stdout beyond
// the cap is dropped (and the result says so). The child leads a process group of its own
// (processGroup.ts): when it exits, when it is aborted (timeout, shutdown) and on any other way
// out, the whole group is ended, so nothing it started can outlive the run or hold it open.

import { spawn } from 'node:child_process';
import { agentSessionArgumentProblem, childEnvironment, childPrompt, expandAgentSession, RUN_ID_ENV } from '../core/runs';
import { endGroup, PROCESS_GROUPS } from './processGroup';
import type { RunOutput, RunRequest, Runner } from './runner';

export interface ExternalRunnerOptions {
  name: string;
  command: string;
  args?: string[];
  cwd?: string;
  env?: Record<string, string | undefined>;
  /** Cap on captured stdout. */
  maxOutputBytes?: number;
  /** Told the child's pid (its process group's id) as soon as it has started. */
  onChildStarted?: (request: RunRequest, pid: number) => void;
}

const DEFAULT_MAX_OUTPUT = 4 * 1024 * 1024;
/**
 * After the child has exited, how long its output may still take to arrive. A process it left
 * behind may hold the pipe open for ever: the run does not wait for that.
 */
const DRAIN_MS = 500;

type Exit = { code: number | null; signal: NodeJS.Signals | null } | { error: NodeJS.ErrnoException };

export class ExternalRunner implements Runner {
  readonly name: string;

  constructor(private readonly options: ExternalRunnerOptions) {
    this.name = options.name;
  }

  sessionKeyProblem(sessionKey: string): string | null {
    return agentSessionArgumentProblem(this.options.args ?? [], sessionKey);
  }

  async run(request: RunRequest, signal: AbortSignal): Promise<RunOutput> {
    const { command, args = [], cwd, env = process.env, maxOutputBytes = DEFAULT_MAX_OUTPUT } = this.options;
    if (signal.aborted) throw new Error('aborted before start');
    const problem = this.sessionKeyProblem(request.sessionKey);
    if (problem) throw new Error(`the session key ${problem}`);
    const child = spawn(
      command,
      args.map((a) => expandAgentSession(a, request.sessionKey)),
      {
        cwd: request.context.workspacePath ?? cwd,
        env: { ...childEnvironment(env, request.sessionKey), [RUN_ID_ENV]: request.runId },
        stdio: ['pipe', 'pipe', 'pipe'],
        // Its own process group: ending the run ends everything the child started (docs/runs.md).
        detached: PROCESS_GROUPS,
      },
    );
    const out: Buffer[] = [];
    let size = 0;
    let cut = false;
    let err = '';
    child.stdout.on('data', (c: Buffer) => {
      const room = maxOutputBytes - size;
      if (room <= 0) {
        cut = true;
        return;
      }
      if (c.length > room) cut = true;
      out.push(c.subarray(0, room));
      size += Math.min(c.length, room);
    });
    child.stderr.on('data', (c: Buffer) => (err = (err + c.toString()).slice(-2000)));
    const exited = new Promise<Exit>((resolve) => {
      child.once('exit', (code, killedBy) => resolve({ code, signal: killedBy }));
      child.once('error', (e: NodeJS.ErrnoException) => resolve({ error: e }));
    });
    const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<'aborted'>((resolve) => {
      onAbort = () => resolve('aborted');
      signal.addEventListener('abort', onAbort, { once: true });
    });
    let ending: Promise<void> | undefined;
    const endChildGroup = () => (ending ??= child.pid ? endGroup(child.pid) : Promise.resolve());
    child.stdin.on('error', () => undefined);
    child.stdin.end(childPrompt(request.inherited, request.task, request.brief));
    if (child.pid) this.options.onChildStarted?.(request, child.pid);
    try {
      const first = await Promise.race([exited, aborted]);
      if (first === 'aborted') {
        // The run ends when the group has been ended, not when its pipes close: a process that
        // escaped the group may hold them for ever.
        await endChildGroup();
        throw new Error('aborted');
      }
      if ('error' in first) throw new Error(first.error.code === 'ENOENT' ? `command not found: ${command}` : `${command}: ${first.error.message}`);
      await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, DRAIN_MS))]);
      // Whatever the child left running in its group ends with it.
      await endChildGroup();
      const why = err.trim() ? `: ${err.trim().split('\n').pop()}` : '';
      if (first.code !== 0) throw new Error(`${command} ${first.code === null ? `was killed by ${first.signal}` : `exited with ${first.code}`}${why}`);
      const text = Buffer.concat(out).toString('utf8').trim();
      return { content: cut ? `${text}\n[output cut at ${maxOutputBytes} bytes]` : text };
    } finally {
      if (onAbort) signal.removeEventListener('abort', onAbort);
      // Every way out (an exception included) ends the group and lets go of the pipes.
      await endChildGroup();
      child.stdout.destroy();
      child.stderr.destroy();
    }
  }
}
