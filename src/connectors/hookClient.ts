// A hook's link to the running endpoint. Hooks run inside the harness's own turn, so this client
// never hurts it: a hard deadline for the whole hook, no retries, errors only logged.

import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { liveEndpoint, type EndpointInfo } from '../server/endpoint';
import { layout } from '../store/paths';

export class HookClient {
  constructor(
    readonly endpoint: EndpointInfo,
    private readonly deadline: number,
    private readonly extraHeaders: Record<string, string> = {},
  ) {}

  static find(dataDir: string, deadline: number, extraHeaders: Record<string, string> = {}): HookClient | null {
    const endpoint = liveEndpoint(dataDir);
    return endpoint ? new HookClient(endpoint, deadline, extraHeaders) : null;
  }

  /** POST JSON to the endpoint; rejects on any non-2xx, or when the hook's deadline passes. */
  post<T = Record<string, unknown>>(route: string, body: unknown): Promise<T> {
    const remaining = this.deadline - Date.now();
    if (remaining <= 0) return Promise.reject(new Error('hook deadline passed'));
    const payload = Buffer.from(JSON.stringify(body));
    return new Promise<T>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port: this.endpoint.port,
          path: route,
          method: 'POST',
          timeout: remaining,
          headers: {
            host: `127.0.0.1:${this.endpoint.port}`,
            authorization: `Bearer ${this.endpoint.token}`,
            'content-type': 'application/json',
            'content-length': payload.length,
            ...this.extraHeaders,
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let json: Record<string, unknown> = {};
            try {
              json = JSON.parse(text) as Record<string, unknown>;
            } catch {
              /* reported below */
            }
            if ((res.statusCode ?? 500) >= 300) reject(new Error(`${route}: HTTP ${res.statusCode} ${String(json.error ?? '')}`.trim()));
            else resolve(json as T);
          });
        },
      );
      const timer = setTimeout(() => req.destroy(new Error(`${route}: timed out`)), remaining);
      req.on('timeout', () => req.destroy(new Error(`${route}: timed out`)));
      req.on('error', reject);
      req.on('close', () => clearTimeout(timer));
      req.end(payload);
    });
  }
}

/** One line per problem in DIR/hooks.log; never the payload (it holds transcript text). */
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
    const timer = setTimeout(() => reject(new Error('stdin not closed in time')), Math.max(1, deadline - Date.now()));
    process.stdin.on('data', (c: Buffer) => {
      size += c.length;
      if (size > maxBytes) {
        clearTimeout(timer);
        reject(new Error('payload too large'));
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
