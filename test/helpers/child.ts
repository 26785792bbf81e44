// Runs TypeScript fixtures and the built CLI as real child processes.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';

export const ROOT = path.resolve(__dirname, '..', '..');
export const CLI = path.join(ROOT, 'dist', 'cli.js');

/** Calls `onLine` with each whole line the child prints on stdout, in order (a partial last line waits for its newline). */
export function onStdoutLines(child: ChildProcess, onLine: (line: string) => void): void {
  let buffer = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      onLine(line);
    }
  });
}

export function startFixture(name: string, args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'test', 'fixtures', name), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[], options: { env?: NodeJS.ProcessEnv; input?: string; timeout?: number } = {}): CliResult {
  const result = spawnSync(process.execPath, [CLI, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...options.env },
    input: options.input,
    encoding: 'utf8',
    timeout: options.timeout ?? 30_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}
