// `npm start` the way a newcomer runs it (issue 22, docs/demo.md): the script npm start runs
// (scripts/dev/run-vscode.ts, with the arguments npm start passes plus a free port and a fresh profile
// directory) is spawned, its printed URL is opened in Chromium, and the test looks at what a user
// sees: the Baton view in focus with the demo's featured session selected and its sub-agents
// under it, a search that finds the constraint the user stated, the inherited-context preview of
// that session with the constraint in its block, and `@baton /parent` answered in the Chat view
// with the offline demo model. The README's screenshots are taken from this run: with
// BATON_SCREENSHOTS_DIR=<dir> they are written there as start-tree.png, start-search.png,
// start-preview.png and start-chat.png.
//
// Needs the VS Code host (bash scripts/dev/install-vscode-host.sh) and `npm run build`. Run alone:
//   npx mocha --no-config --require test/helpers/checkReplies.ts --node-option import=tsx \
//     --extension ts --timeout 60000 test/vscode/chatView/npmStart.test.ts

import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { freePort } from '../../shared/vscodeHost';
import { readDemoMarker } from '../../../src/node/demoData';
import { frameWith, launchBrowserPage } from '../../shared/browser';
import { chatHostMissing } from '../../shared/chatHost';
import { clearToasts, latestReply, pickModel, prepareChat, runCommand, send } from '../../shared/chatUi';

const repoRoot = path.resolve(__dirname, '..', '..', '..');
const screenshotsDir = process.env.BATON_SCREENSHOTS_DIR ? path.resolve(process.env.BATON_SCREENSHOTS_DIR) : undefined;
const STEP_MS = 30_000;

/** The demo's featured session and two of its sub-agents, as the tree labels them (their first prompts). */
const FEATURED = 'Customers were charged twice';
const CHILDREN = ['Audit every retry path', 'Write a regression test for chargeCard'];
const CONSTRAINT = 'production database';

/** Waits until the output so far matches `re` (or the process ends, or time runs out). */
function waitForOutput(child: ChildProcess, output: () => string, re: RegExp, ms: number): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    const deadline = setTimeout(() => done(new Error(`no ${String(re)} within ${ms} ms; output:\n${output().slice(-3_000)}`)), ms);
    const check = (): void => {
      const m = re.exec(output());
      if (m) done(null, m);
    };
    const exited = (code: number | null): void =>
      done(new Error(`npm start exited (${code}) before printing ${String(re)}; output:\n${output().slice(-3_000)}`));
    const done = (err: Error | null, m?: RegExpExecArray): void => {
      clearTimeout(deadline);
      child.stdout!.off('data', check);
      child.off('exit', exited);
      if (err) reject(err);
      else resolve(m!);
    };
    child.stdout!.on('data', check);
    child.once('exit', exited);
    check();
  });
}

describe('npm start: Baton on the demo, seen through the browser (code-server, Chromium)', function () {
  this.timeout(120_000);
  let profile: string;
  let start: ChildProcess | undefined;
  let browser: Browser | undefined;
  let page: Page;
  let output = '';
  let url = '';
  /** The featured session's key, from the demo data directory npm start names. */
  let featuredKey = '';

  async function shot(name: string): Promise<void> {
    // Toasts (the demo notice) can arrive a moment late: clear, wait, clear again.
    await clearToasts(page);
    await page.waitForTimeout(1_000);
    await clearToasts(page);
    await page.mouse.move(1270, 790);
    await page.waitForTimeout(400);
    const file = path.join(profile, `start-${name}.png`);
    await page.screenshot({ path: file, timeout: 15_000 });
    if (screenshotsDir) {
      fs.mkdirSync(screenshotsDir, { recursive: true });
      fs.copyFileSync(file, path.join(screenshotsDir, `start-${name}.png`));
    }
  }

  before(async function () {
    this.timeout(300_000);
    const missing = chatHostMissing();
    if (missing) {
      if (process.env.CI === 'true') throw new Error(missing);
      this.skip();
    }
    profile = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-npm-start-'));
    const port = await freePort();
    // What `npm start` runs after its build, in a process group of its own so that the end of the
    // test can stop all of it.
    start = spawn(process.execPath, ['--import', 'tsx', 'scripts/dev/run-vscode.ts', '--port', String(port), '--profile', profile], {
      cwd: repoRoot,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, BATON_DATA_DIR: path.join(profile, 'not-the-demo') },
    });
    start.stdout!.on('data', (c: Buffer) => (output += c.toString()));
    start.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    url = (await waitForOutput(start, () => output, /open (http:\/\/127\.0\.0\.1:\d+\/\S+)/, 180_000))[1];
    const demoDir = /demo data in (\S+)/.exec(output)?.[1];
    assert.ok(demoDir, `npm start says it runs on the demo data: ${output}`);
    assert.ok(demoDir.startsWith(profile), `the demo data lives in this run's profile, not in a user's data directory: ${demoDir}`);
    featuredKey = readDemoMarker(demoDir)?.featured ?? '';
    assert.ok(featuredKey, 'the demo names a featured session');

    ({ browser, page } = await launchBrowserPage());
    // The printed URL answers once code-server is up.
    const deadline = Date.now() + 60_000;
    for (;;) {
      const res = await page.goto(url, { waitUntil: 'domcontentloaded' }).catch(() => null);
      if (res?.ok()) break;
      if (Date.now() > deadline) throw new Error(`the printed URL never answered: ${url}\n${output.slice(-2_000)}`);
      await page.waitForTimeout(500);
    }
  });

  after(async function () {
    this.timeout(30_000);
    await browser?.close().catch(() => undefined);
    if (start?.pid !== undefined && start.exitCode === null) {
      const exited = new Promise((r) => start!.once('exit', r));
      // run-vscode stops code-server's own process group on SIGTERM; then its own group goes.
      process.kill(-start.pid, 'SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
      try {
        process.kill(-start.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
    // The profile (VS Code state, demo data, screenshots) stays for a look when a test failed.
    const passed = this.test?.parent?.tests.every((t) => t.state === 'passed') ?? false;
    if (profile && passed) fs.rmSync(profile, { recursive: true, force: true });
  });

  it('opens on the Baton view with the featured session selected, its sub-agents under it and its preview in the editor; no Welcome page', async () => {
    const sidebarTitle = page.locator('.part.sidebar .composite.title', { hasText: /Baton/i }).first();
    await sidebarTitle.waitFor({ state: 'visible', timeout: 90_000 });
    const rows = page.locator('.part.sidebar .monaco-list-row');
    const selected = page.locator('.part.sidebar .monaco-list-row.selected', { hasText: FEATURED });
    await selected.first().waitFor({ state: 'visible', timeout: 90_000 });
    for (const child of CHILDREN) await rows.filter({ hasText: child }).first().waitFor({ state: 'visible', timeout: STEP_MS });
    const texts = (await rows.allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
    const parentAt = texts.findIndex((t) => t.includes(FEATURED));
    const childAt = texts.findIndex((t) => t.includes(CHILDREN[0]));
    assert.ok(parentAt >= 0 && childAt > parentAt, `the sub-agent is listed under its parent: ${texts.join(' | ')}`);
    assert.ok(texts.length >= 8, `the demo's sessions are listed: ${texts.length} rows`);
    assert.equal(await page.locator('.part.sidebar .monaco-list-row', { hasText: FEATURED }).first().getAttribute('aria-expanded'), 'true');
    // The folder is trusted for this run: no trust dialog over the workbench.
    assert.equal(await page.locator('.monaco-dialog-box', { hasText: /trust/i }).count(), 0);
    // Baton first: the featured session's inherited-context preview is the editor, opened by Baton
    // itself; not the host's Welcome page or a walkthrough.
    const tabs = page.locator('.part.editor .tabs-container .tab');
    await tabs
      .filter({ hasText: /Inherited / })
      .first()
      .waitFor({ state: 'visible', timeout: 90_000 });
    const tabTitles = (await tabs.allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
    assert.ok(!tabTitles.some((t) => /welcome|walkthrough|getting started/i.test(t)), `no Welcome page: ${tabTitles.join(' | ')}`);
    const previewFrame = await frameWith(page, 'section.part h2', 45_000);
    assert.ok(previewFrame, 'the preview webview rendered its sections');
    assert.match((await previewFrame.locator('body').innerText()).replace(/\s+/g, ' '), new RegExp(FEATURED), 'the preview is of the featured session');
    // No unrelated notifications (demo/ lies inside this repository: the git parent-folder prompt).
    await page.waitForTimeout(2_000);
    const toasts = (await page.locator('.notifications-toasts .notification-toast').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
    assert.ok(!toasts.some((t) => /git repository|parent folder|walkthrough/i.test(t)), `no unrelated notifications: ${toasts.join(' | ')}`);
    await page.locator('.part.sidebar .composite.title').first().click();
    // A wider side bar, so that titles fit.
    const box = await page.locator('.part.sidebar').boundingBox();
    if (box && box.width < 420) {
      await page.mouse.move(box.x + box.width, box.y + box.height / 2);
      await page.mouse.down();
      await page.mouse.move(box.x + 470, box.y + box.height / 2, { steps: 8 });
      await page.mouse.up();
    }
    await shot('tree');
  });

  it('finds the constraint the user stated with Baton: Search Sessions', async () => {
    await runCommand(page, 'Baton: Search Sessions');
    const input = page.locator('.quick-input-widget .quick-input-box input');
    await page.locator('.quick-input-widget .quick-input-title', { hasText: 'Search Sessions' }).waitFor({ state: 'visible', timeout: STEP_MS });
    await input.fill(CONSTRAINT);
    const hit = page.locator('.quick-input-widget .monaco-list-row', { hasText: featuredKey }).first();
    await hit.waitFor({ state: 'visible', timeout: STEP_MS });
    await page.waitForTimeout(800);
    // Excerpts mark the hit words with guillemets: «production» «database».
    const rows = (await page.locator('.quick-input-widget .monaco-list-row').allInnerTexts()).map((t) => t.replace(/[«»]/g, '').replace(/\s+/g, ' ').trim());
    assert.ok(
      rows.some((r) => r.includes(featuredKey) && /production database/i.test(r)),
      `a hit in the featured session shows the constraint: ${rows.join(' | ')}`,
    );
    await shot('search');
    await page.keyboard.press('Escape');
  });

  it("previews the selected session's inherited context: the block carries the constraint", async () => {
    await runCommand(page, 'Baton: Preview Inherited Context');
    const input = page.locator('.quick-input-widget .quick-input-box input');
    const chooser = page.locator('.quick-input-widget .quick-input-title', { hasText: 'Choose a session' });
    // With a session selected in the tree the preview may open at once; else it asks which one.
    if (
      await chooser.waitFor({ state: 'visible', timeout: 5_000 }).then(
        () => true,
        () => false,
      )
    ) {
      await input.fill(FEATURED);
      await page.locator('.quick-input-widget .monaco-list-row.focused', { hasText: FEATURED }).first().waitFor({ state: 'visible', timeout: STEP_MS });
      await input.press('Enter');
    }
    await page
      .locator('.tabs-container .tab', { hasText: /Inherited / })
      .first()
      .waitFor({ state: 'visible', timeout: STEP_MS });
    const frame = await frameWith(page, 'section.part h2', 45_000);
    assert.ok(frame, 'the preview webview rendered its sections');
    const text = (await frame.locator('body').innerText()).replace(/\s+/g, ' ');
    assert.match(text, /production database/i, 'the block names the constraint');
    assert.match(text, new RegExp(FEATURED), 'the block names the parent by its title');
    await shot('preview');
  });

  it('answers `@baton /parent` in the Chat view with the offline demo model', async () => {
    await runCommand(page, 'View: Close All Editors').catch(() => undefined);
    await prepareChat(page);
    const label = await pickModel(page, 'Scripted');
    assert.match(label, /Scripted/);
    await send(page, '@baton /parent');
    const { text, reply } = await latestReply(page, /production database/i, 90_000);
    assert.match(text, new RegExp(FEATURED), `the reply is about the selected session: ${text.slice(0, 400)}`);
    // The screenshot shows the reply from its first line (the list scrolls to its end).
    // The wheel over the request row (a code block in the reply would take it).
    const request = await page.locator('.interactive-request').last().boundingBox();
    const box = request ?? (await reply.boundingBox());
    if (box) {
      await page.mouse.move(box.x + box.width / 2, box.y + Math.min(box.height, 40) / 2);
      for (let i = 0; i < 20; i++) await page.mouse.wheel(0, -400);
      await page.waitForTimeout(300);
    }
    await shot('chat');
  });
});
