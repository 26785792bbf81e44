// A runner that starts an external CLI as a child process (for example `claude -p` or
// `codex exec`): the prompt goes to its stdin, its stdout is the result. The child gets
// AGENT_SESSION_ID (docs/runs.md), and `${AGENT_SESSION_ID}` in its arguments is replaced,
// so whatever it starts in turn (hooks, MCP servers) records its parent. Bounded: stdout beyond
// the cap is dropped (and the result says so); an abort (timeout, shutdown) ends the child with
// SIGTERM, then SIGKILL if it lingers.

import { spawn } from 'node:child_process';
import { childEnvironment, childPrompt, expandAgentSession } from '../core/runs';
import type { RunOutput, RunRequest, Runner } from './runner';

export interface ExternalRunnerOptions {
  name: string;
  command: string;
  args?: string[];
  cwd?: string;
  env?: Record<string, string | undefined>;
  /** Cap on captured stdout. */
  maxOutputBytes?: number;
}

const DEFAULT_MAX_OUTPUT = 4 * 1024 * 1024;
/** How long a child may take to exit after SIGTERM before it is killed. */
const KILL_GRACE_MS = 2000;

export class ExternalRunner implements Runner {
  readonly name: string;

  constructor(private readonly options: ExternalRunnerOptions) {
    this.name = options.name;
  }

  run(request: RunRequest, signal: AbortSignal): Promise<RunOutput> {
    const { command, args = [], cwd, env = process.env, maxOutputBytes = DEFAULT_MAX_OUTPUT } = this.options;
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(new Error('aborted before start'));
      const child = spawn(
        command,
        args.map((a) => expandAgentSession(a, request.sessionKey)),
        {
          cwd: request.context.workspacePath ?? cwd,
          env: childEnvironment(env, request.sessionKey),
          stdio: ['pipe', 'pipe', 'pipe'],
        },
      );
      const out: Buffer[] = [];
      let size = 0;
      let cut = false;
      let err = '';
      let killer: NodeJS.Timeout | undefined;
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
      const abort = () => {
        child.kill('SIGTERM');
        killer = setTimeout(() => child.kill('SIGKILL'), KILL_GRACE_MS);
        killer.unref();
      };
      signal.addEventListener('abort', abort, { once: true });
      let settled = false;
      const finish = (fn: () => void) => {
        if (settled) return;
        settled = true;
        signal.removeEventListener('abort', abort);
        if (killer) clearTimeout(killer);
        fn();
      };
      child.on('error', (e: NodeJS.ErrnoException) =>
        finish(() => reject(new Error(e.code === 'ENOENT' ? `command not found: ${command}` : `${command}: ${e.message}`))),
      );
      child.on('close', (code, killedBy) =>
        finish(() => {
          if (signal.aborted) return reject(new Error('aborted'));
          const why = err.trim() ? `: ${err.trim().split('\n').pop()}` : '';
          if (code !== 0) return reject(new Error(`${command} ${code === null ? `was killed by ${killedBy}` : `exited with ${code}`}${why}`));
          const text = Buffer.concat(out).toString('utf8').trim();
          resolve({ content: cut ? `${text}\n[output cut at ${maxOutputBytes} bytes]` : text });
        }),
      );
      child.stdin.on('error', () => undefined);
      child.stdin.end(childPrompt(request.inherited, request.task, request.brief));
    });
  }
}
