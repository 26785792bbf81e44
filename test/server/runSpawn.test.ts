// Spawning sub-agent runs over the API (POST /api/runs/spawn, docs/runs.md): the real server on
// 127.0.0.1, the real store on disk, and a real child process (test/fixtures/echoRunner.js) as the
// configured runner, in each execution mode, with its failures and bounds.

import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startDaemon, type Daemon } from '../../src/server/daemon';
import type { RunnerConfig } from '../../src/server/config';
import { ROOT } from '../helpers/child';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';

const ECHO = path.join(ROOT, 'test', 'fixtures', 'echoRunner.js');
const echo = (...args: string[]): RunnerConfig => ({ command: process.execPath, args: [ECHO, ...args] });

async function post(daemon: Daemon, route: string, body: unknown, token = daemon.token): Promise<{ status: number; body: any }> {
  const res = await fetch(daemon.server.url + route, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

async function get(daemon: Daemon, route: string): Promise<{ status: number; body: any }> {
  const res = await fetch(daemon.server.url + route, { headers: { authorization: `Bearer ${daemon.token}` } });
  return { status: res.status, body: await res.json() };
}

/** Polls GET /api/runs/:id until the run is terminal (bounded). */
async function finished(daemon: Daemon, id: string): Promise<any> {
  for (let i = 0; i < 200; i++) {
    const run = (await get(daemon, `/api/runs/${id}`)).body;
    if (run.status === 'completed' || run.status === 'failed') return run;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`run ${id} did not finish`);
}

describe('POST /api/runs/spawn (real HTTP, real store, real child processes)', function () {
  this.timeout(60_000);
  let dataDir: string;
  let daemon: Daemon;
  const runners: Record<string, RunnerConfig> = {
    echo: echo('ok', 'session=${AGENT_SESSION_ID}'),
    slow: echo('slow'),
    broken: echo('fail'),
    raw: echo('raw'),
    flood: echo('flood'),
    hang: { ...echo('hang'), timeoutMs: 400 },
    missing: { command: path.join(ROOT, 'no-such-runner-binary') },
  };

  before(async () => {
    dataDir = tempDir();
    daemon = await startDaemon({ dataDir, port: 0, config: { runners, defaultRunner: 'echo', runOutputMaxBytes: 16_384, runFilesMaxBytes: 2048 } });
    await post(daemon, '/api/hooks/user-prompt-submit', { harness: 'claude-code', sessionKey: 'parent', userPrompt: 'Parent context PARENT-MARK-42' });
  });
  after(async () => {
    await daemon.stop();
    cleanupTempDirs();
  });

  it('SYNC: the reply is the finished run; the child got AGENT_SESSION_ID, the expanded argument and the inherited block', async () => {
    const res = await post(daemon, '/api/runs/spawn', { parentSessionKey: 'parent', task: 'List the TODOs' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const run = res.body;
    assert.equal(run.status, 'completed');
    assert.equal(run.runner, 'echo', 'the default runner');
    assert.equal(run.executionMode, 'SYNC');
    assert.equal(run.parentSessionKey, 'parent');
    assert.match(run.sessionKey, /^parent\/run-[0-9a-f]{8}$/);
    const answer = JSON.parse(run.resultContent);
    assert.equal(answer.agentSessionId, run.sessionKey);
    assert.equal(answer.arg, `session=${run.sessionKey}`);
    assert.match(answer.promptStart, /^## Inherited from Parent Session\n[\s\S]*PARENT-MARK-42[\s\S]*## Task\n\nList the TODOs$/);
    const child = (await get(daemon, `/api/sessions/${encodeURIComponent(run.sessionKey)}`)).body;
    assert.equal(child.parentSessionKey, 'parent');
    assert.equal(child.status, 'completed');
  });

  it('ASYNC_POLL: the reply comes at once with the run id; GET /api/runs/:id goes on to completed', async () => {
    const res = await post(daemon, '/api/runs/spawn', { parentSessionKey: 'parent', task: 'slow work', runner: 'slow', executionMode: 'ASYNC_POLL' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.ok(['pending', 'running'].includes(res.body.status), res.body.status);
    assert.equal(res.body.resultContent, null);
    const run = await finished(daemon, res.body.id);
    assert.equal(run.status, 'completed');
    assert.match(run.resultContent, /slow work/);
    assert.equal(run.callbackDeliveredAt, null);
  });

  it("ASYNC_CALLBACK: the result reaches the parent's next prompt, once (the existing delivery path)", async () => {
    await post(daemon, '/api/hooks/session-start', { harness: 'claude-code', sessionKey: 'cc-parent', project: '/repo' });
    const res = await post(daemon, '/api/runs/spawn', { parentSessionKey: 'cc-parent', task: 'CALLBACK-TASK-9', executionMode: 'ASYNC_CALLBACK' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const run = await finished(daemon, res.body.id);
    assert.equal(run.status, 'completed');
    assert.equal(run.callbackDeliveredAt, null, 'the server leaves it for the parent to take');
    const next = await post(daemon, '/api/hooks/user-prompt-submit', { harness: 'claude-code', sessionKey: 'cc-parent', userPrompt: 'next' });
    assert.match(next.body.inject, /Sub-agent results \(1\):\n- run [0-9a-f-]+ \(echo\) completed:\n[\s\S]*CALLBACK-TASK-9/);
    const again = await post(daemon, '/api/hooks/user-prompt-submit', { harness: 'claude-code', sessionKey: 'cc-parent', userPrompt: 'and then' });
    assert.doesNotMatch(again.body.inject, /Sub-agent results/);
  });

  it('failures end as failed with a readable error: non-zero exit, missing command, timeout; the server stays up', async () => {
    const broken = await post(daemon, '/api/runs/spawn', { parentSessionKey: 'parent', task: 'x', runner: 'broken' });
    assert.equal(broken.status, 200);
    assert.equal(broken.body.status, 'failed');
    assert.match(broken.body.error, /exited with 3: runner broke on purpose/);

    const missing = await post(daemon, '/api/runs/spawn', { parentSessionKey: 'parent', task: 'x', runner: 'missing', executionMode: 'ASYNC_POLL' });
    assert.equal(missing.status, 200);
    const missingRun = await finished(daemon, missing.body.id);
    assert.equal(missingRun.status, 'failed');
    assert.match(missingRun.error, /command not found: .*no-such-runner-binary/);

    const started = Date.now();
    const hung = await post(daemon, '/api/runs/spawn', { parentSessionKey: 'parent', task: 'x', runner: 'hang' });
    assert.equal(hung.body.status, 'failed');
    assert.equal(hung.body.error, 'timed out after 400 ms');
    assert.ok(Date.now() - started < 10_000);
    const shorter = await post(daemon, '/api/runs/spawn', { task: 'x', runner: 'hang', timeoutMs: 200 });
    assert.equal(shorter.body.error, 'timed out after 200 ms', 'a spawn may ask for less time than the runner allows');

    assert.equal((await get(daemon, '/api/health')).status, 200);
    const child = (await get(daemon, `/api/sessions/${encodeURIComponent(broken.body.sessionKey)}`)).body;
    assert.equal(child.status, 'failed');
  });

  it('refuses an unknown runner (400 naming it) and ASYNC_CALLBACK without a parent', async () => {
    const unknown = await post(daemon, '/api/runs/spawn', { task: 'x', runner: 'nope' });
    assert.equal(unknown.status, 400);
    assert.match(unknown.body.error, /runner: "nope" is not configured \(configured: echo, slow, broken/);
    const orphan = await post(daemon, '/api/runs/spawn', { task: 'x', executionMode: 'ASYNC_CALLBACK' });
    assert.equal(orphan.status, 400);
    assert.match(orphan.body.error, /parentSessionKey: is required for ASYNC_CALLBACK/);
    const relative = await post(daemon, '/api/runs/spawn', { task: 'x', workspacePath: 'relative/dir' });
    assert.equal(relative.status, 400);
    assert.match(relative.body.error, /workspacePath: must be an absolute path/);
    assert.equal((await post(daemon, '/api/runs/spawn', { runner: 'echo' })).status, 400, 'a task is required');
  });

  it("an agent token's run is its agent's; only the admin token chooses the workspace; recall-only may not spawn", async () => {
    const writer = (await post(daemon, '/api/tokens', { agentId: 'bot', permissions: ['remember', 'recall'] })).body.token;
    const reader = (await post(daemon, '/api/tokens', { agentId: 'bot', permissions: ['recall'] })).body.token;
    const own = await post(daemon, '/api/runs/spawn', { task: 'agent work' }, writer);
    assert.equal(own.status, 200, JSON.stringify(own.body));
    assert.equal(own.body.agentId, 'bot');
    assert.equal(own.body.status, 'completed');
    const chosen = await post(daemon, '/api/runs/spawn', { task: 'x', workspacePath: ROOT, files: ['package.json'] }, writer);
    assert.equal(chosen.status, 403);
    assert.match(chosen.body.error, /workspacePath: only the admin token may choose the workspace/);
    assert.equal((await post(daemon, '/api/runs/spawn', { task: 'x' }, reader)).status, 403);
  });

  it('cuts stdout at the configured cap and says so', async () => {
    const res = await post(daemon, '/api/runs/spawn', { task: 'x', runner: 'flood' });
    assert.equal(res.body.status, 'completed');
    assert.ok(res.body.resultContent.length < 16_500, `result is ${res.body.resultContent.length} chars`);
    assert.match(res.body.resultContent, /^x{16384}\n\[output cut at 16384 bytes\]$/);
  });

  it('the child receives the spec id and its files: contents within the budget, binaries, escapes and missing files named', async () => {
    const workspace = fs.realpathSync(tempDir('baton-ws-'));
    const outside = tempDir('baton-outside-');
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'OUTSIDE-SECRET');
    fs.mkdirSync(path.join(workspace, 'src'));
    fs.writeFileSync(path.join(workspace, 'src', 'a.ts'), 'export const A = "FILE-A-CONTENT";\n');
    fs.writeFileSync(path.join(workspace, 'blob.bin'), Buffer.from([0x89, 0x50, 0x00, 0x01, 0x02]));
    fs.writeFileSync(path.join(workspace, 'big.txt'), 'B'.repeat(100 * 1024));
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(workspace, 'link.txt'));
    const files = ['src/a.ts', 'blob.bin', 'missing.md', 'link.txt', '../' + path.basename(outside) + '/secret.txt', 'big.txt', 'src/a.ts'];
    const res = await post(daemon, '/api/runs/spawn', {
      parentSessionKey: 'parent',
      task: 'Review the files',
      runner: 'raw',
      specId: 'SPEC-77',
      files,
      workspacePath: workspace,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.status, 'completed', res.body.error);
    const prompt: string = res.body.resultContent;
    assert.match(prompt, /## Spec\n\nThis task belongs to spec SPEC-77\./);
    assert.match(prompt, /### src\/a\.ts, 35 bytes\n\n```\nexport const A = "FILE-A-CONTENT";\n```/);
    assert.match(prompt, /- blob\.bin: binary, not included/);
    assert.match(prompt, /- missing\.md: not found/);
    assert.match(prompt, /- link\.txt: outside the workspace, not read/);
    assert.match(prompt, /secret\.txt: outside the workspace, not read/);
    assert.doesNotMatch(prompt, /OUTSIDE-SECRET/);
    // A 2 KiB budget: a.ts (35 bytes) leaves the rest for big.txt, cut; the repeated a.ts is over budget.
    assert.match(prompt, /### big\.txt \(truncated, 102400 bytes\)\n\n```\nB+\n```\n\[… cut here\]/);
    assert.equal(prompt.match(/B{1000,}/)![0].length, 2048 - 35);
    assert.match(prompt, /- src\/a\.ts: not included: the file budget was used up/);
    assert.match(prompt, /## Task\n\nReview the files$/);
    assert.deepEqual(res.body.context.files, files);
    assert.equal(res.body.context.specId, 'SPEC-77');
  });
});

describe('POST /api/runs/spawn bounds across the server', function () {
  this.timeout(60_000);
  after(cleanupTempDirs);

  it('runs at most maxConcurrentRuns children at once: the next waits pending', async () => {
    const daemon = await startDaemon({ dataDir: tempDir(), port: 0, config: { runners: { slow: echo('slow') }, maxConcurrentRuns: 1 } });
    try {
      const first = await post(daemon, '/api/runs/spawn', { task: 'one', executionMode: 'ASYNC_POLL' });
      const second = await post(daemon, '/api/runs/spawn', { task: 'two', executionMode: 'ASYNC_POLL' });
      assert.equal(second.body.status, 'pending', 'the second waits for a free slot');
      const a = await finished(daemon, first.body.id);
      const b = await finished(daemon, second.body.id);
      assert.equal(a.status, 'completed');
      assert.equal(b.status, 'completed');
      // The slow runner answers after 300 ms: the second child starts only once the first has ended.
      assert.ok(Date.parse(b.startedAt) - Date.parse(a.startedAt) >= 290, `first started ${a.startedAt}, second ${b.startedAt}`);
    } finally {
      await daemon.stop();
    }
  });

  it('stopping the server ends a running child and records its run as failed, kept after a restart', async () => {
    const dataDir = tempDir();
    let daemon = await startDaemon({ dataDir, port: 0, config: { runners: { hang: echo('hang') } } });
    let id: string;
    try {
      id = (await post(daemon, '/api/runs/spawn', { task: 'forever', executionMode: 'ASYNC_POLL' })).body.id;
      for (let i = 0; i < 100 && (await get(daemon, `/api/runs/${id}`)).body.status !== 'running'; i++) await new Promise((r) => setTimeout(r, 20));
    } finally {
      await daemon.stop();
    }
    daemon = await startDaemon({ dataDir, port: 0 });
    try {
      const run = (await get(daemon, `/api/runs/${id}`)).body;
      assert.equal(run.status, 'failed');
      assert.match(run.error, /Baton shut down before the run finished/);
    } finally {
      await daemon.stop();
    }
  });
});

describe('POST /api/runs/spawn refusals leave nothing behind; one agent cannot crowd out another', function () {
  this.timeout(60_000);
  after(cleanupTempDirs);

  async function token(daemon: Daemon, agentId: string, permissions: string[]): Promise<string> {
    const res = await post(daemon, '/api/tokens', { agentId, permissions });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.token;
  }

  async function runsOf(daemon: Daemon, agentId: string): Promise<any[]> {
    return (await get(daemon, '/api/runs')).body.runs.filter((r: any) => r.agentId === agentId);
  }

  it("past maxRunsPerAgent an agent gets 429 naming the limit, and another agent's run is served before the flood's next one", async () => {
    const runners: Record<string, RunnerConfig> = { hang: { ...echo('hang'), timeoutMs: 1500 }, echo: echo('ok') };
    const daemon = await startDaemon({ dataDir: tempDir(), port: 0, config: { runners, maxConcurrentRuns: 1, maxRunsPerAgent: 2 } });
    try {
      const flood = await token(daemon, 'flood', ['remember', 'recall']);
      const other = await token(daemon, 'other', ['remember', 'recall']);
      const first = await post(daemon, '/api/runs/spawn', { task: 'one', runner: 'hang', executionMode: 'ASYNC_POLL' }, flood);
      const second = await post(daemon, '/api/runs/spawn', { task: 'two', runner: 'hang', executionMode: 'ASYNC_POLL' }, flood);
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.equal(second.status, 200, JSON.stringify(second.body));
      const third = await post(daemon, '/api/runs/spawn', { task: 'three', runner: 'hang', executionMode: 'ASYNC_POLL' }, flood);
      assert.equal(third.status, 429, JSON.stringify(third.body));
      assert.equal(third.body.code, 'too_many_requests');
      assert.match(third.body.error, /agent "flood" already has 2 runs pending or running; the limit is 2 \(maxRunsPerAgent/);
      assert.equal((await runsOf(daemon, 'flood')).length, 2, 'the refused spawn left no run');

      // The flood holds the only slot and has a run waiting; the other agent's run goes next.
      const mine = await post(daemon, '/api/runs/spawn', { task: 'not stuck', runner: 'echo', executionMode: 'ASYNC_POLL' }, other);
      assert.equal(mine.status, 200, JSON.stringify(mine.body));
      const done = await finished(daemon, mine.body.id);
      assert.equal(done.status, 'completed');
      const waiting = (await get(daemon, `/api/runs/${second.body.id}`)).body;
      assert.ok(
        waiting.startedAt === null || Date.parse(waiting.startedAt) >= Date.parse(done.startedAt),
        `the flood's second run started ${waiting.startedAt}, the other agent's ${done.startedAt}`,
      );
      await finished(daemon, second.body.id);
      // Its runs ended: the flood may spawn again.
      assert.equal((await post(daemon, '/api/runs/spawn', { task: 'again', runner: 'echo' }, flood)).status, 200);
    } finally {
      await daemon.stop();
    }
  });

  it('a remember-only token is refused (403) before the run is recorded or its child started, in every mode', async () => {
    const work = tempDir('baton-marker-');
    const marker = path.join(work, 'ran');
    const daemon = await startDaemon({
      dataDir: tempDir(),
      port: 0,
      config: { runners: { mark: { command: 'sh', args: ['-c', `touch '${marker}'; echo marked`] } } },
    });
    try {
      const writer = await token(daemon, 'writer', ['remember']);
      for (const executionMode of ['ASYNC_POLL', 'SYNC', 'ASYNC_CALLBACK']) {
        const res = await post(daemon, '/api/runs/spawn', { task: 'x', parentSessionKey: 'p', executionMode }, writer);
        assert.equal(res.status, 403, `${executionMode}: ${JSON.stringify(res.body)}`);
        assert.match(res.body.error, /lacks the "recall" permission/);
      }
      await new Promise((r) => setTimeout(r, 500));
      assert.deepEqual(await runsOf(daemon, 'writer'), [], 'no run recorded');
      assert.ok(!fs.existsSync(marker), 'nothing was executed');
      const sessions = (await get(daemon, '/api/sessions?all=1')).body;
      assert.ok(!JSON.stringify(sessions).includes('p/run-'), 'no child session recorded');
      // The admin token spawns the same run: the marker shows the runner works.
      assert.equal((await post(daemon, '/api/runs/spawn', { task: 'x' })).body.status, 'completed');
      assert.ok(fs.existsSync(marker));
    } finally {
      await daemon.stop();
    }
  });

  it('a parent key with a control character, or one that would begin an argument with "-", is refused with 400 when the runner puts it into its arguments', async () => {
    const daemon = await startDaemon({
      dataDir: tempDir(),
      port: 0,
      config: { runners: { bare: echo('ok', '${AGENT_SESSION_ID}'), inside: echo('ok', 'session=${AGENT_SESSION_ID}'), env: echo('ok') } },
    });
    try {
      const refused: Array<[string, string, RegExp]> = [
        ['bare', 'one\ntwo', /control characters/],
        ['inside', 'one\ntwo', /control characters/],
        ['inside', 'cr\rhere', /control characters/],
        ['bare', '--output=/tmp/x', /must not begin with '-'/],
        ['bare', '-rf', /must not begin with '-'/],
      ];
      for (const [runner, parentSessionKey, why] of refused) {
        const res = await post(daemon, '/api/runs/spawn', { task: 'x', runner, parentSessionKey });
        assert.equal(res.status, 400, `${runner} ${JSON.stringify(parentSessionKey)}: ${JSON.stringify(res.body)}`);
        assert.match(res.body.error, /^parentSessionKey: the runner "\w+" puts the session key into its arguments/);
        assert.match(res.body.error, why);
      }
      assert.equal((await get(daemon, '/api/runs')).body.count, 0, 'no run recorded');
      // Inside an argument a leading dash is harmless; the environment variable takes any key.
      const inside = await post(daemon, '/api/runs/spawn', { task: 'x', runner: 'inside', parentSessionKey: '-dash' });
      assert.equal(inside.body.status, 'completed', JSON.stringify(inside.body));
      assert.equal(JSON.parse(inside.body.resultContent).arg, 'session=-dash/run-' + inside.body.id.slice(0, 8));
      const env = await post(daemon, '/api/runs/spawn', { task: 'x', runner: 'env', parentSessionKey: 'one\ntwo' });
      assert.equal(env.body.status, 'completed', JSON.stringify(env.body));
      assert.equal(JSON.parse(env.body.resultContent).agentSessionId, env.body.sessionKey);
    } finally {
      await daemon.stop();
    }
  });
});
