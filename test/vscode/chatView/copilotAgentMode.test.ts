// Copilot agent mode end to end (docs/harnesses.md, "VS Code agent mode"): code-server 4.139.1
// (VS Code 1.139.1, Copilot Chat built in) with Baton and the scripted language model, driven by
// Chromium like a user, no network. Baton's hooks are installed the way a user installs them
// (`baton install vscode`: the hook file under ~/.baton/vscode-hooks and `chat.hookFilesLocations`
// in the profile's user settings; HOME is a folder of the test's own). In Agent mode the scripted
// model answers the parent's prompt, which holds a secret marker, with a `runSubagent` call whose
// prompt lacks it; the sub-agent calls the same model. Asserted: the sub-agent's first model
// request carries Baton's inherited block with the marker; the child sits under the parent in
// Baton's store with its task and result; `baton search` (the real CLI) finds the parent's words.
//
// A second hook file in the workspace (.github/hooks) records every payload VS Code sent, and the
// run's hook transcript and chat session log are copied to the artifacts folder: with
// BATON_COPILOT_FIXTURES=<dir> they are also written there (test/fixtures/copilot/recorded is
// where the harness's tests read them). BATON_SCREENSHOTS_DIR=<dir> writes the Baton tree with the
// Copilot parent and its child to <dir>/copilot-agent-mode.png.
//
// Needs the VS Code host (bash scripts/dev/install-vscode-host.sh) and `npm run build`. Run alone:
//   npx mocha --no-config --require test/helpers/checkReplies.ts --node-option import=tsx \
//     --extension ts --timeout 60000 test/vscode/chatView/copilotAgentMode.test.ts

import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { INHERIT_HEADING } from '../../../src/core/inherit';
import { startChatHost, type ChatHost } from '../../shared/chatHost';
import { clearToasts, latestReply, pickModel, prepareChat, send } from '../../shared/chatUi';
import { allText, type RecordedRequest } from '../../shared/scriptServer';

const repoRoot = path.resolve(__dirname, '..', '..', '..');
const cli = path.join(repoRoot, 'dist', 'cli.js');
const screenshotsDir = process.env.BATON_SCREENSHOTS_DIR ? path.resolve(process.env.BATON_SCREENSHOTS_DIR) : undefined;
const fixturesDir = process.env.BATON_COPILOT_FIXTURES ? path.resolve(process.env.BATON_COPILOT_FIXTURES) : undefined;

const HOOK_EVENTS = ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'PreCompact', 'SubagentStart', 'SubagentStop', 'Stop'];

/** Polls `probe` until it returns a value (bounded). */
async function until<T>(what: string, ms: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms${last ? ` (${(last as Error).message})` : ''}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** Files under `dir` (recursively) whose path matches `re`. */
function findFiles(dir: string, re: RegExp): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, entry.name);
      if (entry.isDirectory()) walk(p);
      else if (re.test(p)) out.push(p);
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return out;
}

describe('Copilot agent mode with Baton hooks (code-server 4.139.1, Chromium, scripted model)', function () {
  this.timeout(180_000);
  const tag = crypto.randomBytes(3).toString('hex');
  const marker = `orchid${tag}secret`;
  const searchWord = `kumquat${tag}`;
  const subWord = `subtask${tag}`;
  const callId = `call_${tag}`;
  const parentPrompt = `Audit the ${searchWord} invoice exporter. The secret marker is ${marker}. Delegate the file listing to a sub-agent.`;
  const subPrompt = `List the files of the workspace (${subWord}) and say which one is the README.`;
  const subDescription = 'List the workspace files';
  const childFinal = `The workspace holds README.md only (${subWord} done).`;
  const parentFinal = `The sub-agent reported back: README.md is the only file.`;
  let host: ChatHost;
  let page: Page;
  let home: string;
  let payloadLog: string;
  let failed = false;
  /** The listing tool the sub-agent called (agent mode's own name for it). */
  let childListTool = '';
  const listCallId = `call_ls${tag}`;

  const partsOf = (r: RecordedRequest) => r.messages.flatMap((m) => m.parts);
  const mentionsCall = (id: string) => id === callId || id.startsWith(`${callId}__`);
  /** A request of the sub-agent: its task's words, and not the parent's conversation (which holds the call). */
  const isChildRequest = (r: RecordedRequest) => allText(r).includes(subWord) && !partsOf(r).some((p) => p.type === 'toolCall' && mentionsCall(p.callId));

  before(async function () {
    this.timeout(300_000);
    // HOME of the test's own: `~/.baton/vscode-hooks` (the install's folder) resolves there for both the install and code-server.
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-copilot-home-'));
    payloadLog = path.join(home, 'hook-payloads.jsonl');
    // The server reads agent mode's transcripts under the user data folders it knows (docs/harnesses.md):
    // this profile's is named the way a user of `--user-data-dir` names theirs (set below, once it exists).
    const hostEnv: NodeJS.ProcessEnv = { HOME: home };
    host = await startChatHost({
      settings: { 'baton.port': 0, 'chat.tools.global.autoApprove': true, 'chat.tools.autoApprove': true },
      beforeStart: (dirs) => {
        hostEnv.BATON_VSCODE_USER_DATA_DIRS = dirs.userData;
        // Every payload VS Code sends, recorded beside Baton's own hook (a workspace hook file fires by default).
        const record = { type: 'command', command: `cat >> '${payloadLog}'; echo >> '${payloadLog}'`, timeout: 5 };
        fs.mkdirSync(path.join(dirs.workspace, '.github', 'hooks'), { recursive: true });
        fs.writeFileSync(
          path.join(dirs.workspace, '.github', 'hooks', 'record.json'),
          JSON.stringify({ hooks: Object.fromEntries(HOOK_EVENTS.map((e) => [e, [record]])) }, null, 2),
        );
        // The user's path: `baton install vscode` writes Baton's hook file and the setting.
        const installed = spawnSync(
          process.execPath,
          [cli, 'install', 'vscode', '--data-dir', dirs.batonData, '--settings-file', path.join(dirs.userData, 'User', 'settings.json')],
          { encoding: 'utf8', env: { ...process.env, HOME: home }, timeout: 30_000 },
        );
        assert.equal(installed.status, 0, `baton install vscode failed: ${installed.stderr}${installed.stdout}`);
      },
      env: hostEnv,
    });
    page = host.page;
    const settings = JSON.parse(fs.readFileSync(path.join(host.dirs.userData, 'User', 'settings.json'), 'utf8')) as Record<string, unknown>;
    assert.deepEqual(settings['chat.hookFilesLocations'], { '~/.baton/vscode-hooks': true }, 'install added its folder to the setting');
    assert.ok(fs.existsSync(path.join(home, '.baton', 'vscode-hooks', 'baton.json')), 'install wrote the hook file');
    await prepareChat(page);
    const label = await pickModel(page, 'Scripted');
    assert.match(label, /Scripted/);
  });

  afterEach(function () {
    if (this.currentTest?.state === 'failed') failed = true;
  });

  after(async function () {
    this.timeout(60_000);
    if (host) {
      // What the real run left behind, for the harness's fixtures and for debugging.
      const storage = path.join(host.dirs.userData, 'User', 'workspaceStorage');
      const recorded = [
        ...findFiles(storage, /GitHub\.copilot-chat[\\/]transcripts[\\/][^\\/]+\.jsonl$/i),
        ...findFiles(storage, /[\\/]chatSessions[\\/][^\\/]+\.jsonl?$/),
      ];
      for (const file of recorded) fs.copyFileSync(file, path.join(host.dirs.artifacts, path.basename(file)));
      if (fixturesDir) {
        fs.mkdirSync(fixturesDir, { recursive: true });
        for (const file of [...recorded, payloadLog].filter((f) => f && fs.existsSync(f)))
          fs.copyFileSync(
            file,
            path.join(
              fixturesDir,
              path.basename(file).replace(/^[0-9a-f-]{36}/, () => (/transcripts/.test(file) ? 'transcript' : 'chatSession')),
            ),
          );
      }
    }
    if (payloadLog && fs.existsSync(payloadLog) && host) fs.copyFileSync(payloadLog, path.join(host.dirs.artifacts, 'hook-payloads.jsonl'));
    // The folder (logs, screenshots, what VS Code wrote) stays when the test failed.
    const kept = await host?.stop({ keep: failed });
    if (kept) console.log(`kept ${kept}`);
    if (home) fs.rmSync(home, { recursive: true, force: true });
  });

  it('a runSubagent child receives the inherited block, appears under its parent with task and result, and the parent is searchable', async () => {
    host.script.respond = (request) => {
      const parts = partsOf(request);
      if (parts.some((p) => p.type === 'toolResult' && mentionsCall(p.callId))) return { parts: [{ text: parentFinal }] };
      if (isChildRequest(request)) {
        // The sub-agent lists the folder with one of agent mode's own tools, then answers.
        if (parts.some((p) => p.type === 'toolResult' && p.callId.startsWith(listCallId))) return { parts: [{ text: childFinal }] };
        const listTool = request.tools.find((t) => /list_?dir/i.test(t));
        if (!listTool) return { parts: [{ text: `no listing tool among ${request.tools.join(', ')}` }] };
        childListTool = listTool;
        return { parts: [{ toolCall: { callId: listCallId, name: listTool, input: { path: host.dirs.workspace } } }] };
      }
      if (request.tools.includes('runSubagent') && allText(request).includes(marker))
        return {
          parts: [
            { text: 'Delegating the listing.' },
            { toolCall: { callId, name: 'runSubagent', input: { prompt: subPrompt, description: subDescription } } },
          ],
        };
      // Side requests (a title for the chat): anything short.
      return { parts: [{ text: 'Invoice exporter audit' }] };
    };
    await send(page, parentPrompt);
    await latestReply(page, parentFinal, 120_000);

    // (a) The sub-agent's first model request carries the inherited block with the parent's marker.
    const childRequests = host.script.requests.filter(isChildRequest);
    assert.ok(childRequests.length > 0, `the sub-agent called the model (${host.script.requests.length} requests in all)`);
    const first = allText(childRequests[0]);
    assert.ok(!subPrompt.includes(marker), 'the task itself lacks the marker');
    assert.ok(first.includes(INHERIT_HEADING), `the inherited block reached the sub-agent: ${first.slice(0, 1500)}`);
    assert.ok(first.includes(marker), `with the parent's marker: ${first.slice(0, 1500)}`);

    // (b) The child sits under the parent in Baton's store, with its task, type and result.
    const parent = await until('the Copilot parent in the tree', 30_000, async () => {
      const roots = await host.client.tree();
      return roots.find((r) => r.harness === 'copilot' && r.children.length > 0);
    });
    const child = parent.children[0];
    assert.equal(child.harness, 'copilot');
    assert.equal(child.parentSessionKey, parent.key);
    assert.equal(child.harnessAgentId, callId);
    const digest = await until('the child finished with its result', 30_000, async () => {
      const r = await host.client.call('subagents', { params: { key: parent.key } });
      const c = r.children.find((x) => x.sessionKey === child.key);
      return c && c.result?.includes(subWord) ? c : undefined;
    });
    assert.equal(digest.status, 'completed');
    assert.ok(digest.task?.includes(subWord) || digest.task?.includes(subDescription), `the task: ${digest.task}`);
    assert.equal(digest.type, 'default', 'agent mode names the default agent type');
    assert.ok(digest.result?.includes(childFinal), `the result: ${digest.result}`);
    // The parent's transcript is its own: its prompt and final answer, not the sub-agent's reply.
    const parentText = await until("the parent's final answer", 30_000, async () => {
      const t = JSON.stringify((await host.client.turns(parent.key)).turns);
      return t.includes(parentFinal) ? t : undefined;
    });
    assert.ok(parentText.includes(marker), 'the parent holds its prompt');
    assert.ok(!parentText.includes(childFinal), "the sub-agent's reply is not the parent's");
    const childTurns = await host.client.turns(child.key);
    assert.ok(
      childTurns.turns.some((t) => JSON.stringify(t).includes(subPrompt)),
      "the child's transcript starts with its task",
    );
    // The sub-agent's own tool call (its hooks carry only the parent's session id) is the child's, not the parent's.
    assert.ok(childListTool, 'the sub-agent was offered a listing tool');
    assert.ok(
      childTurns.turns.some((t) => t.role === 'tool' && t.text.includes(childListTool)),
      `the child's transcript holds its ${childListTool} call: ${JSON.stringify(childTurns.turns).slice(0, 1500)}`,
    );
    assert.ok(!parentText.includes(`call_ls${tag}`) && !parentText.includes(`${childListTool}(`), "the sub-agent's tool call is not the parent's");

    // (c) The real CLI finds the parent's words in the same data directory.
    const search = spawnSync(process.execPath, [cli, 'search', searchWord, '--data-dir', host.dirs.batonData, '--json'], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(search.status, 0, search.stderr);
    const hits = (JSON.parse(search.stdout) as { hits: Array<{ sessionKey: string }> }).hits;
    assert.ok(
      hits.some((h) => h.sessionKey === parent.key),
      `baton search ${searchWord} finds the parent ${parent.key}: ${search.stdout.slice(0, 600)}`,
    );

    // Every hook fired through Baton's own hook file too: the recorded payloads show what VS Code sent.
    const payloads = fs
      .readFileSync(payloadLog, 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const events = new Set(payloads.map((p) => p.hook_event_name ?? p.hookEventName));
    for (const e of ['UserPromptSubmit', 'PreToolUse', 'SubagentStart', 'SubagentStop', 'PostToolUse'])
      assert.ok(events.has(e), `${e} fired (${[...events].join(', ')})`);

    await treeScreenshot(parent.title ?? parent.key, child.title ?? subDescription);
  });

  /** The Baton view with the Copilot parent expanded to show its child (docs/copilot-agent-mode.png). */
  async function treeScreenshot(parentLabel: string, childLabel: string): Promise<void> {
    await clearToasts(page);
    const item = page.locator('.part.activitybar [aria-label^="Baton"]').first();
    await item.waitFor({ state: 'visible', timeout: 20_000 });
    const title = page.locator('.part.sidebar .composite.title', { hasText: /Baton/i }).first();
    for (let attempt = 0; attempt < 3 && !(await title.isVisible()); attempt++) {
      await item.click();
      await title.waitFor({ state: 'visible', timeout: 3_000 }).catch(() => undefined);
    }
    // A wider side bar, so that labels and descriptions fit (drag the sash at its right edge).
    const box = await page.locator('.part.sidebar').boundingBox();
    if (box && box.width < 420) {
      await page.mouse.move(box.x + box.width, box.y + box.height / 2);
      await page.mouse.down();
      await page.mouse.move(box.x + 480, box.y + box.height / 2, { steps: 8 });
      await page.mouse.up();
    }
    const rows = page.locator('.part.sidebar .monaco-list-row');
    const parentRow = rows.filter({ hasText: parentLabel.slice(0, 30) }).first();
    await parentRow.waitFor({ state: 'visible', timeout: 30_000 });
    if ((await parentRow.getAttribute('aria-expanded')) !== 'true') await parentRow.locator('.monaco-tl-twistie').click();
    await rows
      .filter({ hasText: childLabel.slice(0, 30) })
      .first()
      .waitFor({ state: 'visible', timeout: 20_000 });
    await page.mouse.move(1270, 400);
    await page.waitForTimeout(500);
    const file = await host.screenshot('copilot-tree');
    if (screenshotsDir) {
      fs.mkdirSync(screenshotsDir, { recursive: true });
      fs.copyFileSync(file, path.join(screenshotsDir, 'copilot-agent-mode.png'));
    }
  }
});
