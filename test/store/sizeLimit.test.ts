// The store's size limit through the real HTTP API of a real server process: writes that would
// grow the database past the limit get 507 with a JSON error and leave nothing behind, the user is
// warned before, and after SIGKILL a restart reloads every acknowledged write, whether the store
// reached the limit in one run or in two (a restart in between). The limit is small here
// ($BATON_STORE_LIMIT_BYTES); the real one is driven by bench/storeLimit.ts (docs/storage.md).

import { strict as assert } from 'node:assert';
import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import { layout } from '../../src/node/paths';
import { runDoctor } from '../../src/store/doctor';
import { listSnapshots, SNAPSHOT_TRAILER_BYTES } from '../../src/store/engine/snapshot';
import { STORE_LIMIT_ENV } from '../../src/store/engine/sizeLimit';
import { onStdoutLines, startFixture } from '../helpers/child';
import { bearer, rawRequest } from '../helpers/server';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';

const LIMIT = 3 * 1024 * 1024;
const TURN_CHARS = 24 * 1024;
/**
 * The limit holds for writes; the full-text index of turns not yet indexed (a few while writes go
 * on, the journal's turns after a restart) is built in the background, outside any write, and can
 * take the file a little past it. This prose of random words is the worst case for the index, and
 * at 3 MB a few turns weigh much more than at the real limit (docs/storage.md, "How big a store
 * can grow").
 */
const INDEX_SLACK = 1.25;
/** More than enough writes to pass the limit several times over. */
const MAX_WRITES = 400;

interface Server {
  child: ChildProcess;
  port: number;
  token: string;
  lines: string[];
}

async function startServer(dir: string): Promise<Server> {
  const child = startFixture('serverChild.ts', [dir], { [STORE_LIMIT_ENV]: String(LIMIT) });
  const lines: string[] = [];
  const ready = await new Promise<string>((resolve) => {
    onStdoutLines(child, (line) => {
      lines.push(line);
      if (line.startsWith('listening ') || line.startsWith('error ')) resolve(line);
    });
    child.on('exit', () => resolve('exited'));
  });
  assert.match(ready, /^listening /, `the server did not start: ${lines.join(' | ')}`);
  const [, port, token] = ready.split(' ');
  return { child, port: Number(port), token, lines };
}

/** A clean stop (SIGTERM): the server finishes, snapshots and exits. */
function stop(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (server.child.exitCode !== null || server.child.signalCode !== null) return resolve();
    server.child.once('exit', () => resolve());
    server.child.kill('SIGTERM');
  });
}

function killHard(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (server.child.exitCode !== null || server.child.signalCode !== null) return resolve();
    server.child.once('exit', () => resolve());
    server.child.kill('SIGKILL');
  });
}

/** Text that indexes like prose: many distinct words, deterministic. */
function prose(marker: string, chars: number): string {
  const words: string[] = [marker];
  let state = [...marker].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7);
  for (let length = marker.length; length < chars;) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    const word = `w${(state >>> 8).toString(36)}`;
    words.push(word);
    length += word.length + 1;
  }
  return words.join(' ');
}

async function storage(server: Server) {
  const res = await rawRequest({ port: server.port, path: '/api/store/recovery', headers: bearer(server.token) });
  assert.equal(res.status, 200, res.text);
  return res.json.storage as { fileBytes: number; limitBytes: number; state: string; message: string | null };
}

/** Waits (bounded) until the store's reported state satisfies `ok`. */
async function untilState(server: Server, ok: (state: string) => boolean): Promise<void> {
  let state = '';
  for (let waited = 0; waited < 60_000; waited += 100) {
    state = (await storage(server)).state;
    if (ok(state)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`the store stayed ${state}`);
}

interface Outcome {
  acked: Array<{ key: string; marker: string }>;
  refused: Array<{ key: string; marker: string }>;
  /** Index of the first write made while the store already reported 'warning' (or worse). */
  firstWarned: number;
  firstRefused: number;
}

/** Writes prompts until `stop` says so (or MAX_WRITES); each reply is 200 or 507. */
async function writeUntil(server: Server, run: string, stop: (o: Outcome, state: string) => boolean): Promise<Outcome> {
  const o: Outcome = { acked: [], refused: [], firstWarned: -1, firstRefused: -1 };
  for (let i = 0; i < MAX_WRITES; i++) {
    const state = (await storage(server)).state;
    if (state !== 'ok' && o.firstWarned < 0) o.firstWarned = i;
    if (stop(o, state)) break;
    const key = `${run}-s${i % 5}`;
    const marker = `${run}m${i}x`;
    const res = await rawRequest({
      port: server.port,
      method: 'POST',
      path: '/api/hooks/user-prompt-submit',
      headers: bearer(server.token),
      body: { harness: 'opencode', sessionKey: key, userPrompt: prose(marker, TURN_CHARS) },
    });
    if (res.status === 200) {
      o.acked.push({ key, marker });
      continue;
    }
    assert.equal(res.status, 507, `write ${i}: ${res.status} ${res.text}`);
    assert.equal(res.json.code, 'insufficient_storage');
    assert.match(res.json.error, /past its limit of 3 MB/);
    assert.match(res.json.error, /baton export/);
    assert.match(res.json.error, /Nothing of it was written/);
    o.refused.push({ key, marker });
    if (o.firstRefused < 0) o.firstRefused = i;
  }
  return o;
}

async function transcript(server: Server, key: string): Promise<string> {
  const res = await rawRequest({ port: server.port, path: `/api/sessions/${encodeURIComponent(key)}/transcript`, headers: bearer(server.token) });
  if (res.status === 404) return '';
  assert.equal(res.status, 200, res.text);
  return String(res.json.content ?? res.text);
}

/** Every acknowledged marker is back; no refused one is. */
async function assertReloaded(server: Server, acked: Outcome['acked'], refused: Outcome['refused']): Promise<void> {
  const keys = [...new Set([...acked, ...refused].map((w) => w.key))];
  const texts = new Map<string, string>();
  for (const key of keys) texts.set(key, await transcript(server, key));
  for (const w of acked) assert.ok(texts.get(w.key)!.includes(`${w.marker} `), `acknowledged write ${w.marker} is back after SIGKILL`);
  for (const w of refused) assert.ok(!texts.get(w.key)!.includes(`${w.marker} `), `refused write ${w.marker} left nothing behind`);
}

function assertNoLoss(server: Server): void {
  const bad = server.lines.filter((l) => /^start recovery: .*(skipped|missing|opened without)/.test(l));
  assert.deepEqual(bad, [], 'the restart found nothing missing and skipped no snapshot');
}

describe('store size limit (real server process, real HTTP, SIGKILL)', function () {
  this.timeout(300_000);
  after(cleanupTempDirs);

  it('in one run: warns first, then answers 507 with a JSON error; after SIGKILL every acknowledged write is back and the limit still holds', async () => {
    const dir = tempDir();
    let server = await startServer(dir);
    const first = await writeUntil(server, 'a', (o) => o.refused.length >= 3);
    assert.ok(first.firstRefused > 0, `the limit was reached (acked ${first.acked.length})`);
    assert.ok(
      first.firstWarned >= 0 && first.firstWarned < first.firstRefused,
      `warned at write ${first.firstWarned}, before the first 507 at ${first.firstRefused}`,
    );
    assert.ok(
      server.lines.some((l) => /^log store warn: the store is nearly full/.test(l)),
      `the warning is logged: ${server.lines.filter((l) => l.includes('store')).join(' | ')}`,
    );
    const full = await storage(server);
    assert.equal(full.state, 'full');
    assert.ok(full.fileBytes <= LIMIT * INDEX_SLACK, `the database file (${full.fileBytes}) stays within the limit`);
    await killHard(server);

    server = await startServer(dir);
    try {
      assertNoLoss(server);
      await assertReloaded(server, first.acked, first.refused);
      // The turns replayed from the journal are indexed again in the background; then the store is
      // as full as before the kill.
      await untilState(server, (state) => state !== 'ok');
      // Still at the limit after the restart: the next writes are refused too.
      const again = await writeUntil(server, 'b', (o) => o.refused.length >= 2);
      assert.ok(again.firstRefused >= 0 && again.firstRefused <= 3, `the limit holds after the restart (first 507 at ${again.firstRefused})`);
      assert.ok((await storage(server)).fileBytes <= LIMIT * INDEX_SLACK);
    } finally {
      await killHard(server);
    }
  });

  it('in two steps (SIGKILL and restart before the limit): the limit holds, nothing acknowledged is lost, doctor reports the store full', async () => {
    const dir = tempDir();
    let server = await startServer(dir);
    const first = await writeUntil(server, 'c', (_o, state) => state !== 'ok');
    assert.equal(first.refused.length, 0, 'the first step stops at the warning, before the limit');
    await killHard(server);

    server = await startServer(dir);
    let second: Outcome;
    try {
      assertNoLoss(server);
      second = await writeUntil(server, 'd', (o) => o.refused.length >= 3);
      assert.ok(second.firstRefused >= 0, 'the limit was reached in the second step');
      const after = (await storage(server)).fileBytes;
      assert.ok(after <= LIMIT * INDEX_SLACK, `the database file (${after}) stays within the limit`);
    } finally {
      await killHard(server);
    }

    server = await startServer(dir);
    try {
      assertNoLoss(server);
      await assertReloaded(server, [...first.acked, ...second.acked], second.refused);
    } finally {
      await stop(server);
    }
    // A start says how full the store is, once its final snapshot holds the whole index.
    server = await startServer(dir);
    await stop(server);
    assert.ok(
      server.lines.some((l) => /^start storage: the store is (nearly )?full/.test(l)),
      `the start says how full the store is: ${server.lines.join(' | ')}`,
    );
    // The images on disk are within the limit, and doctor (the store is not held) says it is full.
    for (const snap of listSnapshots(layout(dir).snapshotDir)) assert.ok(fs.statSync(snap.path).size - SNAPSHOT_TRAILER_BYTES <= LIMIT * INDEX_SLACK);
    const doctor = await runDoctor(dir, { limitBytes: LIMIT });
    assert.ok(doctor.storage && doctor.storage.fileBytes <= LIMIT * INDEX_SLACK, JSON.stringify(doctor.storage));
    assert.ok(
      doctor.problems.some((p) => /the store is full/.test(p)) || doctor.warnings.some((w) => /the store is nearly full/.test(w)),
      `doctor: ${JSON.stringify(doctor.storage)}`,
    );
  });
});
