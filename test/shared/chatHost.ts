// A VS Code host with a working Chat view, for tests that drive the chat UI like a user: code-server
// 4.139.1 with Baton and the scripted language model (test/shared/scriptedModel) loaded as
// extensions under development, chat setup marked complete before the workbench loads (else the
// built-in Copilot Chat stays disabled and the view asks to sign in), Chromium driven by
// playwright-core. The model's replies come from a loopback ScriptServer the test controls; the
// Baton store is a fresh data directory whose endpoint the test reaches with a BatonClient.
//
// Everything is stopped by stop(): the browser, then code-server's whole process group (it keeps
// an extension host and an agentHost alive otherwise).

import { type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import {
  codeServerBin,
  freePort,
  hostInstalled,
  HOST_SETTINGS,
  killTree,
  remoteUri,
  seedChatSetup,
  startCodeServer,
  waitForHttp,
  workbenchUrl,
  writeUserSettings,
} from './vscodeHost';
import { BatonClient } from '../../src/client/batonClient';
import { readEndpoint } from '../../src/node/endpointCall';
import { chromiumBin, launchBrowserPage } from './browser';
import { bundleScriptedModel } from './bundleSuite';
import { startScriptServer, type ScriptServer } from './scriptServer';

const repoRoot = path.resolve(__dirname, '..', '..');
const verbose = process.env.BATON_VSCODE_VERBOSE === '1';

/** Why the chat host cannot start here (null: it can). */
export function chatHostMissing(): string | null {
  if (!hostInstalled()) return `code-server is not installed (${codeServerBin}): run \`bash scripts/dev/install-vscode-host.sh\``;
  if (!fs.existsSync(chromiumBin)) return `Chromium is missing at ${chromiumBin}: run \`bash scripts/dev/install-vscode-host.sh\``;
  if (!fs.existsSync(path.join(repoRoot, 'dist', 'extension.js'))) return 'dist/extension.js is missing: run `npm run build`';
  return null;
}

export interface ChatHostOptions {
  /** User settings on top of the host's defaults. */
  settings?: Record<string, unknown>;
  /** Files to create in the workspace before it opens (relative path → content). */
  files?: Record<string, string>;
  /** The workspace folder's name (default `workspace`): tool calls and chat files show it. */
  workspaceName?: string;
  /** Environment for code-server on top of the test's (e.g. a HOME of the test's own). */
  env?: NodeJS.ProcessEnv;
  /** Runs once the folders exist, before code-server starts (e.g. an install command writing user settings). */
  beforeStart?: (dirs: { workspace: string; userData: string; batonData: string }) => void | Promise<void>;
}

export interface ChatHost {
  port: number;
  page: Page;
  /** The Baton endpoint the extension serves (its data directory is fresh). */
  client: BatonClient;
  script: ScriptServer;
  dirs: { root: string; workspace: string; userData: string; batonData: string; artifacts: string };
  /** Writes a screenshot into the artifacts folder (and returns its path). */
  screenshot(name: string): Promise<string>;
  /** Stops everything; removes the host's folder unless `keep` (or BATON_VSCODE_KEEP=1). */
  stop(options?: { keep?: boolean }): Promise<string | null>;
}

export async function startChatHost(options: ChatHostOptions = {}): Promise<ChatHost> {
  const missing = chatHostMissing();
  if (missing) throw new Error(missing);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-chatview-'));
  const dirs = {
    root,
    workspace: path.join(root, options.workspaceName ?? 'workspace'),
    userData: path.join(root, 'user-data'),
    extensions: path.join(root, 'extensions'),
    batonData: path.join(root, 'baton-data'),
    // The scripted model is an installed extension: the workbench keeps only one
    // extensionDevelopmentPath (its payload is a map), and that one is Baton. A fresh profile's
    // first start scans its extensions folder, so an extension unpacked there as
    // <publisher>.<name>-<version> before that start is installed.
    model: path.join(root, 'extensions', 'baton-test.scripted-model-0.0.1'),
    artifacts: path.join(root, 'artifacts'),
  };
  for (const dir of Object.values(dirs)) fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dirs.workspace, 'README.md'), '# Baton chat view test workspace\n');
  for (const [rel, content] of Object.entries(options.files ?? {})) {
    fs.mkdirSync(path.dirname(path.join(dirs.workspace, rel)), { recursive: true });
    fs.writeFileSync(path.join(dirs.workspace, rel), content);
  }
  await bundleScriptedModel(dirs.model);
  writeUserSettings(dirs.userData, {
    ...HOST_SETTINGS,
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    ...options.settings,
  });
  await options.beforeStart?.(dirs);

  const script = await startScriptServer();
  let codeServer: ChildProcess | undefined;
  let browser: Browser | undefined;
  const log = fs.createWriteStream(path.join(dirs.artifacts, 'code-server.log'));
  const consoleLog = fs.createWriteStream(path.join(dirs.artifacts, 'browser-console.log'));
  const stop = async (o: { keep?: boolean } = {}): Promise<string | null> => {
    await browser?.close().catch(() => undefined);
    if (codeServer) await killTree(codeServer);
    await script.close();
    log.end();
    consoleLog.end();
    if (o.keep || process.env.BATON_VSCODE_KEEP === '1') return root;
    fs.rmSync(root, { recursive: true, force: true });
    return null;
  };
  try {
    const port = await freePort();
    codeServer = startCodeServer({
      port,
      configDir: root,
      userDataDir: dirs.userData,
      extensionsDir: dirs.extensions,
      disableWorkspaceTrust: true,
      developmentPayload: true,
      cwd: dirs.workspace,
      env: { ...process.env, ...options.env, BATON_DATA_DIR: dirs.batonData, BATON_SCRIPTED_MODEL_URL: script.url },
    });
    for (const stream of [codeServer.stdout!, codeServer.stderr!]) {
      stream.on('data', (chunk: Buffer) => {
        log.write(chunk);
        if (verbose) process.stdout.write(`[code-server] ${chunk.toString()}`);
      });
    }
    await waitForHttp(`http://127.0.0.1:${port}/healthz`, codeServer, 60_000);
    const launched = await launchBrowserPage();
    browser = launched.browser;
    const page = launched.page;
    page.on('console', (msg) => consoleLog.write(`[${msg.type()}] ${msg.text()}\n`));
    page.on('pageerror', (err) => consoleLog.write(`[pageerror] ${err.stack ?? err.message}\n`));
    await seedChatSetup(page, port);
    await page.goto(
      workbenchUrl(port, dirs.workspace, [
        ['extensionDevelopmentPath', remoteUri(port, repoRoot)],
        ['skipWelcome', 'true'],
      ]),
      { waitUntil: 'domcontentloaded' },
    );
    // Baton activates on startup and, alone on its data directory, leads: it writes endpoint.json.
    const client = await waitForEndpoint(dirs.batonData, 90_000);
    let shots = 0;
    return {
      port,
      page,
      client,
      script,
      dirs,
      stop,
      async screenshot(name) {
        const file = path.join(dirs.artifacts, `${String(++shots).padStart(2, '0')}-${name}.png`);
        await page.screenshot({ path: file, timeout: 15_000 });
        return file;
      },
    };
  } catch (err) {
    const kept = await stop({ keep: true });
    (err as Error).message += ` (logs in ${kept}/artifacts)`;
    throw err;
  }
}

async function waitForEndpoint(dataDir: string, ms: number): Promise<BatonClient> {
  const deadline = Date.now() + ms;
  let last = '';
  while (Date.now() < deadline) {
    const info = readEndpoint(dataDir);
    if (info) {
      const client = new BatonClient(info);
      try {
        await client.health();
        return client;
      } catch (err) {
        last = (err as Error).message;
      }
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`Baton did not serve ${dataDir} within ${ms} ms${last ? ` (${last})` : ''}`);
}
