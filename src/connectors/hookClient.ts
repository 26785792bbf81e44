// A hook's link to the running endpoint. Hooks run inside the harness's own turn, so this client
// never hurts it: a hard deadline for the whole hook, no retries, errors only logged. hooks.log
// lines name the event, the route, the status, the duration and the error class: never payload
// text, the server's error message (it may quote what was sent) or a parse error's excerpt.

import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { ApiClient, type Transport } from '../api/client';
import { pathOf, ROUTES, type RouteId } from '../api/routes';
import { errorClassOf } from '../core/errors';
import { parseJsonSafely } from '../core/safeJson';
import { liveEndpoint, type EndpointInfo } from '../node/endpoint';
import { layout } from '../node/paths';

/**
 * The largest reply a hook reads. The server's answers are small; the largest is an inherited block
 * at its largest allowed budget (200,000 estimated tokens, about 800 KB), which fits with room to spare.
 */
export const MAX_REPLY_BYTES = 4 * 1024 * 1024;

/** A hook failure whose message this code composed from safe parts (route, status, error code, timing). */
export class HookProblem extends Error {
  constructor(
    message: string,
    /** The reply's HTTP status and error code, when the server answered with an error. */
    readonly status?: number,
    readonly code?: string,
  ) {
    super(message);
    this.name = 'HookProblem';
  }
}

/** The server's stable error code (`invalid_request`, ...), when the reply carries a well-formed one. */
function replyCode(json: unknown): string {
  const code = json && typeof json === 'object' ? (json as { code?: unknown }).code : undefined;
  return typeof code === 'string' && /^[a-z_]{1,40}$/.test(code) ? ` ${code}` : '';
}

/** The hook's transport for the API client (src/api/client.ts): POSTs within the hook's deadline. */
export class HookClient implements Transport {
  constructor(
    readonly endpoint: EndpointInfo,
    private readonly deadline: number,
    private readonly extraHeaders: Record<string, string> = {},
  ) {}

  /** An API client over the running endpoint of `dataDir`, or null when none runs. */
  static find(dataDir: string, deadline: number, extraHeaders: Record<string, string> = {}): ApiClient | null {
    const endpoint = liveEndpoint(dataDir);
    return endpoint ? new ApiClient(new HookClient(endpoint, deadline, extraHeaders)) : null;
  }

  send(id: RouteId, input: { params: Record<string, string>; body: unknown }): Promise<unknown> {
    if (ROUTES[id].method !== 'POST') return Promise.reject(new HookProblem(`${ROUTES[id].path}: a hook only posts`));
    return this.post(pathOf(id, input.params), input.body ?? {});
  }

  /**
   * POST JSON to the endpoint; rejects on any non-2xx, a reply that is not a JSON object, a reply
   * over MAX_REPLY_BYTES, or when the hook's deadline passes. The deadline is one timer for the
   * whole exchange (connect, send, every byte of the reply): a server that drips its reply a byte
   * at a time cannot stretch it, as an idle timeout would let it.
   */
  private post<T = Record<string, unknown>>(route: string, body: unknown): Promise<T> {
    const started = Date.now();
    const remaining = this.deadline - started;
    if (remaining <= 0) return Promise.reject(new HookProblem(`${route}: hook deadline passed`));
    const failed = (what: string, status?: number, code?: string) => new HookProblem(`${route}: ${what} after ${Date.now() - started} ms`, status, code);
    const payload = Buffer.from(JSON.stringify(body));
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const settle = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        outcome();
      };
      /** Ends the exchange with `problem`: the socket is dropped, whatever the server still sends. */
      const abandon = (problem: HookProblem) => {
        settle(() => reject(problem));
        req.destroy();
      };
      const req = http.request(
        {
          host: '127.0.0.1',
          port: this.endpoint.port,
          path: route,
          method: 'POST',
          headers: {
            host: `127.0.0.1:${this.endpoint.port}`,
            authorization: `Bearer ${this.endpoint.token}`,
            'content-type': 'application/json',
            'content-length': payload.length,
            ...this.extraHeaders,
          },
        },
        (res) => {
          const announced = Number(res.headers['content-length']);
          if (announced > MAX_REPLY_BYTES) return abandon(failed(`HTTP ${res.statusCode ?? 0} with a reply over ${MAX_REPLY_BYTES} bytes`));
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            size += c.length;
            if (size > MAX_REPLY_BYTES) return abandon(failed(`HTTP ${res.statusCode ?? 0} with a reply over ${MAX_REPLY_BYTES} bytes`));
            chunks.push(c);
          });
          res.on('error', (err) => abandon(failed(errorClassOf(err))));
          res.on('aborted', () => abandon(failed('reply cut off')));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let json: unknown;
            try {
              json = parseJsonSafely(text, 'reply');
            } catch {
              json = undefined;
            }
            const status = res.statusCode ?? 0;
            settle(() => {
              if (status < 200 || status >= 300) reject(failed(`HTTP ${status}${replyCode(json)}`, status, replyCode(json).trim() || undefined));
              else if (json === null || typeof json !== 'object' || Array.isArray(json)) reject(failed(`HTTP ${status} but the reply is not a JSON object`));
              else resolve(json as T);
            });
          });
        },
      );
      const timer = setTimeout(() => abandon(failed('timed out')), remaining);
      req.on('error', (err) => abandon(err instanceof HookProblem ? err : failed(errorClassOf(err))));
      req.end(payload);
    });
  }
}

/**
 * One line per problem in DIR/hooks.log. `message` must be built by this code from safe parts
 * (routes, statuses, codes, error classes): never the payload (it holds transcript text).
 */
export function logHookProblem(dataDir: string, harness: string, event: string, message: string): void {
  try {
    const file = path.join(layout(dataDir).dataDir, 'hooks.log');
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    fs.appendFileSync(file, `${new Date().toISOString()} ${harness} ${event || '?'}: ${message.replace(/\s+/g, ' ').slice(0, 300)}\n`, { mode: 0o600 });
  } catch {
    /* logging must not fail the hook either */
  }
}

/** Reads all of stdin, up to a cap, within the deadline. */
export function readStdin(deadline: number, maxBytes = 16 * 1024 * 1024): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const timer = setTimeout(() => reject(new HookProblem('stdin: not closed in time')), Math.max(1, deadline - Date.now()));
    process.stdin.on('data', (c: Buffer) => {
      size += c.length;
      if (size > maxBytes) {
        clearTimeout(timer);
        reject(new HookProblem('stdin: payload too large'));
        process.stdin.destroy();
        return;
      }
      chunks.push(c);
    });
    process.stdin.on('end', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
    process.stdin.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}
