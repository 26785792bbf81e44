// The caller's side of the endpoint, one module for every runtime that calls it (docs/architecture.md,
// "One caller per runtime"): the hook command (dist/hook.js), the MCP stdio bridge, the VS Code client
// and the OpenCode plugin (an ES module bundle OpenCode loads). It finds the endpoint (endpoint.json,
// read again on every call: a restarted server has a new port and token), checks that its recorded
// server still holds the data directory, posts within a hard deadline and a reply cap, and writes
// the hooks.log lines of failures. Node built-ins only, no store and no schema library: it is
// bundled into the small hook command and the plugin.

import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { errorClassOf } from '../core/errors';
import { parseJsonSafely } from '../core/safeJson';
import { isAlive, lockHolder } from './lock';
import { layout } from './paths';

export interface EndpointInfo {
  url: string;
  port: number;
  pid: number;
  token: string;
}

/** endpoint.json as written by the server, or null when missing or malformed. */
export function readEndpoint(dataDir: string): EndpointInfo | null {
  try {
    const info = JSON.parse(fs.readFileSync(layout(dataDir).endpoint, 'utf8')) as EndpointInfo;
    return typeof info.port === 'number' && typeof info.token === 'string' ? info : null;
  } catch {
    return null;
  }
}

/**
 * The endpoint when its recorded server is alive: its pid runs, and no other live process holds the
 * data directory's lock. Null for a left-over file of a dead server, or of one whose directory
 * another server has taken over. The one liveness rule of every caller.
 */
export function liveEndpoint(dataDir: string): EndpointInfo | null {
  const info = readEndpoint(dataDir);
  if (!info || !isAlive(info.pid)) return null;
  const holder = lockHolder(layout(dataDir).lock);
  return !holder || holder.pid === info.pid ? info : null;
}

/**
 * The largest reply a caller reads. The server's answers are small; the largest is an inherited block
 * at its largest allowed budget (200,000 estimated tokens, about 800 KB), which fits with room to spare.
 */
export const MAX_REPLY_BYTES = 4 * 1024 * 1024;

/**
 * A failed call whose message this code composed from safe parts (route, status, error code, error
 * class, timing): never the payload or the server's error message (it may quote what was sent), so
 * it may go to hooks.log as it is.
 */
export class EndpointProblem extends Error {
  constructor(
    message: string,
    /** The reply's HTTP status when the server answered (absent: no usable answer, e.g. refused or timed out). */
    readonly status?: number,
    /** The server's stable error code, when the reply carries a well-formed one. */
    readonly code?: string,
  ) {
    super(message);
    this.name = 'EndpointProblem';
  }
}

/** The server's stable error code (`invalid_request`, ...), when the reply carries a well-formed one. */
function replyCode(json: unknown): string | undefined {
  const code = json && typeof json === 'object' ? (json as { code?: unknown }).code : undefined;
  return typeof code === 'string' && /^[a-z_]{1,40}$/.test(code) ? code : undefined;
}

export interface PostOptions {
  /** Epoch ms by which the whole exchange is over, whatever happens. */
  deadline: number;
  headers?: Record<string, string>;
  /** The reply cap; MAX_REPLY_BYTES unless given. */
  maxReplyBytes?: number;
}

/** A reply as it came: its status and its JSON (undefined when the body is not JSON). */
export interface Reply {
  status: number;
  json: unknown;
}

/**
 * POSTs JSON to the endpoint and reads the reply, whatever its status. Rejects with EndpointProblem
 * on a failed connection, a reply over the cap, or when the deadline passes. The deadline is
 * one timer for the whole exchange (connect, send, every byte of the reply): a server that drips its
 * reply a byte at a time cannot stretch it, as an idle timeout would let it.
 */
export function exchange(endpoint: EndpointInfo, route: string, body: unknown, options: PostOptions): Promise<Reply> {
  const started = Date.now();
  const remaining = options.deadline - started;
  if (remaining <= 0) return Promise.reject(new EndpointProblem(`${route}: hook deadline passed`));
  const failed = (what: string, status?: number) => new EndpointProblem(`${route}: ${what} after ${Date.now() - started} ms`, status);
  const payload = Buffer.from(JSON.stringify(body));
  const cap = options.maxReplyBytes ?? MAX_REPLY_BYTES;
  return new Promise<Reply>((resolve, reject) => {
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outcome();
    };
    /** Ends the exchange with `problem`: the socket is dropped, whatever the server still sends. */
    const abandon = (problem: EndpointProblem) => {
      settle(() => reject(problem));
      req.destroy();
    };
    const req = http.request(
      {
        host: '127.0.0.1',
        port: endpoint.port,
        path: route,
        method: 'POST',
        headers: {
          host: `127.0.0.1:${endpoint.port}`,
          authorization: `Bearer ${endpoint.token}`,
          'content-type': 'application/json',
          'content-length': payload.length,
          ...options.headers,
        },
      },
      (res) => {
        const status = res.statusCode ?? 0;
        const announced = Number(res.headers['content-length']);
        if (announced > cap) return abandon(failed(`HTTP ${status} with a reply over ${cap} bytes`));
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > cap) return abandon(failed(`HTTP ${status} with a reply over ${cap} bytes`));
          chunks.push(c);
        });
        res.on('error', (err) => abandon(failed(errorClassOf(err))));
        res.on('aborted', () => abandon(failed('reply cut off')));
        res.on('end', () => {
          let json: unknown;
          try {
            json = parseJsonSafely(Buffer.concat(chunks).toString('utf8'), 'reply');
          } catch {
            json = undefined;
          }
          settle(() => resolve({ status, json }));
        });
      },
    );
    // Both words: `baton doctor` (core/hookHealth.ts) and readers of hooks.log look for either.
    const timer = setTimeout(() => abandon(failed('timed out (timeout)')), remaining);
    req.on('error', (err) => abandon(err instanceof EndpointProblem ? err : failed(errorClassOf(err))));
    req.end(payload);
  });
}

/** POSTs JSON to the endpoint (as `exchange`); the reply's JSON object, else EndpointProblem (non-2xx, or not a JSON object). */
export async function postJson(endpoint: EndpointInfo, route: string, body: unknown, options: PostOptions): Promise<Record<string, unknown>> {
  const started = Date.now();
  const { status, json } = await exchange(endpoint, route, body, options);
  const after = () => `after ${Date.now() - started} ms`;
  if (status < 200 || status >= 300) {
    const code = replyCode(json);
    throw new EndpointProblem(`${route}: HTTP ${status}${code ? ` ${code}` : ''} ${after()}`, status, code);
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json))
    throw new EndpointProblem(`${route}: HTTP ${status} but the reply is not a JSON object ${after()}`, status);
  return json as Record<string, unknown>;
}

/**
 * One line per problem in DIR/hooks.log: `<ISO time> <harness> <event>: <message>` (core/hookHealth.ts
 * reads them). `message` must be built by code from safe parts (routes, statuses, codes, error
 * classes): never the payload (it holds transcript text).
 */
export function logHookProblem(dataDir: string, harness: string, event: string | undefined, message: string): void {
  try {
    const file = path.join(layout(dataDir).dataDir, 'hooks.log');
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    fs.appendFileSync(file, `${new Date().toISOString()} ${harness} ${event || '?'}: ${message.replace(/\s+/g, ' ').slice(0, 300)}\n`, { mode: 0o600 });
  } catch {
    /* logging must not fail the caller either */
  }
}

/**
 * Follows a server-sent-events stream of the endpoint (the server's change events, /api/events):
 * each frame's data to `onData`, `onState` on every connect and loss; reconnects a second after a
 * loss until closed.
 */
export function followEvents(endpoint: EndpointInfo, route: string, onData: (data: string) => void, onState?: (connected: boolean) => void): { close(): void } {
  let closed = false;
  let req: http.ClientRequest | null = null;
  let retry: NodeJS.Timeout | null = null;
  const connect = () => {
    if (closed) return;
    req = http.get(
      { host: '127.0.0.1', port: endpoint.port, path: route, headers: { authorization: `Bearer ${endpoint.token}`, accept: 'text/event-stream' } },
      (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          return schedule();
        }
        onState?.(true);
        let buffer = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk;
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const frame = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const data = frame
              .split('\n')
              .filter((l) => l.startsWith('data: '))
              .map((l) => l.slice(6))
              .join('\n');
            if (data) onData(data);
          }
        });
        res.on('end', schedule);
        res.on('error', schedule);
      },
    );
    req.on('error', schedule);
  };
  const schedule = () => {
    onState?.(false);
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = null;
      connect();
    }, 1000);
  };
  connect();
  return {
    close: () => {
      closed = true;
      if (retry) clearTimeout(retry);
      req?.destroy();
    },
  };
}
