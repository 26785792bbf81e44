// The built hook command (dist/hook.js <harness>) run as a harness runs it: a child process with the
// payload on stdin. Asynchronous, since the server under test usually lives in the test's process.

import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ROOT } from './child';

export const HOOK = path.join(ROOT, 'dist', 'hook.js');

export interface HookProcessResult {
  status: number | null;
  stdout: string;
  /** What it wrote to stderr (a hook writes nothing there itself; Node's NODE_DEBUG output lands here). */
  stderr: string;
  /** Wall time of the whole process, start to exit. */
  ms: number;
  /** Peak resident memory in MB, when asked for (runHookMeasured); null otherwise or when killed. */
  maxRssMb: number | null;
}

const REPORT_MAX_RSS = path.join(ROOT, 'test', 'fixtures', 'reportMaxRss.cjs');

function spawnHook(harness: string, dataDir: string, payload: unknown, env: NodeJS.ProcessEnv, nodeArgs: string[]): Promise<HookProcessResult> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...nodeArgs, HOOK, harness, '--data-dir', dataDir], {
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c));
    child.stderr.on('data', (c: Buffer) => (stderr += c));
    const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.on('close', (status) => {
      clearTimeout(kill);
      const rss = /max-rss-kb (\d+)/.exec(stderr);
      resolve({ status, stdout, stderr, ms: Date.now() - started, maxRssMb: rss ? Number(rss[1]) / 1024 : null });
    });
    child.stdin.on('error', () => undefined); // a hook may exit before reading all of its stdin
    child.stdin.end(typeof payload === 'string' ? payload : JSON.stringify(payload));
  });
}

/** Runs one hook; a string payload is sent as is (for malformed input), anything else as JSON. Killed after 10 s. */
export function runHook(harness: string, dataDir: string, payload: unknown, env: NodeJS.ProcessEnv = {}): Promise<HookProcessResult> {
  return spawnHook(harness, dataDir, payload, env, []);
}

/** runHook, also reporting the process's peak resident memory (maxRssMb). */
export function runHookMeasured(harness: string, dataDir: string, payload: unknown, env: NodeJS.ProcessEnv = {}): Promise<HookProcessResult> {
  return spawnHook(harness, dataDir, payload, env, ['-r', REPORT_MAX_RSS]);
}

/** Lines of a JSONL file. */
export function jsonl(lines: unknown[]): string {
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}

/** The lines of DIR/hooks.log, where a hook notes each failure; none when it has none. */
export function hooksLog(dataDir: string): string[] {
  const file = path.join(dataDir, 'hooks.log');
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n') : [];
}
