// `baton run` as a user runs it: the built CLI (dist/cli.js) as a child process, against a data
// directory whose config.json names real runners (test/fixtures/echoRunner.js), with no server
// (in-process over the store) and against a running server; and `baton serve` stopped with a run
// in flight, by SIGTERM and by kill -9 (docs/runs.md, "Ending a child", "After a crash").

import { strict as assert } from 'node:assert';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startDaemon, type Daemon } from '../../src/server/daemon';
import { CLI, ROOT, runCli } from '../helpers/child';
import { gone, killQuietly, pidFrom } from '../helpers/processes';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';

const ECHO = path.join(ROOT, 'test', 'fixtures', 'echoRunner.js');

function dataDirWithRunners(): string {
  const dir = tempDir();
  const runner = (...args: string[]) => ({ command: process.execPath, args: [ECHO, ...args] });
  const config = {
    runners: { echo: runner('ok', '${AGENT_SESSION_ID}'), raw: runner('raw'), slow: runner('slow'), broken: runner('fail') },
    defaultRunner: 'echo',
  };
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(config));
  return dir;
}

/** The CLI without blocking this process's event loop (a daemon in this process must answer it). */
function cli(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { cwd: ROOT, timeout: 30_000 }, (err, stdout, stderr) =>
      resolve({ status: err ? ((err as { code?: number }).code ?? null) : 0, stdout, stderr }),
    );
  });
}

async function getRun(daemon: Daemon, id: string): Promise<any> {
  const res = await fetch(`${daemon.server.url}/api/runs/${id}`, { headers: { authorization: `Bearer ${daemon.token}` } });
  return res.json();
}

describe('baton run', function () {
  this.timeout(60_000);
  after(cleanupTempDirs);

  it('with no server: SYNC prints the result; the child got the spec and the files of the workspace', () => {
    const dir = dataDirWithRunners();
    const workspace = tempDir('baton-ws-');
    fs.writeFileSync(path.join(workspace, 'notes.md'), 'NOTES-CONTENT-5\n');
    const res = runCli([
      'run',
      '--runner',
      'raw',
      '--spec',
      'SPEC-9',
      '--file',
      'notes.md',
      '--file',
      'gone.txt',
      '--workspace',
      workspace,
      '--data-dir',
      dir,
      'Summarise',
      'the notes',
    ]);
    assert.equal(res.status, 0, res.stderr);
    assert.match(res.stdout, /This task belongs to spec SPEC-9\./);
    assert.match(res.stdout, /### notes\.md, 16 bytes\n\n```\nNOTES-CONTENT-5\n```/);
    assert.match(res.stdout, /- gone\.txt: not found/);
    assert.match(res.stdout, /## Task\n\nSummarise the notes\n$/);
  });

  it('with no server: ASYNC_POLL prints the run id and stays until the child has finished (the record is completed)', async () => {
    const dir = dataDirWithRunners();
    const res = runCli(['run', '--mode', 'ASYNC_POLL', '--runner', 'slow', '--data-dir', dir, 'background work']);
    assert.equal(res.status, 0, res.stderr);
    const id = res.stdout.trim();
    assert.match(id, /^[0-9a-f-]{36}$/);
    assert.match(res.stderr, /waiting here for run/);
    const daemon = await startDaemon({ dataDir: dir, port: 0 });
    try {
      const run = await getRun(daemon, id);
      assert.equal(run.status, 'completed');
      assert.match(run.resultContent, /background work/);
    } finally {
      await daemon.stop();
    }
  });

  it('against a running server: SYNC, and ASYNC_CALLBACK whose result reaches the parent at its next prompt', async () => {
    const dir = dataDirWithRunners();
    const daemon = await startDaemon({ dataDir: dir, port: 0 });
    try {
      const auth = { authorization: `Bearer ${daemon.token}`, 'content-type': 'application/json' };
      const prompt = (userPrompt: string) =>
        fetch(`${daemon.server.url}/api/hooks/user-prompt-submit`, {
          method: 'POST',
          headers: auth,
          body: JSON.stringify({ harness: 'claude-code', sessionKey: 'cli-parent', userPrompt }),
        }).then((r) => r.json() as Promise<{ inject: string }>);
      await prompt('PARENT-NOTE-3');
      const sync = await cli(['run', '--parent', 'cli-parent', '--data-dir', dir, 'check it']);
      assert.equal(sync.status, 0, sync.stderr);
      const answer = JSON.parse(sync.stdout);
      assert.match(answer.agentSessionId, /^cli-parent\/run-[0-9a-f]{8}$/);
      assert.equal(answer.arg, answer.agentSessionId);
      assert.match(answer.promptStart, /PARENT-NOTE-3[\s\S]*## Task\n\ncheck it$/);

      const started = await cli(['run', '--parent', 'cli-parent', '--mode', 'ASYNC_CALLBACK', '--data-dir', dir, 'CLI-CALLBACK-TASK']);
      assert.equal(started.status, 0, started.stderr);
      const id = started.stdout.trim();
      assert.doesNotMatch(started.stderr, /waiting here/);
      let run = await getRun(daemon, id);
      for (let i = 0; i < 200 && run.status !== 'completed' && run.status !== 'failed'; i++) {
        await new Promise((r) => setTimeout(r, 50));
        run = await getRun(daemon, id);
      }
      assert.equal(run.status, 'completed');
      assert.match((await prompt('next')).inject, /Sub-agent results \(1\)[\s\S]*CLI-CALLBACK-TASK/);
      assert.doesNotMatch((await prompt('after')).inject, /Sub-agent results/);
    } finally {
      await daemon.stop();
    }
  });

  it('says what is wrong and exits 1 on bad input or a failed run; 2 on a usage error', () => {
    const dir = dataDirWithRunners();
    const unknown = runCli(['run', '--runner', 'nope', '--data-dir', dir, 'x']);
    assert.equal(unknown.status, 1);
    assert.match(unknown.stderr, /^error: runner: "nope" is not configured \(configured: echo, raw, slow, broken\)/);
    // Outside any process Baton started: no AGENT_SESSION_ID to default the parent to.
    const orphan = runCli(['run', '--mode', 'ASYNC_CALLBACK', '--data-dir', dir, 'x'], { env: { AGENT_SESSION_ID: '' } });
    assert.equal(orphan.status, 1);
    assert.match(orphan.stderr, /--parent is required with --mode ASYNC_CALLBACK/);
    const failed = runCli(['run', '--runner', 'broken', '--data-dir', dir, 'x']);
    assert.equal(failed.status, 1);
    assert.match(failed.stderr, /^error: run [0-9a-f-]+ failed: .*exited with 3: runner broke on purpose/);
    const noWorkspace = runCli(['run', '--workspace', path.join(dir, 'nowhere'), '--data-dir', dir, 'x']);
    assert.equal(noWorkspace.status, 1);
    assert.match(noWorkspace.stderr, /--workspace: .*nowhere is not a directory/);
    const noRunners = runCli(['run', '--data-dir', tempDir(), 'x']);
    assert.equal(noRunners.status, 1);
    assert.match(noRunners.stderr, /runner: name one \(configured: none; add runners to config\.json\)/);
    assert.equal(runCli(['run', '--mode', 'LATER', '--data-dir', dir, 'x']).status, 2);
    assert.equal(runCli(['run', '--timeout', 'soon', '--data-dir', dir, 'x']).status, 2);
    fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ runners: {}, defaultRunner: 'ghost' }));
    const badConfig = runCli(['run', '--data-dir', dir, 'x']);
    assert.equal(badConfig.status, 1);
    assert.match(badConfig.stderr, /config\.json: defaultRunner: "ghost" is not one of the runners/);
    assert.equal(runCli(['run', '--data-dir', dir]).status, 2, 'a task is required');
  });
});

describe('baton serve and the children of its runs (built CLI, real signals)', function () {
  this.timeout(90_000);
  const leftovers: number[] = [];
  after(() => {
    for (const pid of leftovers) killQuietly(pid);
    cleanupTempDirs();
  });

  /** A data directory whose runner is a shell that records its pid and its background job's, then waits. */
  function dataDirWithShell(): { dir: string; childFile: string; jobFile: string } {
    const dir = tempDir();
    const childFile = path.join(dir, 'child.pid');
    const jobFile = path.join(dir, 'job.pid');
    const script = `echo $$ > '${childFile}'; sleep 1000 & echo $! > '${jobFile}'; wait`;
    fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ runners: { tree: { command: 'sh', args: ['-c', script] } } }));
    return { dir, childFile, jobFile };
  }

  function serve(dataDir: string): { child: ChildProcess; ready: Promise<{ url: string; token: string }> } {
    const child = spawn(process.execPath, [CLI, 'serve', '--data-dir', dataDir, '--port', '0', '--quiet'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    const ready = new Promise<{ url: string; token: string }>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (c: Buffer) => {
        out += c.toString();
        const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
        if (m) resolve({ url: m[1], token: JSON.parse(fs.readFileSync(path.join(dataDir, 'endpoint.json'), 'utf8')).token });
      });
      child.once('exit', (code) => reject(new Error(`serve exited early (${code})`)));
      setTimeout(() => reject(new Error('serve did not start in 20 s')), 20_000).unref();
    });
    return { child, ready };
  }

  /** Starts a run of the shell runner over HTTP and waits until its child and the child's job run. */
  async function startRun(url: string, token: string, files: { childFile: string; jobFile: string }): Promise<{ id: string; child: number; job: number }> {
    const res = await fetch(`${url}/api/runs/spawn`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ task: 'hold on', executionMode: 'ASYNC_POLL' }),
    });
    const body = (await res.json()) as { id: string };
    assert.equal(res.status, 200, JSON.stringify(body));
    const child = await pidFrom(files.childFile);
    const job = await pidFrom(files.jobFile);
    leftovers.push(child, job);
    return { id: body.id, child, job };
  }

  function exitOf(child: ChildProcess): Promise<number | null> {
    return new Promise((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code))));
  }

  it('SIGTERM with a run in flight: the server ends the whole group of its child, records the run failed and exits within its bound', async () => {
    assert.ok(fs.existsSync(CLI), 'npm run build first');
    const files = dataDirWithShell();
    const server = serve(files.dir);
    leftovers.push(server.child.pid!);
    const { url, token } = await server.ready;
    const run = await startRun(url, token, files);
    const signalled = Date.now();
    server.child.kill('SIGTERM');
    const exited = await Promise.race([exitOf(server.child), new Promise<'still running'>((r) => setTimeout(() => r('still running'), 15_000).unref())]);
    assert.equal(exited, 0, `baton serve after SIGTERM: ${exited}`);
    assert.ok(Date.now() - signalled < 10_000, `it took ${Date.now() - signalled} ms`);
    assert.ok(await gone(run.child), `the runner child ${run.child} still runs`);
    assert.ok(await gone(run.job), `the child's background job ${run.job} still runs`);
    const daemon = await startDaemon({ dataDir: files.dir, port: 0 });
    try {
      const stored = await getRun(daemon, run.id);
      assert.equal(stored.status, 'failed');
      assert.match(stored.error, /Baton shut down before the run finished/);
    } finally {
      await daemon.stop();
    }
  });

  it('kill -9 of the server with a run running: the next start records the run failed with the reason and ends the orphaned group', async () => {
    const files = dataDirWithShell();
    const server = serve(files.dir);
    leftovers.push(server.child.pid!);
    const { url, token } = await server.ready;
    const run = await startRun(url, token, files);
    server.child.kill('SIGKILL');
    await exitOf(server.child);
    assert.ok(!(await gone(run.child, 300)), 'nothing else ended the orphan: the restart must');
    const daemon = await startDaemon({ dataDir: files.dir, port: 0 });
    try {
      const stored = await getRun(daemon, run.id);
      assert.equal(stored.status, 'failed');
      assert.match(stored.error, /the server stopped before the run finished/);
      assert.ok(stored.finishedAt);
      const session = await fetch(`${daemon.server.url}/api/sessions/${encodeURIComponent(stored.sessionKey)}`, {
        headers: { authorization: `Bearer ${daemon.token}` },
      }).then((r) => r.json() as Promise<{ status: string }>);
      assert.equal(session.status, 'failed', 'the child session is ended too');
      assert.ok(await gone(run.child), `the orphaned runner child ${run.child} still runs`);
      assert.ok(await gone(run.job), `the orphan's background job ${run.job} still runs`);
    } finally {
      await daemon.stop();
    }
  });
});
