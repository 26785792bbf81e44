// A runner that starts an external CLI as a child process (for example `claude -p` or
// `codex exec`): the prompt goes to its stdin, its stdout is the result. The child gets
// AGENT_SESSION_ID (docs/runs.md), and `${AGENT_SESSION_ID}` in its arguments is replaced,
// so whatever it starts in turn (hooks, MCP servers) records its parent.

import { spawn } from 'node:child_process';
import { childEnvironment, expandAgentSession } from '../core/runs';
import { childPrompt, type RunOutput, type RunRequest, type Runner } from './runManager';

export interface ExternalRunnerOptions {
  name: string;
  command: string;
  args?: string[];
  cwd?: string;
  env?: Record<string, string | undefined>;
  /** Cap on captured output. */
  maxOutputBytes?: number;
}

export class ExternalRunner implements Runner {
  readonly name: string;

  constructor(private readonly options: ExternalRunnerOptions) {
    this.name = options.name;
  }

  run(request: RunRequest, signal: AbortSignal): Promise<RunOutput> {
    const { command, args = [], cwd, env = process.env, maxOutputBytes = 4 * 1024 * 1024 } = this.options;
    return new Promise((resolve, reject) => {
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
      let err = '';
      child.stdout.on('data', (c: Buffer) => {
        size += c.length;
        if (size <= maxOutputBytes) out.push(c);
      });
      child.stderr.on('data', (c: Buffer) => (err = (err + c.toString()).slice(-2000)));
      const abort = () => child.kill('SIGTERM');
      signal.addEventListener('abort', abort, { once: true });
      child.on('error', (e) => reject(new Error(`${command}: ${e.message}`)));
      child.on('close', (code) => {
        signal.removeEventListener('abort', abort);
        if (signal.aborted) return reject(new Error('aborted'));
        if (code !== 0) return reject(new Error(`${command} exited with ${code}${err.trim() ? `: ${err.trim().split('\n').pop()}` : ''}`));
        resolve({ content: Buffer.concat(out).toString('utf8').trim() });
      });
      child.stdin.on('error', () => undefined);
      child.stdin.end(childPrompt(request.inherited, request.task));
    });
  }
}
