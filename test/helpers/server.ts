// Helpers for talking to a real, in-process Baton server over real HTTP on 127.0.0.1, with full
// control of every header (node:http, not fetch), plus store snapshots for "nothing changed" checks.

import { lineLogger } from '../../src/core/logger';
import { strict as assert } from 'node:assert';
import * as http from 'node:http';
import * as net from 'node:net';
import type { ServerConfig } from '../../src/server/config';
import { startDaemon, type Daemon } from '../../src/server/daemon';
import type { Store } from '../../src/store/store';
import { tempDir } from './tmp';

export const LOOPBACK = '127.0.0.1';

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;

  json: any;
}

export interface RawRequestOptions {
  port: number;
  method?: string;
  path: string;
  /** Merged over the defaults (Host: 127.0.0.1:PORT, Connection: close); an undefined value removes a header. */
  headers?: Record<string, string | undefined>;
  /** A plain object is sent as JSON (with Content-Type: application/json unless headers say otherwise). */
  body?: string | Buffer | object;
  timeoutMs?: number;
}

/** Every response seen by rawRequest/rawSocket in this process: the no-CORS rule is checked on all of them. */
export const observedResponses: Array<{ method: string; path: string; status: number; headers: http.IncomingHttpHeaders }> = [];

export function corsHeadersOf(headers: http.IncomingHttpHeaders | Record<string, unknown>): string[] {
  return Object.keys(headers).filter((name) => name.toLowerCase().startsWith('access-control-'));
}

export function assertNoCors(headers: http.IncomingHttpHeaders | Record<string, unknown>, what: string): void {
  assert.deepEqual(corsHeadersOf(headers), [], `${what}: no response may carry an access-control-* header`);
}

function buildHeaders(options: RawRequestOptions, hasJsonBody: boolean): Record<string, string> {
  const merged: Record<string, string | undefined> = {
    host: `${LOOPBACK}:${options.port}`,
    connection: 'close',
    ...(hasJsonBody ? { 'content-type': 'application/json' } : {}),
  };
  for (const [name, value] of Object.entries(options.headers ?? {})) merged[name.toLowerCase()] = value;
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(merged)) if (value !== undefined) out[name] = value;
  return out;
}

/** One HTTP request on a fresh connection to 127.0.0.1; resolves with status, headers, text and parsed JSON (or undefined). */
export function rawRequest(options: RawRequestOptions): Promise<RawResponse> {
  const method = options.method ?? 'GET';
  const isJsonObject = options.body !== undefined && typeof options.body !== 'string' && !Buffer.isBuffer(options.body);
  const payload =
    options.body === undefined ? undefined : isJsonObject ? Buffer.from(JSON.stringify(options.body)) : Buffer.from(options.body as string | Buffer);
  const headers = buildHeaders(options, isJsonObject);
  if (payload && !Object.keys(headers).some((h) => h === 'content-length' || h === 'transfer-encoding')) headers['content-length'] = String(payload.length);
  const timeoutMs = options.timeoutMs ?? 10_000;
  return new Promise<RawResponse>((resolve, reject) => {
    const req = http.request({ host: LOOPBACK, port: options.port, method, path: options.path, headers, agent: false, setHost: false });
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`${method} ${options.path}: no response within ${timeoutMs} ms`));
    }, timeoutMs);
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      res.on('end', () => {
        clearTimeout(timer);
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        observedResponses.push({ method, path: options.path, status: res.statusCode ?? 0, headers: res.headers });
        try {
          assertNoCors(res.headers, `${method} ${options.path} -> ${res.statusCode}`);
        } catch (err) {
          reject(err);
          return;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
    });
    req.end(payload);
  });
}

export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

export interface SocketResult {
  /** Everything the server sent (latin1). */
  text: string;
  /** True when the server closed (or reset) the connection within the wait. */
  closed: boolean;
  elapsedMs: number;
}

/**
 * A raw TCP conversation with 127.0.0.1:port: writes `data` (and then whatever `more` writes), and waits
 * at most `waitMs` for the server to close the connection. With `untilData`, resolves on the first bytes.
 */
export function rawSocket(
  port: number,
  data: string | Buffer,
  opts: { waitMs: number; untilData?: boolean; more?(socket: net.Socket): void },
): Promise<SocketResult> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = net.connect(port, LOOPBACK);
    let text = '';
    let done = false;
    const finish = (closed: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const head = text.split('\r\n\r\n')[0];
      if (head.startsWith('HTTP/')) {
        const headerNames = head
          .split('\r\n')
          .slice(1)
          .map((line) => line.split(':')[0].trim().toLowerCase());
        observedResponses.push({
          method: 'RAW',
          path: String(data).split('\r\n')[0].slice(0, 80),
          status: Number(head.split(' ')[1]),
          headers: Object.fromEntries(headerNames.map((n) => [n, ''])),
        });
      }
      resolve({ text, closed, elapsedMs: Date.now() - started });
    };
    const timer = setTimeout(() => finish(false), opts.waitMs);
    socket.on('data', (d: Buffer) => {
      text += d.toString('latin1');
      if (opts.untilData) finish(false);
    });
    socket.on('error', () => finish(true));
    socket.on('close', () => finish(true));
    socket.on('connect', () => {
      socket.write(data);
      opts.more?.(socket);
    });
  });
}

/**
 * What a rejected request must not change: every session, the table counts and the journal sequence.
 * Background jobs queued by earlier requests (a session end's summary) write on their own: they are
 * let finish first (bounded), so they never count as a change.
 */
export async function storeState(store: Store) {
  for (let i = 0; i < 200 && (await store.read('openJobs', {})).length > 0; i++) await sleep(50);
  return {
    sessions: await store.read('listSessions', { scope: 'all', limit: 1000 }),
    stats: await store.read('stats', {}),
    seq: (await store.status()).seq,
  };
}

export async function assertStoreUnchanged(store: Store, before: Awaited<ReturnType<typeof storeState>>, what: string): Promise<void> {
  const after = await storeState(store);
  assert.equal(after.seq, before.seq, `${what}: the journal sequence must not move`);
  assert.deepEqual(after.stats, before.stats, `${what}: table counts must not change`);
  assert.deepEqual(after.sessions, before.sessions, `${what}: sessions must not change`);
}

export interface TestServer {
  daemon: Daemon;
  port: number;
  token: string;
  dataDir: string;
  logs: string[];
  store: Store;
}

/** startDaemon on a fresh temp dir and any free port, collecting log lines. Call daemon.stop() after. */
export async function startTestServer(config: Partial<ServerConfig> = {}): Promise<TestServer> {
  const dataDir = tempDir('baton-sec-');
  const logs: string[] = [];
  const daemon = await startDaemon({ dataDir, port: 0, config, logger: lineLogger((line) => logs.push(line)) });
  return { daemon, port: daemon.server.port, token: daemon.token, dataDir, logs, store: daemon.store };
}

/** Resolves after ms (bounded waits only). */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
