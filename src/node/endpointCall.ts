// The caller's side of the endpoint, one module for every runtime that calls it (docs/architecture.md,
// "One caller per runtime"): the hook command (dist/hook.js), the MCP stdio bridge, the VS Code client
// and the OpenCode plugin (an ES module bundle OpenCode loads). It finds the endpoint (endpoint.json,
// read again on every call: a restarted server has a new port and token), checks that its recorded
// server still holds the data directory, posts within a hard deadline and a reply cap, and writes
// the hooks.log lines of failures. Node built-ins only, no store and no schema library: it is
// bundled into the small hook command and the plugin.

import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
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
  /**
   * The folders the server reads the files a hook payload names under (its transcript roots,
   * resolved through symbolic links): a hook command relays a payload only when the server may
   * read every file it names (connectors/hookRelay.ts). Absent from servers before it.
   */
  hookRoots?: string[];
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
export function replyCode(json: unknown): string | undefined {
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

/** The most a reply's status line and headers may take before its body. */
const MAX_HEAD_BYTES = 16 * 1024;

/** The status and content length of a reply's head (`HTTP/1.1 200 OK\r\n…`), or null when it is not one. */
function parseHead(head: string): { status: number; length: number | null; chunked: boolean } | null {
  const lines = head.split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3})(?: |$)/.exec(lines[0]);
  if (!status) return null;
  let length: number | null = null;
  let chunked = false;
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === 'content-length' && /^\d{1,15}$/.test(value)) length = Number(value);
    if (name === 'transfer-encoding' && /chunked/i.test(value)) chunked = true;
  }
  return { status: Number(status[1]), length, chunked };
}

/**
 * The body of a chunked reply (`<hex size>\r\n<bytes>\r\n` … `0\r\n\r\n`): the bytes once the last
 * chunk has arrived, `incomplete` while more are due, null when the framing is broken.
 */
function unchunk(data: Buffer): Buffer | 'incomplete' | null {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', at);
    if (lineEnd < 0) return data.length - at > 64 ? null : 'incomplete';
    const size = /^([0-9a-fA-F]{1,8})(?:;.*)?$/.exec(data.subarray(at, lineEnd).toString('latin1'));
    if (!size) return null;
    const length = parseInt(size[1], 16);
    if (length === 0) return Buffer.concat(parts); // trailers, if any, are not read
    const start = lineEnd + 2;
    if (data.length < start + length + 2) return 'incomplete';
    parts.push(data.subarray(start, start + length));
    at = start + length + 2;
  }
}

/**
 * POSTs JSON to the endpoint and reads the reply, whatever its status. Rejects with EndpointProblem
 * on a failed connection, a reply over the cap, or when the deadline passes. The deadline is
 * one timer for the whole exchange (connect, send, every byte of the reply): a server that drips its
 * reply a byte at a time cannot stretch it, as an idle timeout would let it.
 *
 * One request on a connection of its own (`connection: close`), written and read on the socket
 * itself: the callers are short-lived processes (a hook command starts on every harness event),
 * and Node's HTTP client costs them more to load than the whole exchange takes (docs/harnesses.md,
 * "What a hook costs"). The server answers every request with a content length; a reply without
 * one is read to the end of the connection.
 */
export function exchange(endpoint: EndpointInfo, route: string, body: unknown, options: PostOptions): Promise<Reply> {
  const started = Date.now();
  const remaining = options.deadline - started;
  if (remaining <= 0) return Promise.reject(new EndpointProblem(`${route}: hook deadline passed`));
  const failed = (what: string, status?: number) => new EndpointProblem(`${route}: ${what} after ${Date.now() - started} ms`, status);
  const payload = Buffer.from(JSON.stringify(body));
  const cap = options.maxReplyBytes ?? MAX_REPLY_BYTES;
  const headers: Record<string, string | number> = {
    host: `127.0.0.1:${endpoint.port}`,
    authorization: `Bearer ${endpoint.token}`,
    'content-type': 'application/json',
    ...options.headers,
    'content-length': payload.length,
    connection: 'close',
  };
  // Header values come from code and the endpoint file: a line break in one would forge a header.
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${String(value).replace(/[\r\n]/g, ' ')}`);
  // A route is sent as given (callers encode what they put in it), so it may hold no space or control character.
  if (/[^\x21-\x7e]/.test(route)) return Promise.reject(new EndpointProblem('the route holds characters a request line cannot carry'));
  const request = Buffer.concat([Buffer.from(`POST ${route} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`, 'latin1'), payload]);
  return new Promise<Reply>((resolve, reject) => {
    let settled = false;
    const socket = net.connect({ host: '127.0.0.1', port: endpoint.port });
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      outcome();
    };
    // Both words: `baton doctor` (core/hookHealth.ts) and readers of hooks.log look for either.
    const timer = setTimeout(() => settle(() => reject(failed('timed out (timeout)'))), remaining);
    let received: Buffer = Buffer.alloc(0);
    let head: { status: number; length: number | null; chunked: boolean } | null | undefined;
    let bodyStart = 0;
    const finish = (complete: boolean) => {
      if (!head) return settle(() => reject(failed(received.length ? 'reply cut off' : 'connection closed without a reply')));
      const status = head.status;
      let bodyBytes = received.subarray(bodyStart, head.length === null ? undefined : bodyStart + head.length);
      if (head.chunked) {
        const whole = unchunk(bodyBytes);
        if (whole === null) return settle(() => reject(failed(`HTTP ${status} with a broken chunked reply`, status)));
        if (whole === 'incomplete') return complete ? undefined : settle(() => reject(failed('reply cut off', status)));
        bodyBytes = whole;
      } else if (!complete && head.length !== null && bodyBytes.length < head.length) return settle(() => reject(failed('reply cut off', status)));
      let json: unknown;
      try {
        json = parseJsonSafely(bodyBytes.toString('utf8'), 'reply');
      } catch {
        json = undefined;
      }
      settle(() => resolve({ status, json }));
    };
    socket.on('connect', () => socket.write(request));
    socket.on('data', (chunk: Buffer) => {
      received = received.length ? Buffer.concat([received, chunk]) : chunk;
      if (!head) {
        const end = received.indexOf('\r\n\r\n');
        if (end < 0) {
          if (received.length > MAX_HEAD_BYTES) settle(() => reject(failed('reply head too large')));
          return;
        }
        head = parseHead(received.subarray(0, end).toString('latin1'));
        if (!head) return settle(() => reject(failed('not an HTTP reply')));
        bodyStart = end + 4;
        if (head.length !== null && head.length > cap) return settle(() => reject(failed(`HTTP ${head!.status} with a reply over ${cap} bytes`, head!.status)));
      }
      const { status, length, chunked } = head;
      if (received.length - bodyStart > cap) return settle(() => reject(failed(`HTTP ${status} with a reply over ${cap} bytes`, status)));
      if (chunked) finish(true);
      else if (length !== null && received.length - bodyStart >= length) finish(true);
    });
    socket.on('end', () => finish(false));
    socket.on('error', (err) => settle(() => reject(failed(errorClassOf(err)))));
    socket.on('close', () => finish(false));
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
