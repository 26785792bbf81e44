// Sub-agent runs end to end: the real server, the real store, a real child process as runner,
// and the bounds of a child's process group (docs/runs.md, "Ending a child").

import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BatonClient } from '../../src/client/batonClient';
import { ExternalRunner } from '../../src/runs/externalRunner';
import { RunManager } from '../../src/runs/runManager';
import { Slots } from '../../src/runs/slots';
import { startDaemon, type Daemon } from '../../src/server/daemon';
import { ROOT } from '../helpers/child';
import { gone, killQuietly, pidFrom } from '../helpers/processes';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';

const ECHO = path.join(ROOT, 'test', 'fixtures', 'echoRunner.js');

describe('sub-agent runs (RunManager over the real endpoint, external CLI runner)', function () {
  this.timeout(60_000);
  let dataDir: string;
  let daemon: Daemon;
  let client: BatonClient;
  let manager: RunManager;
  const delivered: string[] = [];

  before(async () => {
    dataDir = tempDir();
    daemon = await startDaemon({ dataDir, port: 0 });
    client = new BatonClient({ url: daemon.server.url, port: daemon.server.port, pid: process.pid, token: daemon.token });
    manager = new RunManager(async () => client, { onDelivered: (_parent, _runs, text) => void delivered.push(text) });
    manager.register(new ExternalRunner({ name: 'echo', command: process.execPath, args: [ECHO, 'ok', 'session=${AGENT_SESSION_ID}'] }));
    manager.register(new ExternalRunner({ name: 'slow', command: process.execPath, args: [ECHO, 'slow'] }));
    manager.register(new ExternalRunner({ name: 'broken', command: process.execPath, args: [ECHO, 'fail'] }));
    await client.call('userPromptSubmit', {
      body: { harness: 'claude-code', sessionKey: 'parent', project: '/repo', userPrompt: 'Parent context PARENT-MARK-77' },
    });
  });
  after(async () => {
    await daemon.stop();
    cleanupTempDirs();
  });

  it('SYNC: the child starts with the inherited block, gets AGENT_SESSION_ID, and the run is recorded completed', async () => {
    const result = await manager.spawn({
      parentSessionKey: 'parent',
      task: 'List the TODOs',
      runner: 'echo',
      mode: 'SYNC',
      specId: 'todo-spec',
      workspacePath: ROOT,
      files: ['a.ts'],
    });
    assert.equal(result.run?.status, 'completed');
    const answer = JSON.parse(result.run!.resultContent!);
    assert.equal(answer.agentSessionId, result.sessionKey);
    assert.equal(answer.arg, `session=${result.sessionKey}`, '${AGENT_SESSION_ID} in arguments is replaced');
    assert.match(answer.promptStart, /^## Inherited from Parent Session\n[\s\S]*PARENT-MARK-77[\s\S]*## Task\n\nList the TODOs$/);
    assert.equal(result.run!.parentSessionKey, 'parent');
    assert.equal(result.run!.runner, 'echo');
    assert.equal(result.run!.executionMode, 'SYNC');
    assert.deepEqual(result.run!.context, { workspacePath: ROOT, specId: 'todo-spec', prompt: 'List the TODOs', files: ['a.ts'] });
    assert.ok(typeof result.run!.durationMs === 'number' && result.run!.startedAt && result.run!.finishedAt);
    const child = await client.getSession(result.sessionKey);
    assert.equal(child?.parentSessionKey, 'parent', 'the parent is recorded');
    assert.equal(child?.status, 'completed');
    assert.equal(child?.executionMode, 'SYNC');
    const turns = await client.turns(result.sessionKey);
    assert.deepEqual(
      turns.turns.map((t) => t.role),
      ['user', 'assistant'],
    );
  });

  it("a run's child inherits the parent's turns chosen for its task: an early one recency alone would cut", async () => {
    await client.call('userPromptSubmit', {
      body: {
        harness: 'claude-code',
        sessionKey: 'busy-parent',
        project: '/repo',
        userPrompt: 'The flaky upload test fails because the S3 mock returns ETag without quotes.',
      },
    });
    for (let i = 0; i < 40; i++)
      await client.call('userPromptSubmit', {
        body: {
          harness: 'claude-code',
          sessionKey: 'busy-parent',
          userPrompt: `Styling pass ${i}: align the sidebar icons and the footer links on every page.`,
        },
      });
    manager.register(new ExternalRunner({ name: 'raw', command: process.execPath, args: [ECHO, 'raw'] }));
    const withTask = await manager.spawn({
      parentSessionKey: 'busy-parent',
      task: 'Fix the flaky upload test and its S3 mock ETag',
      runner: 'raw',
      mode: 'SYNC',
    });
    assert.equal(withTask.run?.status, 'completed');
    const prompt = withTask.run!.resultContent!;
    assert.ok(prompt.includes('S3 mock returns ETag without quotes'), prompt);
    assert.ok(prompt.includes('Styling pass 39'), 'the newest turn stays');
    const unrelated = await manager.spawn({ parentSessionKey: 'busy-parent', task: 'Check the footer links', runner: 'raw', mode: 'SYNC' });
    // (The parent's title is its first prompt's opening: the turn itself is what only the first task gets.)
    assert.ok(!unrelated.run!.resultContent!.includes('ETag without quotes'), unrelated.run!.resultContent!);
  });

  // docs/runs.md, "Tools of a sub-agent": the caller grants; the run manager hands the grant to the
  // runner and records it with the run. A spawn without a grant records none and hands over [].
  it('hands the granted tools to the runner and records them with the run; no grant, nothing recorded', async () => {
    const seen: Array<readonly string[]> = [];
    const registration = manager.register({
      name: 'tool-grant-probe',
      run: (request) => {
        seen.push(request.tools);
        return Promise.resolve({ content: `tools: ${request.tools.join(',')}` });
      },
    });
    try {
      const granted = await manager.spawn({
        parentSessionKey: 'parent',
        task: 'With tools',
        runner: 'tool-grant-probe',
        tools: ['baton_search_sessions', 'x_read'],
      });
      assert.equal(granted.run?.status, 'completed');
      assert.deepEqual(granted.run?.context.tools, ['baton_search_sessions', 'x_read']);
      assert.deepEqual((await manager.status(granted.runId))?.context.tools, ['baton_search_sessions', 'x_read'], 'read back from the store');
      const emptyGrant = await manager.spawn({ parentSessionKey: 'parent', task: 'Granted nothing', runner: 'tool-grant-probe', tools: [] });
      assert.deepEqual(emptyGrant.run?.context.tools, [], 'a grant that gave nothing is recorded as such');
      const none = await manager.spawn({ parentSessionKey: 'parent', task: 'Without tools', runner: 'tool-grant-probe' });
      assert.equal(none.run?.context.tools, undefined);
      assert.ok(!('tools' in none.run!.context));
      assert.deepEqual(seen, [['baton_search_sessions', 'x_read'], [], []]);
    } finally {
      registration.dispose();
    }
  });

  it('ASYNC_POLL returns at once with the run id; polling finds it completed, parent recorded', async () => {
    const result = await manager.spawn({ parentSessionKey: 'parent', task: 'slow task', runner: 'slow', mode: 'ASYNC_POLL' });
    assert.ok(result.run && ['pending', 'running'].includes(result.run.status), `status ${result.run?.status}`);
    let run = await manager.status(result.runId);
    for (let i = 0; i < 100 && run?.status !== 'completed'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      run = await manager.status(result.runId);
    }
    assert.equal(run?.status, 'completed');
    assert.equal(run?.parentSessionKey, 'parent');
    assert.equal(run?.callbackDeliveredAt, null, 'polling runs are never delivered');
  });

  it('ASYNC_CALLBACK: queued while the parent is busy, aggregated, delivered once', async () => {
    await manager.setBusy('parent', true);
    const a = await manager.spawn({ parentSessionKey: 'parent', task: 'first callback', runner: 'echo', mode: 'ASYNC_CALLBACK' });
    const b = await manager.spawn({ parentSessionKey: 'parent', task: 'second callback', runner: 'broken', mode: 'ASYNC_CALLBACK' });
    await manager.wait(a.runId);
    await manager.wait(b.runId);
    assert.equal(delivered.length, 0, 'nothing is delivered while the parent is busy');
    const runs = await manager.setBusy('parent', false);
    assert.deepEqual(runs.map((r) => r.id).sort(), [a.runId, b.runId].sort());
    assert.equal(delivered.length, 1, 'both results arrive in one delivery');
    assert.match(delivered[0], /^Sub-agent results \(2\):/);
    assert.match(delivered[0], /broken\) failed:\n {2}error: .*exited with 3: runner broke on purpose/);
    assert.deepEqual(await manager.deliver('parent'), [], 'never delivered twice');
    const transcript = await client.turns('parent', 1, 100);
    assert.equal(transcript.turns.filter((t) => t.role === 'system' && t.text.startsWith('Sub-agent results (2)')).length, 1);
    const failed = await manager.status(b.runId);
    assert.equal(failed?.status, 'failed');
    assert.match(failed!.error!, /exited with 3/);
    assert.ok(failed!.callbackDeliveredAt);
  });

  it('lists runs with filters and per-spec history, refuses impossible transitions, and survives a restart', async () => {
    const all = await client.listRuns();
    assert.ok(all.length >= 4);
    assert.ok((await client.listRuns({ runner: 'broken' })).every((r) => r.runner === 'broken'));
    assert.ok((await client.listRuns({ status: 'failed' })).every((r) => r.status === 'failed'));
    assert.equal((await client.listRuns({ specId: 'todo-spec' })).length, 1);
    assert.equal((await client.listRuns({ since: new Date(Date.now() + 60_000).toISOString() })).length, 0);
    const done = all.find((r) => r.status === 'completed')!;
    await assert.rejects(client.saveRun({ id: done.id, status: 'running' }), /cannot become running/);
    await assert.rejects(client.saveRun({ runner: 'x', status: 'weird' as 'running' }), /status/);
    await daemon.stop();
    daemon = await startDaemon({ dataDir, port: 0 });
    client = new BatonClient({ url: daemon.server.url, port: daemon.server.port, pid: process.pid, token: daemon.token });
    assert.equal((await client.listRuns()).length, all.length);
    assert.equal((await client.getRun(done.id))?.status, 'completed');
  });
});

describe("a run's child and what it starts end with the run (real child processes, process groups)", function () {
  this.timeout(60_000);
  let daemon: Daemon;
  let client: BatonClient;
  let slots: Slots;
  let manager: RunManager;
  let work: string;
  const leftovers: number[] = [];

  /** `sh -c SCRIPT` as a runner; SCRIPT writes its background job's pid to $PIDFILE. */
  function shell(name: string, script: string): void {
    manager.register(new ExternalRunner({ name, command: 'sh', args: ['-c', script], env: { ...process.env, PIDFILE: path.join(work, `${name}.pid`) } }));
  }

  /** A run's promise, but failing the test (instead of hanging it) when the run never ends. */
  async function within<T>(ms: number, what: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        what,
        new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`still not finished after ${ms} ms`)), ms))),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  before(async () => {
    daemon = await startDaemon({ dataDir: tempDir(), port: 0 });
    client = new BatonClient({ url: daemon.server.url, port: daemon.server.port, pid: process.pid, token: daemon.token });
    work = tempDir('baton-groups-');
    slots = new Slots(1);
    manager = new RunManager(async () => client, { slots });
    manager.register(new ExternalRunner({ name: 'echo', command: process.execPath, args: [ECHO, 'ok'] }));
    // The shell waits for a background job that holds its stdout.
    shell('waits', 'sleep 1000 & echo $! > "$PIDFILE"; wait');
    // Both ignore SIGTERM: only SIGKILL, after the grace, ends them.
    shell('stubborn', 'trap "" TERM; sleep 1000 & echo $! > "$PIDFILE"; wait');
    // The shell answers and exits at once; its background job keeps stdout open.
    shell('leaves', 'sleep 1000 & echo $! > "$PIDFILE"; echo hi');
  });
  after(async () => {
    for (const pid of leftovers) killQuietly(pid);
    await manager.stop();
    await daemon.stop();
    cleanupTempDirs();
  });

  for (const runner of ['waits', 'stubborn']) {
    it(`${runner}: a background job holding stdout does not outlive the timeout: the run fails, the slot is freed, the job is dead`, async () => {
      const started = Date.now();
      const spawned = manager.spawn({ parentSessionKey: null, task: 'hold the pipe', runner, mode: 'SYNC', timeoutMs: 500 });
      const grandchild = await pidFrom(path.join(work, `${runner}.pid`));
      leftovers.push(grandchild);
      const { run } = await within(15_000, spawned);
      assert.equal(run?.status, 'failed');
      assert.equal(run?.error, 'timed out after 500 ms');
      assert.ok(Date.now() - started < 12_000, `ended after ${Date.now() - started} ms`);
      assert.ok(await gone(grandchild), `the background job ${grandchild} still runs`);
      assert.equal(slots.queued, 0);
      // The only slot is free: the next run gets it at once and completes.
      const next = await within(15_000, manager.spawn({ parentSessionKey: null, task: 'after', runner: 'echo', mode: 'SYNC' }));
      assert.equal(next.run?.status, 'completed');
    });
  }

  it('a child that exits leaving a job on its stdout completes with what it wrote; the job is ended with it', async () => {
    const started = Date.now();
    const spawned = manager.spawn({ parentSessionKey: null, task: 'answer and leave', runner: 'leaves', mode: 'SYNC', timeoutMs: 30_000 });
    const grandchild = await pidFrom(path.join(work, 'leaves.pid'));
    leftovers.push(grandchild);
    const { run } = await within(15_000, spawned);
    assert.equal(run?.status, 'completed', run?.error ?? '');
    assert.equal(run?.resultContent, 'hi');
    assert.ok(Date.now() - started < 10_000, `it waited ${Date.now() - started} ms: not for its 30 s timeout`);
    assert.ok(await gone(grandchild), `the background job ${grandchild} still runs`);
    const release = await within(2000, slots.acquire(AbortSignal.timeout(2000)));
    release();
  });

  it('a parent key the runner would put at the start of an argument, or with a newline, is refused before anything is recorded', async () => {
    const marker = path.join(work, 'bare-ran');
    manager.register(
      new ExternalRunner({ name: 'bare', command: 'sh', args: ['-c', 'touch "$MARKER"', '${AGENT_SESSION_ID}'], env: { ...process.env, MARKER: marker } }),
    );
    const before = (await client.listRuns()).length;
    for (const parent of ['-rf', 'line one\nline two', 'tab\there']) {
      await assert.rejects(
        manager.spawn({ parentSessionKey: parent, task: 'x', runner: 'bare', mode: 'SYNC' }),
        (err: Error & { code?: string }) => err.code === 'invalid_request' && /parentSessionKey: .*\$\{AGENT_SESSION_ID\}/.test(err.message),
      );
    }
    assert.equal((await client.listRuns()).length, before, 'no run recorded');
    assert.equal(await client.getSession('-rf/run-00000000'), null);
    assert.ok(!fs.existsSync(marker), 'nothing ran');
    const fine = await manager.spawn({ parentSessionKey: 'plain-parent', task: 'x', runner: 'bare', mode: 'SYNC' });
    assert.equal(fine.run?.status, 'completed', fine.run?.error ?? '');
    assert.ok(fs.existsSync(marker));
  });
});
