// What the scripted model servers (fakeAnthropic, fakeResponses, fakeChatCompletions) share: reading
// a request's JSON body, recording every request, and listening on 127.0.0.1 with a close that
// drops kept-alive connections.

import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Calls `handle` with the request's body parsed as JSON (undefined when empty or not JSON). */
export function withJsonBody(req: http.IncomingMessage, handle: (body: unknown) => void): void {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: unknown;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      body = undefined;
    }
    handle(body);
  });
}

/** What a scripted model server keeps of each request it gets. */
export interface RecordedJsonRequest {
  seq: number;
  path: string;
  headers: http.IncomingHttpHeaders;

  body: any;
}

/**
 * A server that records every request (its JSON body parsed) into `requests`, answers anything but
 * a POST to a path ending in `endpoint` with a 404, and hands the rest to `answer`.
 */
export function recordingServer<R extends RecordedJsonRequest>(
  requests: R[],
  endpoint: string,
  answer: (record: R, req: http.IncomingMessage, res: http.ServerResponse) => void,
): http.Server {
  return http.createServer((req, res) => {
    withJsonBody(req, (body) => {
      const record = { seq: requests.length, path: (req.url ?? '/').split('?')[0], headers: req.headers, body } as R;
      requests.push(record);
      if (req.method !== 'POST' || !record.path.endsWith(endpoint)) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `fake server: no ${req.method} ${record.path}` } }));
        return;
      }
      answer(record, req, res);
    });
  });
}

/** Listens on a free port of 127.0.0.1. */
export async function listenOnLoopback(server: http.Server): Promise<{ port: number; close(): Promise<void> }> {
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
