// A run's files under attack (docs/runs.md, "What the child is told"): while a process of its own
// keeps swapping a named file between a regular file and a FIFO, or a workspace folder between a
// real folder and a symlink to a folder outside, POST /api/runs/spawn names them again and again.
// The real server on 127.0.0.1, a real child process as the runner, real files in temp dirs. The
// server must never wait on the FIFO (its event loop keeps running, every spawn is answered) and
// no byte from outside the workspace may reach the child's prompt.

import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startDaemon, type Daemon } from '../../src/server/daemon';
import type { RunnerConfig } from '../../src/server/config';
import { ROOT } from '../helpers/child';
import { meterEventLoop, mkfifo } from '../helpers/fifoWatch';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';

const ECHO = path.join(ROOT, 'test', 'fixtures', 'echoRunner.js');
const echo = (...args: string[]): RunnerConfig => ({ command: process.execPath, args: [ECHO, ...args] });
const SECRET = 'OUTSIDE-WORKSPACE-SECRET-51c7';
/** How long the swapper swaps; the test spawns for a little less. */
const SWAP_MS = 3000;
/** A server still blocked this long after swapping stopped is released by the swapper (so the test fails instead of hanging). */
const RELEASE_AFTER_MS = 2500;
/** Longest the event loop may be held (generous: nothing in a spawn waits on a file). */
const LOOP_BOUND_MS = 1500;
const NAMES_PER_SPAWN = 1000;
/**
 * Deep folders (the same on both sides of a swap): each folder on the path widens the time between
 * a look by name and the open that follows it, the gap a reader that checks by name leaves to a swap.
 */
const DEEP = Array.from({ length: 100 }, (_, i) => `d${i}`);

/**
 * The swapper. `fifo`: ws/f.txt cycles between a hard link of a regular file and one of a FIFO
 * (each change a rename over the old entry). `folder`: ws/sub cycles between a real folder and a
 * symlink to the outside folder (two renames each way). It swaps until stdin ends or SWAP_MS pass, puts the regular state
 * back, and then (once stdin ended, or RELEASE_AFTER_MS later) connects a writer to the FIFO for a
 * while: a server blocked opening it is released, and counted.
 */
const SWAPPER = `
const fs = require('fs'), path = require('path');
const { mode, ws, dir, outside, swapMs, releaseAfterMs } = JSON.parse(process.env.SWAP_CONF);
let ended = false, swaps = 0, errors = 0, i = 0, released = 0;
process.stdin.on('end', () => { ended = true; }).resume();
const tmp = () => path.join(dir, '.tmp-' + (i++));
const live = path.join(dir, 'f.txt'), reg = path.join(dir, 'reg-src.txt'), fifo = path.join(dir, 'fifo-src');
const sub = path.join(ws, 'sub'), aside = path.join(ws, 'sub-aside');
function put(src) { const t = tmp(); fs.linkSync(src, t); fs.renameSync(t, live); }
const lnk = path.join(ws, '.lnk');
if (mode === 'folder') fs.symlinkSync(outside, lnk);
function step(k) {
  if (mode === 'fifo') return put(k % 2 ? fifo : reg);
  if (k % 2 === 0) { fs.renameSync(sub, aside); fs.renameSync(lnk, sub); }
  else { fs.renameSync(sub, lnk); fs.renameSync(aside, sub); }
}
function restore() {
  if (mode === 'fifo') return put(reg);
  if (fs.lstatSync(sub).isSymbolicLink()) { fs.renameSync(sub, lnk); fs.renameSync(aside, sub); }
}
(async () => {
  const started = Date.now();
  for (let k = 0; !ended && Date.now() - started < swapMs;) {
    for (let j = 0; j < 50; j++, k++) { try { step(k); swaps++; } catch { errors++; } }
    await new Promise((r) => setImmediate(r));
  }
  restore();
  const stopped = Date.now();
  while (!ended && Date.now() - stopped < releaseAfterMs) await new Promise((r) => setTimeout(r, 10));
  if (mode === 'fifo') {
    for (const until = Date.now() + 1000; Date.now() < until;) {
      try { fs.closeSync(fs.openSync(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK)); released++; } catch {}
      await new Promise((r) => setTimeout(r, 2));
    }
  }
  while (!ended) await new Promise((r) => setTimeout(r, 10));
  process.stdout.write(JSON.stringify({ swaps, errors, released }));
})();
`;

function startSwapper(conf: { mode: 'fifo' | 'folder'; ws: string; dir: string; outside: string }) {
  const child = spawn(process.execPath, ['-e', SWAPPER], {
    env: { ...process.env, SWAP_CONF: JSON.stringify({ ...conf, swapMs: SWAP_MS, releaseAfterMs: RELEASE_AFTER_MS }) },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return {
    async stop(): Promise<{ swaps: number; errors: number; released: number }> {
      child.stdin.end();
      await exited;
      return JSON.parse(out) as { swaps: number; errors: number; released: number };
    },
  };
}

async function spawnRun(daemon: Daemon, body: object): Promise<{ status: number; body: any }> {
  const res = await fetch(daemon.server.url + '/api/runs/spawn', {
    method: 'POST',
    headers: { authorization: `Bearer ${daemon.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  return { status: res.status, body: await res.json() };
}

/** Spawns runs naming `files` in `ws`, two at a time, for a little less than the swapper swaps. */
async function spawnWhileSwapping(daemon: Daemon, runner: string, ws: string, files: string[]): Promise<Array<{ status: number; body: any }>> {
  const replies: Array<{ status: number; body: any }> = [];
  const until = Date.now() + SWAP_MS - 500;
  const lane = async () => {
    while (Date.now() < until) replies.push(await spawnRun(daemon, { runner, task: 'Read the files', workspacePath: ws, files }));
  };
  await Promise.all([lane(), lane()]);
  return replies;
}

describe("a run's files swapped during POST /api/runs/spawn (real HTTP, real child processes)", function () {
  this.timeout(60_000);
  let daemon: Daemon;

  before(async function () {
    if (process.platform === 'win32') this.skip(); // FIFOs and these swaps are POSIX
    daemon = await startDaemon({
      dataDir: tempDir(),
      port: 0,
      config: { runners: { echo: echo('ok'), raw: echo('raw') }, defaultRunner: 'echo', runFilesMaxBytes: 64 * 1024, runOutputMaxBytes: 1024 * 1024 },
    });
  });
  after(async () => {
    await daemon?.stop();
    cleanupTempDirs();
  });

  it('a file swapped with a FIFO is never waited on: every spawn is answered and the event loop keeps running', async () => {
    const ws = fs.realpathSync(tempDir('baton-runrace-ws-'));
    const dir = path.join(ws, ...DEEP);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'reg-src.txt'), 'REGULAR FILE\n');
    mkfifo(path.join(dir, 'fifo-src'));
    fs.linkSync(path.join(dir, 'reg-src.txt'), path.join(dir, 'f.txt'));
    const swapper = startSwapper({ mode: 'fifo', ws, dir, outside: ws });
    const meter = meterEventLoop();
    let replies: Array<{ status: number; body: any }>;
    let report: { swaps: number; released: number };
    try {
      replies = await spawnWhileSwapping(daemon, 'echo', ws, Array(NAMES_PER_SPAWN).fill(path.join(...DEEP, 'f.txt')));
    } finally {
      report = await swapper.stop();
    }
    const held = meter.stop();
    assert.ok(report.swaps > 1000, `the swapper swapped (${report.swaps})`);
    assert.equal(report.released, 0, 'the server waited to read the FIFO');
    assert.ok(held < LOOP_BOUND_MS, `the event loop was held ${held} ms`);
    assert.ok(replies.length >= 2, `spawns answered: ${replies.length}`);
    for (const reply of replies) {
      assert.equal(reply.status, 200, JSON.stringify(reply.body));
      assert.equal(reply.body.status, 'completed');
    }
  });

  it('a workspace folder swapped with a symlink to a folder outside never puts an outside file into the prompt', async () => {
    const ws = fs.realpathSync(tempDir('baton-runrace-ws-'));
    const outside = fs.realpathSync(tempDir('baton-runrace-outside-'));
    const deep = path.join(...DEEP, 'a.txt');
    fs.mkdirSync(path.dirname(path.join(ws, 'sub', deep)), { recursive: true });
    fs.writeFileSync(path.join(ws, 'sub', deep), 'INSIDE THE WORKSPACE\n');
    fs.mkdirSync(path.dirname(path.join(outside, deep)), { recursive: true });
    fs.writeFileSync(path.join(outside, deep), `${SECRET}\n`);
    const swapper = startSwapper({ mode: 'folder', ws, dir: ws, outside });
    let replies: Array<{ status: number; body: any }>;
    let report: { swaps: number };
    try {
      replies = await spawnWhileSwapping(daemon, 'raw', ws, Array(NAMES_PER_SPAWN).fill(path.join('sub', deep)));
    } finally {
      report = await swapper.stop();
    }
    assert.ok(report.swaps > 1000, `the swapper swapped (${report.swaps})`);
    assert.ok(replies.length >= 2, `spawns answered: ${replies.length}`);
    let inside = 0;
    for (const reply of replies) {
      assert.equal(reply.status, 200, JSON.stringify(reply.body));
      const prompt = String(reply.body.resultContent);
      assert.ok(!prompt.includes(SECRET), 'a file from outside the workspace reached the prompt');
      inside += prompt.split('INSIDE THE WORKSPACE').length - 1;
    }
    assert.ok(inside > 0, 'the file inside the workspace was read while its folder was real');
  });
});
