// Running the real Claude Code CLI and the built `baton` CLI from end-to-end tests without
// blocking the event loop (the Baton daemon under test lives in the test process and must answer
// their hooks and calls meanwhile).

import { spawn } from 'node:child_process';
import * as path from 'node:path';

// The repository and its built CLI, as test/helpers/child.ts has them (test/shared/ imports nothing
// else of test/: docs/architecture.md).
const ROOT = path.resolve(__dirname, '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');

export const CLAUDE_TIMEOUT_MS = 120_000;
const CLI_TIMEOUT_MS = 30_000;

/** The real CLI (devDependency); BATON_TEST_CLAUDE_BIN may point at another install of the same version. */
export function claudeBin(): string {
  return process.env.BATON_TEST_CLAUDE_BIN || path.join(ROOT, 'node_modules', '.bin', 'claude');
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  ms: number;
}

/** Runs a command asynchronously in its own process group; on timeout or exit, kills that group (only it). */
export function run(command: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number }): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(command, args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, opts.timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      // Whatever it left running in its group (MCP servers, sub-processes) ends with it.
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // the group is already gone
      }
      resolve({ code, signal, stdout, stderr, timedOut, ms: Date.now() - started });
    });
  });
}

/** `node dist/cli.js …` asynchronously, from the repo root. */
export function baton(args: string[], env: NodeJS.ProcessEnv): Promise<RunResult> {
  return run(process.execPath, [CLI, ...args], { cwd: ROOT, env, timeoutMs: CLI_TIMEOUT_MS });
}

/**
 * A clean environment for a harness CLI under test: this PATH, a HOME and TMPDIR of its own,
 * loopback never proxied, and nothing of the developer's or CI's harness or Baton settings.
 */
export function cleanEnv(home: string, tmp: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: home, TMPDIR: tmp, LANG: 'C.UTF-8', NO_PROXY: '127.0.0.1,localhost', no_proxy: '127.0.0.1,localhost', ...extra };
}

/** Claude Code's environment for an offline run against the fake Messages server. */
export function claudeEnv(base: NodeJS.ProcessEnv, opts: { configDir: string; tmp: string; fakeUrl: string }): NodeJS.ProcessEnv {
  return {
    ...base,
    CLAUDE_CONFIG_DIR: opts.configDir,
    CLAUDE_CODE_TMPDIR: opts.tmp,
    ANTHROPIC_BASE_URL: opts.fakeUrl,
    ANTHROPIC_API_KEY: 'sk-ant-fake-e2e',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_ERROR_REPORTING: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  };
}
