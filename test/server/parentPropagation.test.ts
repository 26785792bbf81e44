// A parent follows every process Baton starts (docs/runs.md, "How a child learns its parent";
// docs/harnesses.md, "Lineage"): a process that carries AGENT_SESSION_ID — the hook command, the
// `baton mcp` bridge, `baton run`, a runner that spawns through the API — lands under that session,
// and so does a Claude Code HTTP hook POSTed with X-Agent-Session-Id. Real server on 127.0.0.1,
// real store, the built hook command and CLI (dist/) as child processes, real runner processes.

import { strict as assert } from 'node:assert';
import { execFile, spawn } from 'node:child_process';
import * as path from 'node:path';
import { startDaemon, type Daemon } from '../../src/server/daemon';
import type { RunnerConfig } from '../../src/server/config';
import { CLI, ROOT } from '../helpers/child';
import { runHook } from '../helpers/hookProcess';
import { bearer, rawRequest, type RawResponse } from '../helpers/server';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';

const ECHO = path.join(ROOT, 'test', 'fixtures', 'echoRunner.js');
const NEST = path.join(ROOT, 'test', 'fixtures', 'nestRunner.js');

function ok(res: RawResponse, what: string): RawResponse {
  assert.equal(res.status, 200, `${what}: expected 200, got ${res.status}: ${res.text}`);
  return res;
}

/** The built CLI without blocking this process's event loop (the daemon in this process must answer it). */
function cli(args: string[], env: NodeJS.ProcessEnv): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { cwd: ROOT, timeout: 30_000, env: { ...process.env, ...env } }, (err, stdout, stderr) =>
      resolve({ status: err ? ((err as { code?: number }).code ?? null) : 0, stdout, stderr }),
    );
  });
}

/** `baton mcp` as a harness runs it: JSON-RPC lines on stdin, the replies (by id) from stdout. Killed after 20 s. */
function mcpBridge(dataDir: string, env: NodeJS.ProcessEnv, messages: object[]): Promise<Map<number, any>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'mcp', '--data-dir', dataDir], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c));
    child.stderr.on('data', (c: Buffer) => (stderr += c));
    const kill = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('close', (status) => {
      clearTimeout(kill);
      if (status !== 0) return reject(new Error(`baton mcp exited ${status}: ${stderr}`));
      const replies = new Map<number, any>();
      for (const line of stdout.split('\n').filter((l) => l.trim())) {
        const reply = JSON.parse(line);
        replies.set(reply.id, reply);
      }
      resolve(replies);
    });
    child.stdin.end(messages.map((m) => JSON.stringify(m)).join('\n') + '\n');
  });
}

describe('the parent follows every process Baton starts (AGENT_SESSION_ID, X-Agent-Session-Id)', function () {
  this.timeout(120_000);
  let dataDir: string;
  let daemon: Daemon;
  let port: number;
  let serial = 0;

  const post = (route: string, body: object, headers: Record<string, string> = {}) =>
    rawRequest({ port, method: 'POST', path: route, headers: { ...bearer(daemon.token), ...headers }, body });
  const get = (route: string) => rawRequest({ port, path: route, headers: bearer(daemon.token) });
  const session = async (key: string) => ok(await get(`/api/sessions/${encodeURIComponent(key)}`), `session ${key}`).json;
  /** A parent session with a line of its own, under a fresh key. */
  async function parentSession(note: string): Promise<string> {
    const key = `parent-${++serial}`;
    ok(await post('/api/hooks/user-prompt-submit', { harness: 'claude-code', sessionKey: key, userPrompt: note }), 'parent');
    return key;
  }

  before(async () => {
    dataDir = tempDir();
    const runner = (script: string, ...args: string[]): RunnerConfig => ({ command: process.execPath, args: [script, ...args] });
    daemon = await startDaemon({
      dataDir,
      port: 0,
      config: {
        runners: {
          echo: runner(ECHO, 'ok'),
          bare: runner(ECHO, 'ok', '${AGENT_SESSION_ID}'),
          // A run whose child runs `baton run` (no --parent), whose child spawns through the API with the
          // header, whose child runs the hook command for a new session.
          viaCli: runner(NEST, 'cli', dataDir, 'viaApi'),
          viaApi: runner(NEST, 'api', dataDir, 'viaHook'),
          viaHook: runner(NEST, 'hook', dataDir),
        },
        defaultRunner: 'echo',
        maxConcurrentRuns: 4,
        runTimeoutMs: 60_000,
      },
    });
    port = daemon.server.port;
  });
  after(async () => {
    await daemon.stop();
    cleanupTempDirs();
  });

  it('the hook command run with AGENT_SESSION_ID=P makes a new session a child of P (lineage source env)', async () => {
    const parent = await parentSession('HOOK-PARENT-NOTE');
    const out = await runHook(
      'claude-code',
      dataDir,
      { session_id: 'hook-child-1', cwd: '/proj', hook_event_name: 'SessionStart', source: 'startup' },
      {
        AGENT_SESSION_ID: parent,
      },
    );
    assert.equal(out.status, 0);
    const child = await session('hook-child-1');
    assert.equal(child.parentSessionKey, parent);
    assert.equal(child.lineageSource, 'env');
    assert.match(JSON.parse(out.stdout).hookSpecificOutput.additionalContext, /HOOK-PARENT-NOTE/, 'the child inherits its parent’s block');
  });

  it('the Claude Code HTTP hook keeps the request’s X-Agent-Session-Id and runtime path for its own calls', async () => {
    const parent = await parentSession('HTTP-HOOK-PARENT-NOTE');
    const hook = ok(
      await post(
        '/api/hooks/claude-code',
        { hook_event_name: 'SessionStart', session_id: 'http-child-1', cwd: '/proj', source: 'startup' },
        { 'x-agent-session-id': parent, 'x-baton-runtime-path': 'plugin' },
      ),
      'HTTP hook',
    );
    const child = await session('http-child-1');
    assert.equal(child.parentSessionKey, parent, 'the same parent the hook command would give it');
    assert.equal(child.lineageSource, 'env');
    assert.match(hook.json.hookSpecificOutput.additionalContext, /HTTP-HOOK-PARENT-NOTE/);
    // The session was started from the request's runtime path: another path may not write to it.
    const other = await post(
      '/api/hooks/user-prompt-submit',
      { harness: 'claude-code', sessionKey: 'http-child-1', userPrompt: 'x' },
      { 'x-baton-runtime-path': 'legacy' },
    );
    assert.equal(other.status, 409, other.text);
    ok(
      await post(
        '/api/hooks/user-prompt-submit',
        { harness: 'claude-code', sessionKey: 'http-child-1', userPrompt: 'x' },
        { 'x-baton-runtime-path': 'plugin' },
      ),
      'same path',
    );
  });

  it('the baton mcp bridge run with AGENT_SESSION_ID forwards it: the server answers for the caller’s parent session', async () => {
    const parent = await parentSession('MCP-PARENT-NOTE-4');
    const childKey = `${parent}/agent-m1`;
    ok(await post('/api/hooks/session-start', { harness: 'claude-code', sessionKey: childKey, parentSessionKey: parent }), 'child');
    const call = (id: number, name: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } });
    const messages = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'test', version: '1' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      call(2, 'session_transcript'),
      call(3, 'inherited_context'),
    ];
    const replies = await mcpBridge(dataDir, { AGENT_SESSION_ID: childKey }, messages);
    assert.equal(replies.get(2).result.isError, undefined, JSON.stringify(replies.get(2)));
    assert.equal(replies.get(2).result.content[0].text, 'User: MCP-PARENT-NOTE-4');
    assert.match(replies.get(3).result.content[0].text, /^## Inherited from Parent Session\n[\s\S]*MCP-PARENT-NOTE-4/);
    // Without AGENT_SESSION_ID the same calls have no session to default to.
    const bare = await mcpBridge(dataDir, { AGENT_SESSION_ID: '' }, messages);
    assert.equal(bare.get(2).result.isError, true);
  });

  it('POST /api/runs/spawn takes X-Agent-Session-Id as the parent when the body names none; the body’s parent wins', async () => {
    const parent = await parentSession('SPAWN-PARENT-NOTE');
    const run = ok(await post('/api/runs/spawn', { task: 'check it', runner: 'echo' }, { 'x-agent-session-id': parent }), 'spawn').json;
    assert.equal(run.status, 'completed', run.error);
    assert.equal(run.parentSessionKey, parent);
    assert.match(run.sessionKey, new RegExp(`^${parent}/run-[0-9a-f]{8}$`));
    const answer = JSON.parse(run.resultContent);
    assert.equal(answer.agentSessionId, run.sessionKey, 'the child got its own session, under the parent');
    assert.match(answer.promptStart, /SPAWN-PARENT-NOTE/, 'the child inherits the parent’s block');
    assert.equal((await session(run.sessionKey)).parentSessionKey, parent);

    const named = await parentSession('NAMED-PARENT-NOTE');
    const explicit = ok(
      await post('/api/runs/spawn', { task: 'check it', runner: 'echo', parentSessionKey: named }, { 'x-agent-session-id': parent }),
      'spawn',
    ).json;
    assert.equal(explicit.parentSessionKey, named);

    // ASYNC_CALLBACK needs a parent: the header is one.
    const callback = await post('/api/runs/spawn', { task: 'later', runner: 'echo', executionMode: 'ASYNC_CALLBACK' }, { 'x-agent-session-id': parent });
    assert.equal(callback.status, 200, callback.text);
    assert.equal(callback.json.parentSessionKey, parent);
    // A header that is no session key is the caller's error, and nothing is recorded.
    const before = ok(await get('/api/runs?limit=1000'), 'runs').json.count;
    const bad = await post('/api/runs/spawn', { task: 'x', runner: 'echo' }, { 'x-agent-session-id': '..' });
    assert.equal(bad.status, 400, bad.text);
    assert.match(bad.json.error, /^X-Agent-Session-Id: /);
    // The header's key meets the runner's arguments like a body's would (docs/security.md).
    const dash = await post('/api/runs/spawn', { task: 'x', runner: 'bare' }, { 'x-agent-session-id': '--exec=evil' });
    assert.equal(dash.status, 400, dash.text);
    assert.match(dash.json.error, /must not begin with '-'/);
    assert.equal(ok(await get('/api/runs?limit=1000'), 'runs').json.count, before);
  });

  it('baton run without --parent, inside AGENT_SESSION_ID, lands under it; --parent still wins', async () => {
    const parent = await parentSession('CLI-PARENT-NOTE');
    const res = await cli(['run', '--runner', 'echo', '--data-dir', dataDir, '--json', 'check it'], { AGENT_SESSION_ID: parent });
    assert.equal(res.status, 0, res.stderr);
    const run = JSON.parse(res.stdout);
    assert.equal(run.parentSessionKey, parent);
    assert.match(JSON.parse(run.resultContent).promptStart, /CLI-PARENT-NOTE/);
    const named = await parentSession('CLI-NAMED-NOTE');
    const explicit = await cli(['run', '--runner', 'echo', '--parent', named, '--data-dir', dataDir, '--json', 'check it'], { AGENT_SESSION_ID: parent });
    assert.equal(explicit.status, 0, explicit.stderr);
    assert.equal(JSON.parse(explicit.stdout).parentSessionKey, named);
    const callback = await cli(['run', '--runner', 'echo', '--mode', 'ASYNC_CALLBACK', '--data-dir', dataDir, 'later'], { AGENT_SESSION_ID: parent });
    assert.equal(callback.status, 0, callback.stderr);
  });

  it('nested runs (a runner running `baton run`, whose runner spawns through the API, whose runner runs the hook command) end each under the one before, with no orphan', async () => {
    const parent = await parentSession('NESTED-PARENT-NOTE');
    const top = ok(await post('/api/runs/spawn', { task: 'nest', runner: 'viaCli' }, { 'x-agent-session-id': parent }), 'spawn').json;
    assert.equal(top.status, 'completed', top.error);
    const first = JSON.parse(top.resultContent);
    const second = first.child;
    const third = JSON.parse(second.resultContent).child;
    const hooked = JSON.parse(third.resultContent);

    assert.equal(top.parentSessionKey, parent);
    assert.equal(first.agentSessionId, top.sessionKey);
    assert.equal(second.parentSessionKey, top.sessionKey, '`baton run` inside the run: its child is under the run');
    assert.equal(third.parentSessionKey, second.sessionKey, 'the API spawn with the header inside the next run: under that run');
    assert.equal(hooked.agentSessionId, third.sessionKey);
    assert.match(third.sessionKey, new RegExp(`^${parent}/run-[0-9a-f]{8}/run-[0-9a-f]{8}/run-[0-9a-f]{8}$`));
    const hookSession = await session(hooked.child.hookSession);
    assert.equal(hookSession.parentSessionKey, third.sessionKey, 'the hook command inside the last run: under that run');
    assert.equal(hookSession.lineageSource, 'env');

    // Every run and session of the tree has its parent, and each parent exists.
    const runs = ok(await get(`/api/runs?limit=1000`), 'runs').json.runs.filter((r: any) => r.sessionKey.startsWith(`${parent}/`));
    assert.equal(runs.length, 3);
    const { sessions } = ok(await get('/api/sessions?all=1&limit=1000'), 'sessions').json;
    const byKey = new Map<string, any>(sessions.map((s: any) => [s.key, s]));
    const rootOf = (s: any): string => (s.parentSessionKey && byKey.has(s.parentSessionKey) ? rootOf(byKey.get(s.parentSessionKey)) : s.key);
    const tree = sessions.filter((s: any) => rootOf(s) === parent);
    assert.deepEqual(
      tree.map((s: any) => s.key).sort(),
      [parent, top.sessionKey, second.sessionKey, third.sessionKey, hooked.child.hookSession].sort(),
      'the parent, three runs and the hooked session, all in one tree',
    );
    for (const run of runs) {
      assert.ok(run.parentSessionKey && byKey.has(run.parentSessionKey), `run ${run.id} has its parent`);
      assert.equal(run.status, 'completed');
      assert.equal((await session(run.sessionKey)).parentSessionKey, run.parentSessionKey);
    }
    for (const s of tree) if (s.key !== parent) assert.ok(s.parentSessionKey && byKey.has(s.parentSessionKey), `session ${s.key} has its parent`);
  });
});
