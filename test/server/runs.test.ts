// Sub-agent runs through the real server on 127.0.0.1 and the real store on disk (docs/runs.md):
// a finished run is terminal, so any change to it is refused with 409, also after a restart; runs a
// dead server left unfinished are failed at the next start and their children ended.

import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { processIdentity } from '../../src/runs/processGroup';
import { startDaemon, type Daemon } from '../../src/server/daemon';
import { INTERRUPTED_RUN_ERROR } from '../../src/server/runService';
import { Store } from '../../src/store/store';
import { alive, gone, killQuietly } from '../helpers/processes';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';

async function post(daemon: Daemon, route: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(daemon.server.url + route, {
    method: 'POST',
    headers: { authorization: `Bearer ${daemon.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

async function get(daemon: Daemon, route: string): Promise<{ status: number; body: any }> {
  const res = await fetch(daemon.server.url + route, { headers: { authorization: `Bearer ${daemon.token}` } });
  return { status: res.status, body: await res.json() };
}

describe('sub-agent runs (real HTTP, real store)', function () {
  this.timeout(60_000);
  after(cleanupTempDirs);

  it('a completed or failed run never changes again: 409, and the stored result stays', async () => {
    const dataDir = tempDir();
    let daemon = await startDaemon({ dataDir, port: 0 });
    try {
      const created = await post(daemon, '/api/runs', { runner: 'external', parentSessionKey: 'p', executionMode: 'ASYNC_POLL', prompt: 'work' });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      const id = created.body.id;
      assert.equal((await post(daemon, '/api/runs', { id, status: 'running' })).status, 200);
      assert.equal((await post(daemon, '/api/runs', { id, resultContent: 'partial' })).status, 200, 'a running run may still change');
      assert.equal((await post(daemon, '/api/runs', { id, status: 'completed', resultContent: 'DONE' })).status, 200);
      for (const change of [
        { resultContent: 'rewritten' },
        { status: 'failed', error: 'x' },
        { status: 'completed', resultContent: 'again' },
        { outputTokens: 5 },
        { files: ['a.ts'] },
      ]) {
        const res = await post(daemon, '/api/runs', { id, ...change });
        assert.equal(res.status, 409, `${JSON.stringify(change)}: ${JSON.stringify(res.body)}`);
      }
      assert.equal((await get(daemon, `/api/runs/${id}`)).body.resultContent, 'DONE');

      const failed = (await post(daemon, '/api/runs', { runner: 'external', prompt: 'x' })).body.id;
      assert.equal((await post(daemon, '/api/runs', { id: failed, status: 'failed', error: 'boom' })).status, 200);
      assert.equal((await post(daemon, '/api/runs', { id: failed, error: 'other' })).status, 409);

      await daemon.stop();
      daemon = await startDaemon({ dataDir, port: 0 });
      assert.equal((await post(daemon, '/api/runs', { id, resultContent: 'after restart' })).status, 409);
      assert.equal((await get(daemon, `/api/runs/${id}`)).body.resultContent, 'DONE');
    } finally {
      await daemon.stop();
    }
  });
});

describe('ASYNC_CALLBACK results reach a harness parent at its next prompt (real HTTP, real store)', function () {
  this.timeout(60_000);
  after(cleanupTempDirs);

  it('delivers finished callback runs once, aggregated, into the UserPromptSubmit inject, kept across a restart', async () => {
    const dataDir = tempDir();
    let daemon = await startDaemon({ dataDir, port: 0 });
    try {
      await post(daemon, '/api/hooks/session-start', { harness: 'claude-code', sessionKey: 'cc-parent', project: '/repo' });
      const ids: string[] = [];
      for (const result of ['RESULT ALPHA', 'RESULT BETA']) {
        const id = (await post(daemon, '/api/runs', { runner: 'external', parentSessionKey: 'cc-parent', executionMode: 'ASYNC_CALLBACK', prompt: 'work' }))
          .body.id;
        await post(daemon, '/api/runs', { id, status: 'running' });
        assert.equal((await post(daemon, '/api/runs', { id, status: 'completed', resultContent: result })).status, 200);
        ids.push(id);
      }
      // An ASYNC_POLL run of the same parent is never delivered.
      const poll = (await post(daemon, '/api/runs', { runner: 'external', parentSessionKey: 'cc-parent', executionMode: 'ASYNC_POLL', prompt: 'poll' })).body
        .id;
      await post(daemon, '/api/runs', { id: poll, status: 'failed', error: 'POLL ONLY' });
      // A transcript sync (the Stop hook) is not a prompt: nothing is taken.
      const sync = await post(daemon, '/api/hooks/user-prompt-submit', { harness: 'claude-code', sessionKey: 'cc-parent', lastAssistantMessage: 'ok' });
      assert.doesNotMatch(sync.body.inject, /RESULT/);

      await daemon.stop();
      daemon = await startDaemon({ dataDir, port: 0 });
      const first = await post(daemon, '/api/hooks/user-prompt-submit', { harness: 'claude-code', sessionKey: 'cc-parent', userPrompt: 'next question' });
      assert.equal(first.status, 200);
      assert.match(first.body.inject, /Sub-agent results \(2\)/);
      assert.match(first.body.inject, /RESULT ALPHA[\s\S]*RESULT BETA/);
      assert.doesNotMatch(first.body.inject, /POLL ONLY/);
      const second = await post(daemon, '/api/hooks/user-prompt-submit', { harness: 'codex', sessionKey: 'cc-parent', userPrompt: 'and then' });
      assert.doesNotMatch(second.body.inject, /RESULT/, 'a result is delivered exactly once');
      for (const id of ids) assert.ok((await get(daemon, `/api/runs/${id}`)).body.callbackDeliveredAt, 'marked delivered');
      const deliver = await post(daemon, '/api/runs/deliver', { parentSessionKey: 'cc-parent' });
      assert.equal(deliver.body.count, 0);
    } finally {
      await daemon.stop();
    }
  });
});

describe('MEMORY.md Global Head (real HTTP, real store)', function () {
  this.timeout(60_000);
  after(cleanupTempDirs);

  it("lists the agent's stored memories instead of '(none yet)'", async () => {
    const daemon = await startDaemon({ dataDir: tempDir(), port: 0 });
    try {
      assert.equal(
        (await post(daemon, '/api/hooks/remember', { harness: 'claude-code', content: 'The user prefers dark mode in every UI', importance: 0.9 })).status,
        200,
      );
      const synth = await post(daemon, '/api/hooks/synthesis', {});
      assert.equal(synth.status, 200, JSON.stringify(synth.body));
      const text = JSON.stringify(synth.body);
      assert.match(text, /Global Head \(Tier 1\)\\n- The user prefers dark mode/);
    } finally {
      await daemon.stop();
    }
  });
});

describe('runs a dead server left unfinished (real store, real processes)', function () {
  this.timeout(60_000);
  const leftovers: number[] = [];
  after(() => {
    for (const pid of leftovers) killQuietly(pid);
    cleanupTempDirs();
  });

  /** A process in a group of its own, as a run's child is. */
  function groupLeader(env: NodeJS.ProcessEnv = process.env): number {
    const child = spawn('sleep', ['1000'], { detached: true, stdio: 'ignore', env });
    child.unref();
    leftovers.push(child.pid!);
    return child.pid!;
  }

  /** What a run's child left running after it exited itself: a background job carrying the run's id. */
  async function leftBehind(runId: string): Promise<number> {
    const child = spawn('sh', ['-c', 'sleep 1000 & echo $!'], {
      detached: true,
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { ...process.env, BATON_RUN_ID: runId },
    });
    const pid = await new Promise<number>((resolve) => child.stdout!.once('data', (c: Buffer) => resolve(Number(c.toString().trim()))));
    child.stdout!.destroy();
    child.unref();
    leftovers.push(pid);
    return pid;
  }

  it('the next start fails them with the reason, ends their child sessions, and ends what they left running: a recorded child only while its identity matches, and processes carrying their BATON_RUN_ID', async () => {
    const dataDir = tempDir();
    const recycled = groupLeader();
    const orphan = groupLeader();
    // Its child is gone and was never recorded; what it started still carries BATON_RUN_ID.
    const job = await leftBehind('unrecorded');
    // A process carrying the id of a run that finished is none of the restart's business.
    const bystander = groupLeader({ ...process.env, BATON_RUN_ID: 'done' });
    const store = await Store.open({ dataDir, holder: 'test' });
    try {
      const run = async (id: string, status: 'pending' | 'running', child?: { pid: number; identity: string | null }) => {
        await store.write('upsertSession', { harness: 'baton', key: `run-${id}`, status: 'active' });
        await store.write('upsertRun', { id, runner: 'tree', status, sessionKey: `run-${id}` });
        await store.write('recordRunProcess', { id, hostPid: 999_999 });
        if (child) await store.write('recordRunProcess', { id, childPid: child.pid, childIdentity: child.identity });
      };
      await run('waiting', 'pending');
      // A process that got the pid of a child long gone: another start time, so another identity.
      await run('reused', 'running', { pid: recycled, identity: `${processIdentity(recycled)!.split(':')[0]}:1` });
      await run('orphan', 'running', { pid: orphan, identity: processIdentity(orphan) });
      await run('unrecorded', 'running');
      // A run some other client records and executes itself is not the server's to fail.
      await store.write('upsertRun', { id: 'foreign', runner: 'external', status: 'running' });
      // A finished run stays as it was.
      await run('done', 'running');
      await store.write('upsertRun', { id: 'done', status: 'completed', resultContent: 'DONE' });
    } finally {
      await store.close();
    }

    const daemon = await startDaemon({ dataDir, port: 0 });
    try {
      for (const id of ['waiting', 'reused', 'orphan', 'unrecorded']) {
        const stored = (await get(daemon, `/api/runs/${id}`)).body;
        assert.equal(stored.status, 'failed', id);
        assert.equal(stored.error, INTERRUPTED_RUN_ERROR);
        assert.ok(stored.finishedAt, id);
        const session = (await get(daemon, `/api/sessions/${encodeURIComponent(stored.sessionKey)}`)).body;
        assert.equal(session.status, 'failed', `${id}: its child session`);
      }
      assert.equal((await get(daemon, '/api/runs/foreign')).body.status, 'running');
      assert.equal((await get(daemon, '/api/runs/done')).body.resultContent, 'DONE');
      assert.ok(await gone(orphan), 'the orphaned child is ended');
      assert.ok(await gone(job), 'what the child left running is found by BATON_RUN_ID and ended');
      assert.ok(alive(recycled), 'a process that only shares the pid is left alone');
      assert.ok(alive(bystander), "a process carrying a finished run's id is left alone");
    } finally {
      await daemon.stop();
    }
  });
});
