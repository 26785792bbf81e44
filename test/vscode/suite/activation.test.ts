// Runs inside code-server's extension host (VS Code 1.139.1): the extension as VS Code loads it,
// from dist/extension.js. The exports are probed structurally rather than typed against
// src/vscode/host, so this suite keeps compiling while the host's API evolves.

import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';

const EXTENSION_ID = 'baton-dev.baton';

/** What this suite relies on from `activate()`'s exports. */
interface HostLike {
  dataDir: string;
  /** Either resolves with the running daemon, or (leader/follower host) starts in the background. */
  start(): unknown;
  ready?: Promise<void>;
  role?: string;
  client?: { endpoint: { url: string } } | null;
}
interface BatonExports {
  host: HostLike;
}

async function activated(): Promise<vscode.Extension<BatonExports>> {
  const ext = vscode.extensions.getExtension<BatonExports>(EXTENSION_ID);
  assert.ok(ext, `extension ${EXTENSION_ID} is not loaded`);
  await ext.activate();
  return ext;
}

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The URL of the endpoint the host runs (or follows), once it is up. */
async function endpointUrl(host: HostLike): Promise<string> {
  const started = (await within(Promise.resolve(host.start()), 30_000, 'host.start()')) as { server?: { url?: string } } | null | undefined;
  if (started && typeof started === 'object' && typeof started.server?.url === 'string') return started.server.url;
  assert.notEqual(started, null, 'host.start() resolved without a daemon (see the Baton log)');
  if (host.ready) await within(host.ready, 30_000, 'host.ready');
  const url = host.client?.endpoint?.url;
  assert.ok(url, `the host runs no endpoint (role ${host.role ?? 'unknown'}; see the Baton log)`);
  return url;
}

describe('Baton in a real VS Code extension host', () => {
  it('runs in code-server (VS Code for the Web)', () => {
    assert.equal(vscode.env.uiKind, vscode.UIKind.Web);
    assert.ok(vscode.version.startsWith('1.139.'), `VS Code ${vscode.version}`);
  });

  it('is loaded from this repository and activates', async () => {
    const ext = vscode.extensions.getExtension<BatonExports>(EXTENSION_ID);
    assert.ok(ext, `extension ${EXTENSION_ID} is not loaded`);
    assert.equal(ext.packageJSON.name, 'baton');
    assert.equal(ext.packageJSON.publisher, 'baton-dev');
    const exports = await ext.activate();
    assert.equal(ext.isActive, true);
    assert.ok(exports && typeof exports === 'object', 'activate() returned no exports');
    assert.ok(exports.host, 'exports.host is missing');
  });

  it('registers baton.showLog, and running it does not throw', async () => {
    await activated();
    const commands = await vscode.commands.getCommands(true);
    assert.ok(commands.includes('baton.showLog'), 'baton.showLog is not registered');
    await vscode.commands.executeCommand('baton.showLog');
  });

  it('starts the store and endpoint in the data dir the runner chose, and /api/health answers', async () => {
    const { exports } = await activated();
    const expectedDataDir = process.env.BATON_DATA_DIR;
    assert.ok(expectedDataDir, 'the runner sets BATON_DATA_DIR for the extension host');
    assert.equal(path.resolve(exports.host.dataDir), path.resolve(expectedDataDir));

    const url = new URL(await endpointUrl(exports.host));
    assert.equal(url.hostname, '127.0.0.1');
    const res = await fetch(new URL('/api/health', url));
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { status: 'ok' });
  });
});
