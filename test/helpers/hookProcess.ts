// The built hook command (dist/hook.js <harness>) run as a harness runs it: a child process with the
// payload on stdin. Asynchronous, since the server under test usually lives in the test's process.

import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { ROOT } from './child';

export const HOOK = path.join(ROOT, 'dist', 'hook.js');

export interface HookProcessResult {
  status: number | null;
  stdout: string;
  /** Wall time of the whole process, start to exit. */
  ms: number;
}

/** Runs one hook; a string payload is sent as is (for malformed input), anything else as JSON. Killed after 10 s. */
export function runHook(harness: string, dataDir: string, payload: unknown, env: NodeJS.ProcessEnv = {}): Promise<HookProcessResult> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [HOOK, harness, '--data-dir', dataDir], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c));
    const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.on('exit', (status) => {
      clearTimeout(kill);
      resolve({ status, stdout, ms: Date.now() - started });
    });
    child.stdin.end(typeof payload === 'string' ? payload : JSON.stringify(payload));
  });
}

/** Lines of a JSONL file. */
export function jsonl(lines: unknown[]): string {
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}
