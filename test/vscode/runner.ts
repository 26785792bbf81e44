// Runs test/vscode/suite in a real VS Code extension host, offline: code-server 4.100.3 (VS Code
// 1.100.3, installed by scripts/install-vscode-host.sh outside the repository) serves the
// workbench, Debian's Chromium driven by playwright-core opens it with this repository as the
// extension under development, and the workbench runs the bundled suite's run() in the extension
// host, then calls window.codeAutomationExit(code).
//
//   npm run test:vscode
//
// Environment: BATON_VSCODE_HOST_DIR (where code-server is installed, default
// ~/.cache/baton-vscode-host), BATON_VSCODE_TIMEOUT_MS (whole run, default 600000),
// BATON_VSCODE_GREP (mocha grep), BATON_VSCODE_VERBOSE=1 (stream code-server's and the
// browser's output), BATON_VSCODE_KEEP=1 (keep the temp folder after a passing run).

import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import * as util from 'node:util';
import * as esbuild from 'esbuild';
import { chromium, type Browser, type Page } from 'playwright-core';

const repoRoot = path.resolve(__dirname, '..', '..');
const hostDir = process.env.BATON_VSCODE_HOST_DIR || path.join(os.homedir(), '.cache', 'baton-vscode-host');
const codeServerBin = path.join(hostDir, 'node_modules', '.bin', 'code-server');
const chromiumBin = process.env.BATON_VSCODE_CHROMIUM || '/usr/bin/chromium';
const timeoutMs = Number(process.env.BATON_VSCODE_TIMEOUT_MS || 600_000);
const verbose = process.env.BATON_VSCODE_VERBOSE === '1';
const started = Date.now();

function say(line: string): void {
  process.stdout.write(`[vscode-runner] ${line}\n`);
}

function freePort(): Promise<number> {
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

async function waitForHttp(url: string, child: ChildProcess, ms: number): Promise<void> {
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

/** Bundles the suite, mocha included, into one CommonJS file the extension host can require. */
async function bundleSuite(outDir: string): Promise<string> {
  await esbuild.build({
    absWorkingDir: repoRoot,
    entryPoints: { index: 'test/vscode/suite/index.ts' },
    outdir: outDir,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    external: ['vscode'],
    sourcemap: 'inline', // for a debugger; the extension host's own stack traces ignore it
    logLevel: 'warning',
    // mocha's parallel mode (never used here) resolves its worker files at run time.
    logOverride: { 'require-resolve-not-external': 'silent' },
  });
  return path.join(outDir, 'index.js');
}

/** Kills code-server and everything it started (it runs in its own process group). */
async function killTree(child: ChildProcess): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const signal = (sig: NodeJS.Signals): void => {
    try {
      process.kill(-child.pid!, sig);
    } catch {
      /* already gone */
    }
  };
  signal('SIGTERM');
  const timer = setTimeout(() => signal('SIGKILL'), 5_000);
  await Promise.race([exited, new Promise((r) => setTimeout(r, 8_000))]);
  clearTimeout(timer);
  signal('SIGKILL'); // stragglers of the group (extension host, pty host) that outlived the server
}

async function main(): Promise<number> {
  if (!fs.existsSync(codeServerBin)) {
    say(`code-server is not installed at ${codeServerBin}.`);
    say('Run `bash scripts/install-vscode-host.sh` first (set BATON_VSCODE_HOST_DIR to install elsewhere).');
    return 2;
  }
  if (!fs.existsSync(chromiumBin)) {
    say(`Chromium is missing at ${chromiumBin}: run \`bash scripts/install-vscode-host.sh\` first.`);
    return 2;
  }
  if (!fs.existsSync(path.join(repoRoot, 'dist', 'extension.js'))) {
    say('dist/extension.js is missing: run `npm run build` (npm run test:vscode does).');
    return 2;
  }

  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-vscode-'));
  const dirs = {
    userData: path.join(tmp, 'user-data'),
    extensions: path.join(tmp, 'extensions'),
    workspace: path.join(tmp, 'workspace'),
    batonData: path.join(tmp, 'baton-data'),
    suite: path.join(tmp, 'suite'),
    artifacts: path.join(tmp, 'artifacts'),
  };
  for (const dir of Object.values(dirs)) fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dirs.workspace, 'README.md'), '# Baton extension test workspace\n');

  let codeServer: ChildProcess | undefined;
  let browser: Browser | undefined;
  let page: Page | undefined;
  let exitCode = 1;
  let timer: NodeJS.Timeout | undefined;
  let finished = false;
  const serverLogPath = path.join(dirs.artifacts, 'code-server.log');
  const browserLogPath = path.join(dirs.artifacts, 'browser-console.log');
  const serverLog = fs.createWriteStream(serverLogPath);
  const browserLog = fs.createWriteStream(browserLogPath);

  const onSignal = (sig: NodeJS.Signals): void => {
    say(`received ${sig}, stopping`);
    if (codeServer) void killTree(codeServer).finally(() => process.exit(130));
    else process.exit(130);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  try {
    const testsEntry = await bundleSuite(dirs.suite);
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;

    // Our own config file, so that a developer's ~/.config/code-server/config.yaml (a password,
    // a certificate) cannot change how the workbench is served.
    const configFile = path.join(tmp, 'code-server.yaml');
    fs.writeFileSync(configFile, `bind-addr: 127.0.0.1:${port}\nauth: none\ncert: false\n`);
    const args = [
      '--config', configFile,
      '--auth', 'none',
      '--bind-addr', `127.0.0.1:${port}`,
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      '--user-data-dir', dirs.userData,
      '--extensions-dir', dirs.extensions,
    ];
    say(`starting code-server on ${base} (temp ${tmp})`);
    codeServer = spawn(codeServerBin, args, {
      cwd: dirs.workspace,
      detached: true, // own process group, so killTree() reaches the extension host too
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        // The extension's store goes to a fresh folder, never the developer's own.
        BATON_DATA_DIR: dirs.batonData,
      },
    });
    for (const stream of [codeServer.stdout!, codeServer.stderr!]) {
      stream.on('data', (chunk: Buffer) => {
        serverLog.write(chunk);
        if (verbose) process.stdout.write(`[code-server] ${chunk.toString()}`);
      });
    }

    const hardTimeout = new Promise<number>((resolve) => {
      timer = setTimeout(() => {
        say(`FAILED: timed out after ${timeoutMs} ms (BATON_VSCODE_TIMEOUT_MS)`);
        resolve(124);
      }, timeoutMs);
    });
    const serverDied = new Promise<number>((resolve) => {
      codeServer!.once('exit', (code, sig) => {
        if (!finished) say(`FAILED: code-server exited (${code ?? sig}) during the run`);
        resolve(1);
      });
    });

    const run = async (): Promise<number> => {
      await waitForHttp(`${base}/healthz`, codeServer!, 60_000);
      say(`code-server answers after ${((Date.now() - started) / 1000).toFixed(1)} s; launching ${chromiumBin}`);
      browser = await chromium.launch({
        executablePath: chromiumBin,
        args: [
          '--no-sandbox',
          '--disable-gpu',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
          '--no-first-run',
          '--disable-quic',
        ],
      });
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      page = await context.newPage();
      page.on('console', (msg) => {
        browserLog.write(`[${msg.type()}] ${msg.text()}\n`);
        if (verbose) process.stdout.write(`[browser ${msg.type()}] ${msg.text()}\n`);
      });
      page.on('pageerror', (err) => browserLog.write(`[pageerror] ${err.stack ?? err.message}\n`));

      // Both must exist before the workbench loads: it looks for them when the tests end.
      let resolveExit!: (code: number) => void;
      const exited = new Promise<number>((resolve) => (resolveExit = resolve));
      await page.exposeFunction('codeAutomationExit', (code: number) => {
        resolveExit(typeof code === 'number' ? code : 1);
      });
      await page.exposeFunction('codeAutomationLog', (type: string, args: unknown[]) => {
        // The extension host's console reaches here, one entry per call, with its format string
        // (mocha's reporter logs `%s`/`%d` templates) still unapplied.
        const text = util.format(...(Array.isArray(args) ? args : [args]));
        process.stdout.write(`${type === 'error' ? '[error] ' : ''}${text}\n`);
      });

      const remote = (p: string): string => `vscode-remote://127.0.0.1:${port}${p.split('/').map(encodeURIComponent).join('/')}`;
      const payload = [
        ['extensionDevelopmentPath', remote(repoRoot)],
        ['extensionTestsPath', remote(testsEntry)],
        ['skipWelcome', 'true'],
      ];
      const url = `${base}/?folder=${encodeURIComponent(dirs.workspace)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
      say('opening the workbench');
      await page.goto(url, { waitUntil: 'domcontentloaded' });
      return exited;
    };

    const running = run();
    running.catch(() => undefined); // once the timeout has won, its late rejection is expected
    exitCode = await Promise.race([running, hardTimeout, serverDied]);
  } catch (err) {
    say(`FAILED: ${(err as Error).stack ?? err}`);
    exitCode = 1;
  } finally {
    finished = true;
    clearTimeout(timer);
    if (exitCode !== 0) {
      if (page) {
        const shot = path.join(dirs.artifacts, 'failure.png');
        try {
          await page.screenshot({ path: shot, timeout: 15_000 });
          say(`screenshot: ${shot}`);
        } catch (err) {
          say(`no screenshot: ${(err as Error).message}`);
        }
      }
      say(`code-server log: ${serverLogPath}`);
      say(`browser console: ${browserLogPath}`);
    }
    await browser?.close().catch(() => undefined);
    if (codeServer) await killTree(codeServer);
    serverLog.end();
    browserLog.end();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    if (exitCode === 0 && process.env.BATON_VSCODE_KEEP !== '1') {
      fs.rmSync(tmp, { recursive: true, force: true });
    } else {
      say(`kept ${tmp}`);
    }
  }
  say(`${exitCode === 0 ? 'passed' : `FAILED (exit ${exitCode})`} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return exitCode;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    say(`FAILED: ${(err as Error).stack ?? err}`);
    process.exit(1);
  },
);
