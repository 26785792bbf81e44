// The hook command starts on every harness event, so what it loads is paid on every prompt
// (docs/harnesses.md, "What a hook costs"): dist/hook.js loads a Node built-in only when the
// event uses it. Through the built hook as a harness runs it, with Node's own module log.

import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startDaemon, type Daemon } from '../../src/server/daemon';
import { HOOK, runHook } from '../helpers/hookProcess';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';

/** Whether a hook process loaded the harnesses' mappings (dist/hookLocal.js), from Node's module log. */
function mappingsLoaded(stderr: string): boolean {
  return /hookLocal/.test(stderr);
}

/** The built-in modules a hook process loaded, from Node's module log. */
function builtinsLoaded(stderr: string): Set<string> {
  return new Set([...stderr.matchAll(/load built-in module (node:[\w/]+)/g)].map((m) => m[1]));
}

describe('the hook command loads only what the event uses (dist/hook.js, NODE_DEBUG=module)', function () {
  this.timeout(60_000);
  const moduleLog = { NODE_DEBUG: 'module' };
  let daemon: Daemon | undefined;
  after(async () => {
    await daemon?.stop();
    cleanupTempDirs();
  });

  it('with the endpoint down: no HTTP client and no crypto are loaded, and the failure is still one hooks.log line', async () => {
    const down = tempDir();
    const r = await runHook('claude-code', down, { session_id: 's', hook_event_name: 'UserPromptSubmit', prompt: 'x' }, moduleLog);
    assert.equal(r.status, 0);
    assert.equal(r.stdout, '');
    const loaded = builtinsLoaded(r.stderr);
    assert.ok(loaded.has('node:fs'), `the module log was read: ${[...loaded].join(', ')}`);
    const log = fs.readFileSync(path.join(down, 'hooks.log'), 'utf8').trim().split('\n');
    assert.equal(log.length, 1, log.join('\n'));
    assert.match(log[0], /no running Baton endpoint/);
    for (const unused of ['node:http', 'node:crypto', 'node:os'])
      assert.ok(!loaded.has(unused), `${unused} is not loaded when no request is sent: ${[...loaded].join(', ')}`);
  });

  it('with a running endpoint: only the socket is loaded when the event is sent, and the event is answered', async () => {
    const dataDir = tempDir();
    daemon = await startDaemon({ dataDir, port: 0 });
    await runHook('codex', dataDir, { session_id: 'p', cwd: '/p', hook_event_name: 'UserPromptSubmit', prompt: 'Codex parent STARTUP-MARK' });
    const r = await runHook(
      'codex',
      dataDir,
      { session_id: 'p', cwd: '/p', hook_event_name: 'SubagentStart', agent_id: 'thread-1', agent_type: 'worker' },
      moduleLog,
    );
    assert.equal(r.status, 0);
    assert.match(JSON.parse(r.stdout).hookSpecificOutput.additionalContext, /STARTUP-MARK/);
    assert.ok(builtinsLoaded(r.stderr).has('node:net'), 'the socket the request is sent on');
    assert.ok(!builtinsLoaded(r.stderr).has('node:http'), "the request is written on the socket: Node's HTTP client is never loaded");
    assert.ok(!builtinsLoaded(r.stderr).has('node:crypto'), 'crypto is loaded only by an event that writes a state file');
    assert.match(r.stderr, /hookMain/, 'the module log names the hook command');
    assert.ok(!mappingsLoaded(r.stderr), 'the event was relayed: the mappings (dist/hookLocal.js) were never loaded');
  });

  it("an event that must run in the hook's own process loads the mappings, and is answered the same", async () => {
    const dataDir = tempDir();
    const running = await startDaemon({ dataDir, port: 0 });
    try {
      // Claude Code's SessionStart points Baton's HTTP hook entries at the server: only the hook's process may.
      const r = await runHook('claude-code', dataDir, { session_id: 'local-1', cwd: '/p', hook_event_name: 'SessionStart', source: 'startup' }, moduleLog);
      assert.equal(r.status, 0);
      assert.ok(mappingsLoaded(r.stderr), 'the mappings were loaded');
      const sessions = await running.store.read('listSessions', { scope: { agentId: 'default' }, limit: 10 });
      assert.deepEqual(
        sessions.sessions.map((x: { key: string }) => x.key),
        ['local-1'],
      );
    } finally {
      await running.stop();
    }
  });

  it('a launcher without the hook command beside it (a broken install) still exits 0 with nothing on stdout', async () => {
    const alone = tempDir('baton-hook-alone-');
    fs.copyFileSync(HOOK, path.join(alone, 'hook.js'));
    const r = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [path.join(alone, 'hook.js'), 'claude-code', '--data-dir', tempDir()], { stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c));
      child.stderr.on('data', (c: Buffer) => (stderr += c));
      const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
      child.on('close', (status) => {
        clearTimeout(kill);
        resolve({ status, stdout, stderr });
      });
      child.stdin.end(JSON.stringify({ session_id: 's', hook_event_name: 'UserPromptSubmit', prompt: 'x' }));
    });
    assert.equal(r.status, 0);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /could not load the hook command/);
  });
});
