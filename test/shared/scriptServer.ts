// The loopback server behind the scripted language model (test/shared/scriptedModel): the model
// extension POSTs every request it receives to /reply; this records it and answers with what the
// test's `respond` decides (text parts, or tool calls). 127.0.0.1 only.

import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RecordedRequest, ScriptedReply } from './scriptedModel/extension';

export type { RecordedRequest, ScriptedReply };

export interface ScriptServer {
  url: string;
  /** Every request the model received, oldest first. */
  requests: RecordedRequest[];
  /** Decides the reply to a request (replace it per test); the default echoes a fixed sentence. */
  respond: (request: RecordedRequest, index: number) => ScriptedReply | Promise<ScriptedReply>;
  close(): Promise<void>;
}

/** The text of a recorded request's last user message. */
export function lastUserText(request: RecordedRequest): string {
  const users = request.messages.filter((m) => m.role === 'user');
  const last = users[users.length - 1];
  return (last?.parts ?? []).map((p) => (p.type === 'text' ? p.value : '')).join('');
}

/** All text a request carried (every message, every text part and tool result). */
export function allText(request: RecordedRequest): string {
  return request.messages
    .flatMap((m) => m.parts)
    .map((p) => (p.type === 'text' ? p.value : p.type === 'toolResult' ? p.text : ''))
    .join('\n');
}

export async function startScriptServer(): Promise<ScriptServer> {
  const state: ScriptServer = {
    url: '',
    requests: [],
    respond: () => ({ parts: [{ text: 'The scripted model has no script for this request.' }] }),
    close: () => Promise.resolve(),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        if (req.method !== 'POST' || req.url !== '/reply') {
          res.writeHead(404).end();
          return;
        }
        try {
          const request = JSON.parse(Buffer.concat(chunks).toString('utf8')) as RecordedRequest;
          state.requests.push(request);
          const reply = await state.respond(request, state.requests.length - 1);
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
        } catch (err) {
          res.writeHead(500, { 'content-type': 'text/plain' }).end((err as Error).message);
        }
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}
