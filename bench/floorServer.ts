// The floor under the hook endpoint's latency on this machine (bench/http.ts): an HTTP server on
// 127.0.0.1 that does only what every hook request must — read and parse the JSON body, one round
// trip to a worker thread that appends to a file and fdatasyncs it on its own thread (as the store's
// journal does outside snapshots), a JSON reply. No token check, no validation, no database.
// Started with the data directory as its argument; writes endpoint.json and prints "listening on
// URL" like `baton serve`.

import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';

const dataDir = process.argv[2];
const worker = new Worker(
  `const { parentPort, workerData } = require('node:worker_threads');
   const fs = require('node:fs');
   const fd = fs.openSync(workerData, 'a');
   parentPort.on('message', (m) => { fs.writeSync(fd, Buffer.from(JSON.stringify(m))); fs.fdatasyncSync(fd); parentPort.postMessage(m.id); });`,
  { eval: true, workerData: path.join(dataDir, 'floor.log') },
);
const waiting = new Map<number, () => void>();
let nextId = 0;
worker.on('message', (id: number) => {
  waiting.get(id)?.();
  waiting.delete(id);
});

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    const id = nextId++;
    waiting.set(id, () => {
      const out = JSON.stringify({ ok: true, sessionKey: body.sessionKey ?? null });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(out) });
      res.end(out);
    });
    worker.postMessage({ id, body });
  });
});

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as { port: number };
  fs.writeFileSync(path.join(dataDir, 'endpoint.json'), JSON.stringify({ url: `http://127.0.0.1:${port}`, port, pid: process.pid, token: 'floor' }));
  process.stdout.write(`listening on http://127.0.0.1:${port}\n`);
});
process.on('SIGTERM', () => {
  server.close();
  void worker.terminate().then(() => process.exit(0));
});
