// The host in the real extension host: activation on startup-finished without blocking on the store,
// the Baton LogOutputChannel, the status bar, and leader/follower takeover against a real
// `baton serve` child process that is SIGKILLed.
//
// This file is loaded first (see index.ts), so the extension is usually not active yet when the
// module loads: the first test waits for VS Code's own onStartupFinished activation.

import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  api,
  endpointOf,
  extension,
  nextEvent,
  post,
  prompt,
  sessionEnd,
  sessionStart,
  sleep,
  uid,
  waitFor,
  within,
  type BatonApi,
  type HostLike,
} from './helpers';

const loadedAt = Date.now();
const atLoad = (() => {
  const ext = vscode.extensions.getExtension<BatonApi>('baton-dev.baton');
  return { active: ext?.isActive ?? false, role: ext?.isActive ? ext.exports?.host?.role : undefined };
})();

type HostCtor = new (log: vscode.LogOutputChannel, settings: Record<string, unknown>) => HostLike;

/** A second BatonHost, built with the extension's own class and settings but another data dir. */
function dedicatedHost(a: BatonApi, dataDir: string, log: vscode.LogOutputChannel): HostLike {
  const Ctor = a.host.constructor as unknown as HostCtor;
  const settings = (a.host as unknown as { settings: Record<string, unknown> }).settings;
  assert.ok(settings && typeof settings === 'object', 'the host keeps its settings');
  return new Ctor(log, { ...settings, dataDir, port: 0 });
}

function tmpDir(tag: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `baton-vs-${tag}-`));
}

describe('Host: activation and the log', () => {
  it('declares onStartupFinished and VS Code activates it on its own; the store opens in the background', async function () {
    this.timeout(60_000);
    const ext = extension();
    assert.ok((ext.packageJSON.activationEvents as string[]).includes('onStartupFinished'), JSON.stringify(ext.packageJSON.activationEvents));
    let roleAtActivation = atLoad.role;
    if (!atLoad.active) {
      // Nobody calls activate() here: VS Code must activate it after startup finished.
      await waitFor(() => ext.isActive, 45_000, 'activation by onStartupFinished', 5);
      roleAtActivation = ext.exports.host.role;
    }
    const activeAfter = Date.now() - loadedAt;
    assert.ok(roleAtActivation === 'starting' || roleAtActivation === 'leader', `role right after activation: ${roleAtActivation}`);
    const host = ext.exports.host;
    const t0 = Date.now();
    await within(host.ready, 30_000, 'host.ready');
    assert.equal(host.role, 'leader');
    assert.ok(host.client && host.port, 'a leader has a client and a port');
    console.log(
      `      (active ${atLoad.active ? 'before the suite loaded' : `${activeAfter} ms after the suite loaded`}; role then: ${roleAtActivation}; ready ${Date.now() - t0} ms later)`,
    );
  });

  it('start() returns at once with role "starting" and becomes leader when ready (dedicated host)', async function () {
    this.timeout(60_000);
    const a = await api();
    const dir = tmpDir('start');
    const log = vscode.window.createOutputChannel('Baton start test', { log: true });
    const host = dedicatedHost(a, dir, log);
    try {
      const roles: string[] = [];
      host.onDidChangeRole((r) => roles.push(r));
      assert.equal(host.role, 'starting');
      const t0 = process.hrtime.bigint();
      host.start();
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      assert.ok(ms < 50, `start() took ${ms.toFixed(1)} ms`);
      assert.equal(host.role, 'starting', 'start() must not open the store synchronously');
      await within(host.ready, 30_000, 'dedicated host ready');
      assert.equal(host.role, 'leader');
      assert.deepEqual(roles, ['leader']);
      assert.equal((await host.client!.listSessions({ all: true })).total, 0);
    } finally {
      await within(host.stop(), 15_000, 'host.stop()');
      host.dispose();
      log.dispose();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  // start() must be idempotent. A second lead() on a running leader would find the lock naming its
  // own pid, fail to open the store a second time (DataDirLockedError) and fall back to following
  // its own endpoint: a leader demoted to a follower of itself. activation.test.ts calls
  // host.start() again (index.ts runs it last).
  it('a second start() keeps a leader the leader', async function () {
    this.timeout(60_000);
    const a = await api();
    const dir = tmpDir('restart');
    const log = vscode.window.createOutputChannel('Baton restart test', { log: true });
    const host = dedicatedHost(a, dir, log);
    try {
      host.start();
      await within(host.ready, 30_000, 'dedicated host ready');
      assert.equal(host.role, 'leader');
      host.start();
      await sleep(3_000);
      assert.equal(host.role, 'leader');
    } finally {
      await within(host.stop(), 15_000, 'host.stop()');
      host.dispose();
      log.dispose();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('logs to a LogOutputChannel named "Baton", and baton.showLog shows it', async () => {
    const a = await api();
    const log = a.host.log;
    assert.equal(log.name, 'Baton');
    assert.equal(typeof log.trace, 'function');
    assert.equal(typeof log.logLevel, 'number', 'a LogOutputChannel has a log level');
    const commands = await vscode.commands.getCommands(true);
    assert.ok(commands.includes('baton.showLog'));
    await vscode.commands.executeCommand('baton.showLog');
    // Shown, the channel's document is open in the workbench, with the host's log lines in it.
    const doc = await waitFor(
      () => vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'output' && /Leader: store in .* endpoint http:\/\/127\.0\.0\.1:\d+/.test(d.getText())),
      10_000,
      `the Baton output document (open: ${vscode.workspace.textDocuments.map((d) => `${d.uri.toString()} (${d.getText().length} chars)`).join(', ')})`,
    );
    assert.match(doc.uri.path, /Baton/);
  });
});

describe('Host: status bar', () => {
  it('shows leader, the endpoint port and the live count, and follows hooks (event-driven)', async function () {
    this.timeout(30_000);
    const a = await api();
    const { host, statusBar } = a;
    assert.equal(host.role, 'leader');
    const pattern = /Baton leader :(\d+) · (\d+) live/;
    const first = await waitFor(() => pattern.exec(statusBar.text), 5_000, `status bar text (${statusBar.text})`);
    assert.equal(Number(first[1]), host.port);
    const live = await host.client!.count('live');
    await waitFor(() => pattern.exec(statusBar.text)?.[2] === String(live), 3_000, `status bar shows ${live} live (${statusBar.text})`);

    const key = uid('status');
    const t0 = Date.now();
    await sessionStart(endpointOf(host), { key, project: '/tmp/status-project' });
    await waitFor(() => pattern.exec(statusBar.text)?.[2] === String(live + 1), 3_000, `status bar shows ${live + 1} live (${statusBar.text})`, 20);
    const upMs = Date.now() - t0;
    await sessionEnd(endpointOf(host), key, 'completed');
    await waitFor(() => pattern.exec(statusBar.text)?.[2] === String(live), 3_000, `status bar back to ${live} live (${statusBar.text})`, 20);
    console.log(`      (status bar updated ${upMs} ms after the hook)`);
  });
});

describe('Host: leader/follower takeover with a real `baton serve`', () => {
  let serve: ChildProcess | undefined;
  let follower: HostLike | undefined;
  let log: vscode.LogOutputChannel | undefined;
  let dir: string | undefined;

  after(async () => {
    if (serve && serve.exitCode === null && serve.signalCode === null) serve.kill('SIGKILL');
    if (follower) {
      await within(follower.stop(), 15_000, 'follower.stop()').catch(() => undefined);
      follower.dispose();
    }
    log?.dispose();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('follows a running daemon, sees its sessions, and leads on the same dir within 5 s of its SIGKILL with every acknowledged write', async function () {
    this.timeout(90_000);
    const a = await api();
    dir = tmpDir('takeover');
    const cli = path.join(extension().extensionPath, 'dist', 'cli.js');
    serve = spawn(process.execPath, [cli, 'serve', '--data-dir', dir, '--port', '0', '--quiet'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
    });
    let output = '';
    serve.stdout!.on('data', (c: Buffer) => (output += c.toString()));
    serve.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    const url = await waitFor(
      () =>
        /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1] ??
        (serve!.exitCode !== null ? Promise.reject(new Error(`serve exited: ${output}`)) : null),
      30_000,
      'baton serve listening',
    );
    const endpointFile = JSON.parse(fs.readFileSync(path.join(dir, 'endpoint.json'), 'utf8')) as { url: string; token: string; pid: number };
    assert.equal(endpointFile.url, url);
    assert.equal(endpointFile.pid, serve.pid);
    const daemon = { url, token: endpointFile.token };

    // Writes through the daemon, each acknowledged before the next.
    const keys: string[] = [];
    for (let i = 0; i < 8; i++) {
      const key = uid('takeover');
      keys.push(key);
      await sessionStart(daemon, { key, project: '/tmp/takeover-project', title: `takeover ${i}` });
      await prompt(daemon, key, `question ${i} about zebrafish`, undefined);
    }
    const child = uid('takeover-child');
    await sessionStart(daemon, { key: child, parent: keys[0], project: '/tmp/takeover-project' });

    log = vscode.window.createOutputChannel('Baton takeover test', { log: true });
    follower = dedicatedHost(a, dir, log);
    follower.start();
    await within(follower.ready, 20_000, 'second host ready');
    assert.equal(follower.role, 'follower');
    assert.equal(follower.client!.url, url, 'the follower talks to the daemon');
    const seen = await follower.client!.listSessions({ all: true, limit: 100 });
    assert.equal(seen.total, keys.length + 1);
    const children = await follower.client!.listSessions({ parent: keys[0] });
    assert.deepEqual(
      children.sessions.map((s) => s.key),
      [child],
    );

    // The follower hears of changes made by others through the daemon's event stream.
    const later = uid('takeover-late');
    const heard = nextEvent(follower.onDidChangeSessions, 3_000, 'follower change event', (k) => k.includes(later));
    await sessionStart(daemon, { key: later, project: '/tmp/takeover-project' });
    await heard;
    keys.push(later);
    // And writes through the follower's client land in the daemon's store (acknowledged too).
    await prompt({ url: follower.client!.url, token: follower.client!.endpoint.token }, later, 'written through the follower', 'reply before');

    const leader = nextEvent(follower.onDidChangeRole, 10_000, 'follower becomes leader', (r) => r === 'leader');
    const killedAt = Date.now();
    serve.kill('SIGKILL');
    await within(leader, 10_000, 'takeover');
    const takeoverMs = Date.now() - killedAt;
    assert.ok(takeoverMs <= 5_000, `took over after ${takeoverMs} ms`);
    assert.equal(follower.role, 'leader');
    assert.equal(follower.dataDir, dir);
    assert.notEqual(follower.client!.url, url, 'the new leader serves its own endpoint');
    const lock = JSON.parse(fs.readFileSync(path.join(dir, 'baton.lock'), 'utf8')) as { pid: number };
    assert.equal(lock.pid, process.pid, 'the lock names the extension host now');

    const after = await follower.client!.listSessions({ all: true, limit: 100 });
    assert.deepEqual(new Set(after.sessions.map((s) => s.key)), new Set([...keys, child]));
    for (const key of keys.slice(0, 8)) {
      const turns = await follower.client!.turns(key);
      assert.equal(turns.total, 1, `${key} kept its turn`);
      assert.match(turns.turns[0].text, /zebrafish/);
    }
    const lateTurns = await follower.client!.turns(later);
    assert.deepEqual(
      lateTurns.turns.map((t) => t.text),
      ['reply before', 'written through the follower'],
    );
    assert.equal((await follower.client!.getSession(child))?.parentSessionKey, keys[0]);
    // The new leader takes writes.
    await post({ url: follower.client!.url, token: follower.client!.endpoint.token }, '/api/hooks/session-start', {
      harness: 'claude-code',
      sessionKey: uid('after-takeover'),
    });
    console.log(`      (takeover ${takeoverMs} ms after SIGKILL)`);

    await within(follower.stop(), 15_000, 'stop');
    assert.equal(follower.role, 'stopped');
    assert.equal(fs.existsSync(path.join(dir, 'baton.lock')), false, 'stop() releases the lock');
  });
});
