// A small JSON client for a daemon's HTTP API (real fetch to 127.0.0.1), and the built CLI run
// asynchronously, for tests where the daemon answering it runs in the same process.

import { execFile } from 'node:child_process';
import type { Daemon } from '../../src/server/daemon';
import { CLI, ROOT } from './child';

export interface Reply {
  status: number;
  body: any;
}

export function jsonClient(daemon: Daemon, token = daemon.token) {
  const call = async (method: string, route: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> => {
    const res = await fetch(daemon.server.url + route, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: await res.json() };
  };
  return {
    call,
    post: (route: string, body: unknown, headers?: Record<string, string>) => call('POST', route, body, headers),
    get: (route: string) => call('GET', route),
    patch: (route: string, body: unknown) => call('PATCH', route, body),
    del: (route: string) => call('DELETE', route),
  };
}

export type JsonClient = ReturnType<typeof jsonClient>;

/** The built CLI, asynchronously (the daemon answering it may run in this process). */
export function runCliAsync(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { cwd: ROOT, timeout: 30_000, encoding: 'utf8', env }, (err, stdout, stderr) => {
      resolve({ status: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}
