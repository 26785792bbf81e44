// Sub-agent runs end to end: the real server, the real store, a real child process as runner.

import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { BatonClient } from '../../src/client/batonClient';
import { ExternalRunner } from '../../src/runs/externalRunner';
import { RunManager } from '../../src/runs/runManager';
import { startDaemon, type Daemon } from '../../src/server/daemon';
import { ROOT } from '../helpers/child';
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
