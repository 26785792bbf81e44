// What the scripted model servers (fakeAnthropic, fakeResponses, fakeChatCompletions) share: reading
// a request's JSON body, and listening on 127.0.0.1 with a close that drops kept-alive connections.

import type * as http from 'node:http';
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
