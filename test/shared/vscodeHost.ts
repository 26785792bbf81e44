// The VS Code host that `npm start` and the extension tests run: code-server 4.139.1 (VS Code
// 1.139.1) on the Node 24 that scripts/dev/install-vscode-host.sh installs next to it, outside the
// repository. One place knows where they live, how to start code-server (in its own process
// group) and how to stop all of it: code-server leaves an extension host and an "agentHost"
// process alive after a page closes, so only killing the whole group ends a run.

import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

export const CODE_SERVER_VERSION = '4.139.1';

/** Where install-vscode-host.sh puts code-server and its Node (BATON_VSCODE_HOST_DIR overrides). */
export const hostDir = process.env.BATON_VSCODE_HOST_DIR || path.join(os.homedir(), '.cache', `baton-code-server-${CODE_SERVER_VERSION}`);
export const codeServerBin = path.join(hostDir, 'node_modules', '.bin', 'code-server');
export const nodeBinDir = path.join(hostDir, 'node', 'bin');
export const installScript = path.resolve(__dirname, '..', '..', 'scripts', 'dev', 'install-vscode-host.sh');

export function hostInstalled(): boolean {
  return fs.existsSync(codeServerBin) && fs.existsSync(path.join(nodeBinDir, 'node'));
}

/** `env` with the host's Node 24 first on PATH: code-server's launcher runs `#!/usr/bin/env node`. */
export function hostEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...env, PATH: `${nodeBinDir}${path.delimiter}${env.PATH ?? ''}` };
}

export interface CodeServerOptions {
  port: number;
  userDataDir: string;
  extensionsDir: string;
  /**
   * A folder for a config file of our own (code-server.yaml: this port, no auth, no certificate),
   * so a developer's ~/.config/code-server/config.yaml (a password, a certificate) cannot interfere.
   */
  configDir?: string;
  /** Workspace trust prompts off (tests). */
  disableWorkspaceTrust?: boolean;
  /**
   * Honour the URL's payload (extensionDevelopmentPath, extensionTestsPath): a built VS Code 1.139
   * workbench does so only with the smoke-test driver on, which also answers every modal dialog
   * "cancel". For tests; `npm start` installs Baton instead.
   */
  developmentPayload?: boolean;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  stdio?: SpawnOptions['stdio'];
}

/** Starts code-server on 127.0.0.1 in its own process group (stop it with killTree). */
export function startCodeServer(o: CodeServerOptions): ChildProcess {
  let configFile: string | undefined;
  if (o.configDir) {
    configFile = path.join(o.configDir, 'code-server.yaml');
    fs.writeFileSync(configFile, `bind-addr: 127.0.0.1:${o.port}\nauth: none\ncert: false\n`);
  }
  const args = [
    ...(configFile ? ['--config', configFile] : []),
    '--auth',
    'none',
    '--bind-addr',
    `127.0.0.1:${o.port}`,
    '--disable-telemetry',
    '--disable-update-check',
    ...(o.disableWorkspaceTrust ? ['--disable-workspace-trust'] : []),
    '--user-data-dir',
    o.userDataDir,
    '--extensions-dir',
    o.extensionsDir,
    // code-server passes VS Code server flags it does not model itself through --vscode-option.
    ...(o.developmentPayload ? ['--vscode-option', 'enable-smoke-test-driver'] : []),
  ];
  return spawn(codeServerBin, args, {
    cwd: o.cwd,
    detached: true, // own process group, so killTree() reaches the extension host and agentHost too
    stdio: o.stdio ?? ['ignore', 'pipe', 'pipe'],
    env: hostEnv(o.env),
  });
}

/**
 * User settings every host run starts with: no "Your application running on port … is available"
 * toast (Baton's own endpoint triggers it, and it covers the chat input).
 */
export const HOST_SETTINGS = { 'remote.autoForwardPorts': false } as const;

/** Writes `settings` into the profile's user settings (merged over what is there). */
export function writeUserSettings(userDataDir: string, settings: Record<string, unknown>): void {
  const file = path.join(userDataDir, 'User', 'settings.json');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  let current: Record<string, unknown> = {};
  try {
    current = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch {
    /* none yet, or not plain JSON: start over */
  }
  fs.writeFileSync(file, JSON.stringify({ ...current, ...settings }, null, 2));
}

/** Kills code-server and everything it started (it runs in its own process group). */
export async function killTree(child: ChildProcess): Promise<void> {
  if (child.pid === undefined) return;
  const running = child.exitCode === null && child.signalCode === null;
  const signal = (sig: NodeJS.Signals): void => {
    try {
      process.kill(-child.pid!, sig);
    } catch {
      /* already gone */
    }
  };
  if (running) {
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    signal('SIGTERM');
    const timer = setTimeout(() => signal('SIGKILL'), 5_000);
    await Promise.race([exited, new Promise((r) => setTimeout(r, 8_000))]);
    clearTimeout(timer);
  }
  // Stragglers of the group (extension host, pty host, agentHost) that outlive the server.
  signal('SIGKILL');
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

function httpStatus(url: string): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get(url, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve(0));
    req.setTimeout(2_000, () => req.destroy());
  });
}

export async function waitForHttp(url: string, child: ChildProcess, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`code-server exited (${child.exitCode ?? child.signalCode}) before answering ${url}`);
    }
    const status = await httpStatus(url);
    if (status >= 200 && status < 500) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`code-server did not answer ${url} within ${ms} ms`);
}

/** A path on the code-server machine as the workbench names it (payload entries). */
export function remoteUri(port: number, p: string): string {
  return `vscode-remote://127.0.0.1:${port}${p.split('/').map(encodeURIComponent).join('/')}`;
}

/** The workbench URL for a folder and a payload of [name, value] pairs. */
export function workbenchUrl(port: number, folder: string, payload: Array<[string, string]>): string {
  const query = `folder=${encodeURIComponent(folder)}${payload.length ? `&payload=${encodeURIComponent(JSON.stringify(payload))}` : ''}`;
  return `http://127.0.0.1:${port}/?${query}`;
}

/** What a page needs to mark chat setup complete (see seedChatSetup). */
export interface PageLike {
  goto(url: string, options?: { waitUntil?: 'domcontentloaded' | 'load' }): Promise<unknown>;
  evaluate<R, A>(fn: (arg: A) => R | Promise<R>, arg: A): Promise<R>;
}

/**
 * On a fresh profile VS Code keeps its built-in Copilot Chat disabled (and the chat view asks to
 * sign in) until chat setup is "completed". The workbench reads that from the browser's
 * IndexedDB: so before it loads, a same-origin page stores the completed state there. Then Copilot
 * Chat activates and models of other extensions show in the chat view's picker, no sign-in.
 */
export async function seedChatSetup(page: PageLike, port: number): Promise<void> {
  await page.goto(`http://127.0.0.1:${port}/healthz`, { waitUntil: 'domcontentloaded' });
  await page.evaluate(
    (value) =>
      new Promise<void>((resolve, reject) => {
        const open = indexedDB.open('vscode-web-state-db-global', 1);
        open.onupgradeneeded = () => {
          if (!open.result.objectStoreNames.contains('ItemTable')) open.result.createObjectStore('ItemTable');
        };
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const tx = open.result.transaction('ItemTable', 'readwrite');
          tx.objectStore('ItemTable').put(value, 'chat.setupContext');
          tx.oncomplete = () => {
            open.result.close();
            resolve();
          };
          tx.onerror = () => reject(tx.error);
        };
      }),
    JSON.stringify({ entitlement: 1, installed: true, completed: true }),
  );
}
