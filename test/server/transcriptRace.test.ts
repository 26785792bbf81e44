// transcriptPath under attack: while a separate process keeps swapping the named path between a
// regular file under the allowed root, a symlink to a secret outside it, a FIFO and nothing (and a
// directory on the way between a real folder and a symlink to an outside folder), thousands of
// hook requests name that path. A real server on 127.0.0.1, real files in temp dirs, no mocks.
// The secret must never be stored (read back over the API and grepped in every file of the data
// dir), and /api/health must keep answering quickly throughout (a FIFO must not block the server).

import { strict as assert } from 'node:assert';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { UNREADABLE_TRANSCRIPT } from '../../src/server/transcriptSource';
import { bearer, rawRequest, sleep, startTestServer, type RawResponse, type TestServer } from '../helpers/server';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';

const HARNESS = 'claude-code';
const SECRET = 'OUTSIDE_SECRET_RACE_7f3e9c';
const ALLOWED_TEXT = 'allowed transcript about herons';
const REQUESTS = 3000;
const CONCURRENCY = 12;
const HEALTH_BOUND_MS = 2000;
const SWAP_LIMIT = 400_000;
const SWAP_MS_LIMIT = 25_000;

/**
 * The swapper, run as its own process so it races the server for real. Path A (root/live.json)
 * cycles: regular file, symlink to the outside secret, FIFO, missing. Path B's folder (root/sub)
 * cycles: real folder holding an allowed file, symlink to the outside folder (holding the secret
 * under the same name). Each change is a rename over the old entry (atomic) where the kernel
 * allows it. Stops when stdin closes, after SWAP_LIMIT swaps or after SWAP_MS_LIMIT.
 */
const SWAPPER = `
const fs = require('fs'), path = require('path');
const { root, outside, limit, ms } = JSON.parse(process.env.SWAP_CONF);
const live = path.join(root, 'live.json'), sub = path.join(root, 'sub'), aside = path.join(root, 'sub-aside');
const reg = path.join(root, 'reg-src.json'), fifo = path.join(root, 'fifo-src');
let stop = false, swaps = 0, errors = 0, i = 0;
process.stdin.on('end', () => { stop = true; }).resume();
const tmp = () => path.join(root, '.tmp-' + (i++));
function step(k) {
  switch (k % 6) {
    case 0: { const t = tmp(); fs.linkSync(reg, t); fs.renameSync(t, live); break; }
    case 1: { const t = tmp(); fs.symlinkSync(path.join(outside, 'live.json'), t); fs.renameSync(t, live); break; }
    case 2: { const t = tmp(); fs.linkSync(fifo, t); fs.renameSync(t, live); break; }
    case 3: { fs.rmSync(live, { force: true }); break; }
    case 4: { fs.renameSync(sub, aside); const t = tmp(); fs.symlinkSync(outside, t); fs.renameSync(t, sub); break; }
    case 5: { fs.unlinkSync(sub); fs.renameSync(aside, sub); break; }
  }
}
(async () => {
  const deadline = Date.now() + ms;
  let k = 0;
  while (!stop && swaps < limit && Date.now() < deadline) {
    for (let j = 0; j < 60; j++, k++) {
      try { step(k); swaps++; } catch { errors++; }
    }
    await new Promise((r) => setImmediate(r));
  }
  process.stdout.write(JSON.stringify({ swaps, errors }));
})();
`;

function grepTree(dir: string, needle: string): string[] {
  const hits: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, e.name);
      if (e.isDirectory()) walk(full);
      else if (e.isFile() && fs.readFileSync(full).includes(needle)) hits.push(full);
    }
  };
  walk(dir);
  return hits;
}

describe('transcriptPath read race (real HTTP on 127.0.0.1, real files)', function () {
  this.timeout(60_000);
  after(cleanupTempDirs);

  let s: TestServer;
  let root: string;
  let outside: string;

  before(async function () {
    if (process.platform === 'win32') this.skip(); // FIFOs and this kind of swap are POSIX
    root = tempDir('baton-race-root-');
    outside = tempDir('baton-race-outside-');
    const secretJson = JSON.stringify([{ role: 'user', content: SECRET }]);
    fs.writeFileSync(path.join(outside, 'live.json'), secretJson);
    fs.writeFileSync(path.join(root, 'reg-src.json'), JSON.stringify([{ role: 'user', content: ALLOWED_TEXT }]));
    fs.mkdirSync(path.join(root, 'sub'));
    fs.writeFileSync(path.join(root, 'sub', 'live.json'), JSON.stringify([{ role: 'user', content: ALLOWED_TEXT + ' (folder)' }]));
    const made = spawnSync('mkfifo', [path.join(root, 'fifo-src')]);
    assert.equal(made.status, 0, `mkfifo: ${made.stderr}`);
    s = await startTestServer({ transcriptRoots: [root], maxTranscriptBytes: 4096 });
  });
  after(async () => {
    await s?.daemon.stop();
  });

  it('a FIFO under the root is refused at once and does not block the server', async () => {
    const fifo = path.join(root, 'fifo-src');
    const res = await rawRequest({
      port: s.port,
      method: 'POST',
      path: '/api/hooks/user-prompt-submit',
      headers: bearer(s.token),
      body: { harness: HARNESS, sessionKey: 'fifo-once', transcriptPath: fifo },
      timeoutMs: 3000,
    });
    assert.equal(res.status, 400, res.text);
    assert.equal(res.json.error, 'transcriptPath is not a regular file');
    const health = await rawRequest({ port: s.port, path: '/api/health', timeoutMs: 1000 });
    assert.equal(health.status, 200);
  });

  it('a missing file and a file outside the roots get the same answer', async () => {
    const answers = [];
    for (const transcriptPath of [
      path.join(root, 'nope.json'),
      path.join(outside, 'live.json'),
      path.join(outside, 'nope.json'),
      '/etc/passwd',
      '/etc/no-such-file',
    ]) {
      const res = await rawRequest({
        port: s.port,
        method: 'POST',
        path: '/api/hooks/user-prompt-submit',
        headers: bearer(s.token),
        body: { harness: HARNESS, sessionKey: 'same-answer', transcriptPath },
      });
      assert.equal(res.status, 400, res.text);
      answers.push(res.json.error);
    }
    assert.deepEqual(new Set(answers), new Set([UNREADABLE_TRANSCRIPT]));
  });

  it('never stores the outside secret while the path is swapped under thousands of requests, and health keeps answering', async () => {
    const swapper = spawn(process.execPath, ['-e', SWAPPER], {
      env: { ...process.env, SWAP_CONF: JSON.stringify({ root, outside, limit: SWAP_LIMIT, ms: SWAP_MS_LIMIT }) },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let swapOut = '';
    let swapErr = '';
    swapper.stdout.on('data', (d: Buffer) => (swapOut += d.toString()));
    swapper.stderr.on('data', (d: Buffer) => (swapErr += d.toString()));
    const swapperDone = new Promise<number | null>((resolve) => swapper.on('exit', (code) => resolve(code)));

    // Health, polled throughout: every answer must come within the bound.
    let hooksDone = false;
    const healthLatencies: number[] = [];
    const healthLoop = (async () => {
      while (!hooksDone) {
        const started = Date.now();
        const res = await rawRequest({ port: s.port, path: '/api/health', timeoutMs: HEALTH_BOUND_MS });
        assert.equal(res.status, 200);
        healthLatencies.push(Date.now() - started);
        await sleep(25);
      }
    })();
    healthLoop.catch(() => undefined); // awaited (and its failure reported) after the requests

    const paths = [path.join(root, 'live.json'), path.join(root, 'sub', 'live.json')];
    const statuses = new Map<number, number>();
    const errors = new Map<string, number>();
    const bad: RawResponse[] = [];
    let next = 0;
    const worker = async () => {
      while (next < REQUESTS) {
        const n = next++;
        const res = await rawRequest({
          port: s.port,
          method: 'POST',
          path: n % 5 === 4 ? '/api/hooks/session-checkpoint-extract' : '/api/hooks/user-prompt-submit',
          headers: bearer(s.token),
          body: { harness: HARNESS, sessionKey: `race-${n % 8}`, transcriptPath: paths[n % 2] },
          timeoutMs: 10_000,
        });
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status === 400) errors.set(res.json?.error, (errors.get(res.json?.error) ?? 0) + 1);
        if (res.text.includes(SECRET) || (res.status !== 200 && res.status !== 400)) bad.push(res);
      }
    };
    const started = Date.now();
    try {
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    } finally {
      hooksDone = true;
      swapper.stdin.end();
    }
    const elapsed = Date.now() - started;
    await healthLoop;
    assert.equal(await swapperDone, 0, swapErr);
    const swapped = JSON.parse(swapOut) as { swaps: number; errors: number };

    // The race really ran: thousands of swaps during the requests, and both outcomes happened.
    assert.ok(swapped.swaps >= 2000, `thousands of swaps (${JSON.stringify(swapped)}) in ${elapsed} ms`);
    assert.deepEqual(
      bad.map((r) => `${r.status} ${r.text.slice(0, 200)}`),
      [],
      'every answer is 200 or 400, and none echoes the secret',
    );
    assert.ok((statuses.get(200) ?? 0) > 0, `some reads of the allowed file succeeded: ${JSON.stringify([...statuses])}`);
    assert.ok((statuses.get(400) ?? 0) > 0, `some requests were refused: ${JSON.stringify([...statuses])}`);
    // Refusals say only what they may: the one answer for missing/outside, or what is wrong with a file under the root.
    const allowedMessages = new Set([UNREADABLE_TRANSCRIPT, 'transcriptPath is not a regular file']);
    for (const message of errors.keys()) assert.ok(allowedMessages.has(message), `unexpected refusal: ${message}`);

    assert.ok(healthLatencies.length >= 5, `health was polled during the run (${healthLatencies.length} times)`);
    assert.ok(Math.max(...healthLatencies) < HEALTH_BOUND_MS, `health answered within ${HEALTH_BOUND_MS} ms (max ${Math.max(...healthLatencies)} ms)`);

    // Read back over the API: every session's transcript holds the allowed text and never the secret.
    const list = await rawRequest({ port: s.port, path: '/api/sessions?all=1&limit=100', headers: bearer(s.token) });
    assert.equal(list.status, 200, list.text);
    const keys = (list.json.sessions as Array<{ key: string }>).map((x) => x.key).filter((k) => k.startsWith('race-'));
    assert.ok(keys.length > 0, 'race sessions were stored');
    let sawAllowed = false;
    for (const key of keys) {
      const t = await rawRequest({ port: s.port, path: `/api/sessions/${key}/transcript`, headers: bearer(s.token) });
      if (t.status === 404) continue; // a session whose every read was refused has no transcript
      assert.equal(t.status, 200, t.text);
      assert.ok(!t.text.includes(SECRET), `session ${key} holds the outside secret`);
      sawAllowed ||= t.json.content.includes(ALLOWED_TEXT);
    }
    assert.ok(sawAllowed, 'the allowed text was stored');
    const search = await rawRequest({ port: s.port, method: 'POST', path: '/api/sessions/search', headers: bearer(s.token), body: { query: SECRET } });
    assert.equal(search.status, 200, search.text);
    assert.equal(search.json.count, 0, 'a search for the secret finds nothing');

    // And on disk: stop the server (final snapshot written), then grep every file of the data dir.
    await s.daemon.stop();
    assert.deepEqual(grepTree(s.dataDir, SECRET), [], 'no file of the data dir holds the secret');
    assert.ok(grepTree(s.dataDir, ALLOWED_TEXT).length > 0, 'control: the allowed text is on disk');
  });
});
