// `@baton` in VS Code's real Chat view: code-server 4.139.1 (VS Code 1.139.1) with Baton and the
// scripted language model, driven by Chromium like a user. The Baton store is seeded through its
// HTTP API with a root session (a transcript with a marker, a checkpoint), a finished sub-agent
// and a run; then the test picks the scripted model in the picker, types `@baton /parent`,
// `/search`, `/tree`, `/runs` and a free-form question into the chat input, and asserts on the
// rendered replies: their links (one opens the transcript), references and follow-ups, and, for
// the question, what the model was sent. Screenshots of each reply go to the artifacts folder and,
// with BATON_SCREENSHOTS_DIR=<dir>, to <dir>/chat-*.png (the README's).
//
// Needs the VS Code host (bash scripts/dev/install-vscode-host.sh) and `npm run build`. Run alone:
//   npx mocha --no-config --require test/helpers/checkReplies.ts --node-option import=tsx \
//     --extension ts --timeout 60000 test/vscode/chatView/chatView.test.ts

import * as assert from 'node:assert/strict';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { startChatHost, type ChatHost } from '../../shared/chatHost';
import { clearToasts, latestReply, linksIn, newChat, pickModel, prepareChat, runCommand, send } from '../../shared/chatUi';
import { lastUserText } from '../../shared/scriptServer';

const screenshotsDir = process.env.BATON_SCREENSHOTS_DIR ? path.resolve(process.env.BATON_SCREENSHOTS_DIR) : undefined;

/** A wider chat view for readable screenshots: the primary side bar closed, the chat's sash dragged left. */
async function widenChat(page: Page): Promise<void> {
  await runCommand(page, 'View: Close Primary Side Bar').catch(() => undefined);
  const part = await page.locator('.part.auxiliarybar').boundingBox();
  if (!part || part.width >= 540) return;
  // The sash on the chat view's left edge.
  const sashes = await page.locator('.monaco-sash.vertical').evaluateAll((els) =>
    els.map((e) => {
      const r = e.getBoundingClientRect();
      return { x: r.x + r.width / 2, y: r.y + r.height / 2, h: r.height };
    }),
  );
  const sash = sashes.find((s) => Math.abs(s.x - part.x) <= 6 && s.h > 200);
  if (!sash) return;
  await page.mouse.move(sash.x, sash.y);
  await page.mouse.down();
  await page.mouse.move(sash.x - (560 - part.width), sash.y, { steps: 12 });
  await page.mouse.up();
}

describe('@baton in the VS Code Chat view (code-server 4.139.1, Chromium, scripted model)', function () {
  this.timeout(120_000);
  const tag = crypto.randomBytes(3).toString('hex');
  const root = `payments-refactor-${tag}`;
  const rootTitle = 'Refactor the payment retry logic';
  const child = `${root}/explore-callers`;
  const childTitle = 'Explore: find every caller of chargeCard()';
  const marker = `ledger-${tag}-marker`;
  const runTask = 'Find every caller of chargeCard() and list the files';
  let host: ChatHost;
  let page: Page;

  async function shot(name: string): Promise<void> {
    await clearToasts(page);
    // The newest reply at the bottom of the list, no hover tooltip.
    await page
      .locator('.chat-scroll-down:visible')
      .first()
      .click({ timeout: 1_000 })
      .catch(() => undefined);
    await page.mouse.move(5, 795);
    await page.waitForTimeout(300);
    const file = await host.screenshot(name);
    if (screenshotsDir) {
      fs.mkdirSync(screenshotsDir, { recursive: true });
      fs.copyFileSync(file, path.join(screenshotsDir, `chat-${name}.png`));
    }
  }

  before(async function () {
    this.timeout(240_000);
    // Tool calls run without a confirmation prompt (the agent-mode test; part of the recipe for sub-agents).
    host = await startChatHost({ settings: { 'baton.port': 0, 'chat.tools.global.autoApprove': true, 'chat.tools.autoApprove': true } });
    page = host.page;
    const { client } = host;
    const project = host.dirs.workspace;
    // A root session of this workspace with a transcript and a checkpoint, one finished sub-agent, one run.
    await client.call('sessionStart', { body: { harness: 'claude-code', sessionKey: root, project, title: rootTitle } });
    const exchanges: Array<[user: string, assistant?: string]> = [
      ['Payments are sometimes charged twice when the provider times out. Find out why.'],
      [
        'Which tests cover the retry path?',
        'The retry loop in src/payments/charge.ts re-sends the request after a timeout without checking the first attempt.',
      ],
      ['Send an idempotency key with every charge.', 'Only "retries on 503" in tests/payments/charge.test.ts covers retries.'],
    ];
    for (const [userMessage, lastAssistantMessage] of exchanges)
      await client.call('userPromptSubmit', { body: { harness: 'claude-code', sessionKey: root, userMessage, lastAssistantMessage, project } });
    await client.call('compactionComplete', {
      body: {
        harness: 'claude-code',
        sessionKey: root,
        project,
        summary: 'Goal: stop double charges on provider timeouts. Decision: an idempotency key per checkout, reused by every retry.',
      },
    });
    await client.call('sessionStart', {
      body: { harness: 'claude-code', sessionKey: child, parentSessionKey: root, project, title: childTitle, harnessAgentType: 'Explore' },
    });
    await client.call('userPromptSubmit', { body: { harness: 'claude-code', sessionKey: child, userMessage: runTask, project } });
    await client.call('sessionEnd', {
      body: { harness: 'claude-code', sessionKey: child, status: 'completed', lastAssistantMessage: 'chargeCard() is called from checkout.ts and retry.ts.' },
    });
    // The root goes on after its sub-agent ended: it is the workspace's current session.
    await client.call('userPromptSubmit', {
      body: {
        harness: 'claude-code',
        sessionKey: root,
        userMessage: `Use exponential backoff, at most 4 attempts; tag the ledger entries ${marker}.`,
        lastAssistantMessage: 'chargeCard() is called from checkout.ts and retry.ts.',
        project,
      },
    });
    await client.saveRun({
      runner: 'external',
      status: 'completed',
      executionMode: 'SYNC',
      parentSessionKey: root,
      sessionKey: child,
      prompt: runTask,
      resultContent: 'checkout.ts, retry.ts',
      durationMs: 4200,
      workspacePath: project,
    });

    await prepareChat(page);
    await widenChat(page);
    const label = await pickModel(page, 'Scripted');
    assert.match(label, /Scripted/);
  });

  let failed = false;
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') failed = true;
    if (this.currentTest?.state === 'failed' && host)
      await host.screenshot(`failed-${this.currentTest.title.slice(0, 20).replace(/\W+/g, '-')}`).catch(() => '');
  });

  after(async function () {
    this.timeout(60_000);
    const kept = await host?.stop({ keep: failed });
    if (kept) console.log(`kept ${kept} (screenshots and logs in artifacts/)`);
  });

  it('/parent shows what a new sub-agent of the workspace session would inherit, with a link to its transcript', async () => {
    await send(page, '@baton /parent');
    const { text, reply } = await latestReply(page, 'would receive');
    assert.match(text, new RegExp(`A new sub-agent of ${root} would receive \\(\\d+ characters, about \\d+ tokens\\)`));
    assert.ok(text.includes(marker), `the inherited block carries the parent's words: ${text.slice(0, 400)}`);
    assert.ok(text.includes('idempotency key per checkout'), 'and its checkpoint');
    const links = await linksIn(reply);
    assert.ok(
      links.some((l) => l.text === root && l.href.includes('baton.openTranscript')),
      `a link to the root's transcript among ${JSON.stringify(links)}`,
    );
    assert.equal(host.script.requests.length, 0, '/parent needs no model request');
    await shot('parent');
  });

  it('/search lists the matching session with the hit marked; its link opens the transcript', async () => {
    await send(page, '@baton /search idempotency');
    const { text, reply } = await latestReply(page, root);
    assert.match(text, /claude-code, \d+[smhd] ago/);
    assert.ok((await reply.locator('strong', { hasText: /idempotency/i }).count()) > 0, 'the hit is bold in the excerpt');
    assert.ok(!text.includes('vscode-chat-'), 'the chat conversation itself is not a hit');
    await shot('search');
    fs.writeFileSync(path.join(host.dirs.artifacts, 'search-reply.html'), await reply.innerHTML());
    const link = reply.locator('a', { hasText: root }).first();
    assert.match((await linksIn(reply)).find((l) => l.text === root)?.href ?? '', /baton\.openTranscript/);
    await link.click();
    const tab = page.locator('.tabs-container .tab', { hasText: /Transcript / }).first();
    await tab.waitFor({ state: 'visible', timeout: 30_000 });
    assert.equal((await tab.innerText()).trim(), `Transcript ${root}`);
    // Closed with the tab's own close action once the webview has loaded (it takes the focus then).
    await page.waitForTimeout(2_000);
    await tab.hover();
    await tab.locator('.tab-actions .action-label').first().click();
    await tab.waitFor({ state: 'detached', timeout: 10_000 });
  });

  it('/tree shows the root with its sub-agent nested under it', async () => {
    await send(page, '@baton /tree');
    const { text, reply } = await latestReply(page, childTitle);
    assert.ok(text.includes(rootTitle), text);
    const nested = reply.locator('li li', { hasText: childTitle });
    assert.equal(await nested.count(), 1, 'the sub-agent is a nested list item');
    assert.match(await nested.innerText(), /claude-code Explore, completed, \d+ turns/);
    await shot('tree');
  });

  it('/runs lists the recorded run as a table row', async () => {
    await send(page, '@baton /runs');
    const { reply } = await latestReply(page, 'external');
    const row = reply.locator('tr', { hasText: 'external' });
    assert.equal(await row.count(), 1);
    const cells = (await row.locator('td').allInnerTexts()).map((c) => c.trim());
    assert.deepEqual(cells.slice(1, 5), ['external', 'completed', 'SYNC', root]);
    assert.equal(cells[5], '4200');
    assert.ok(cells[6].startsWith('Find every caller'), cells[6]);
    await shot('runs');
  });

  it('a free-form question is answered by the picked model from the context Baton gives it, with references and follow-ups', async () => {
    const answer = `The parent decided to send an idempotency key with every charge and to tag the ledger entries ${marker}.`;
    host.script.respond = () => ({ parts: [{ text: answer }] });
    const asked = host.script.requests.length;
    await send(page, '@baton What did the payments session decide about idempotency?');
    const { text, reply } = await latestReply(page, 'Sessions used');
    fs.writeFileSync(path.join(host.dirs.artifacts, 'question-reply.html'), await reply.innerHTML());
    assert.ok(text.includes(answer), `the scripted answer is rendered: ${text.slice(0, 400)}`);
    // The model saw the question with Baton's context: the parent's inherited block and search hits.
    assert.equal(host.script.requests.length, asked + 1, 'one model request');
    const sent = lastUserText(host.script.requests[asked]);
    assert.ok(sent.includes('Question: What did the payments session decide about idempotency?'), sent.slice(-300));
    assert.ok(sent.includes(marker), "the parent's transcript reached the model");
    assert.ok(sent.includes('## Search hits'), 'search hits reached the model');
    // References: the sessions used, as links and as the reply's reference list.
    const links = await linksIn(reply);
    assert.ok(
      links.some((l) => l.text === root && l.href.includes('baton.openTranscript')),
      `a link to the source session among ${JSON.stringify(links)}`,
    );
    // VS Code folds the references into "Completed N steps"; unfolded, the list names the session.
    const used = reply.locator('[aria-label="Used 1 reference"]');
    assert.equal(await used.count(), 1, 'the reply lists one reference');
    await reply.locator('.completed-response-summary').click();
    await used.click();
    await reply
      .locator('.chat-used-context-list, .chat-used-context .monaco-list-row', { hasText: root })
      .first()
      .waitFor({ state: 'visible', timeout: 10_000 });
    // Follow-ups offered under the reply; one of them runs /tree.
    const followup = page.getByText('Show the session tree', { exact: true }).last();
    await followup.waitFor({ state: 'visible', timeout: 10_000 });
    await shot('question');
    await followup.click();
    const tree = await latestReply(page, childTitle);
    assert.ok(tree.text.includes(rootTitle));
  });

  it("agent mode: a tool call the scripted model returns runs (Baton's search tool), and its result reaches the next request", async () => {
    const callId = `call_${tag}`;
    const final = `Found it: ${root} decided on idempotency keys.`;
    // Copilot's agent may also ask the model for side jobs (a title): only the agent request that
    // offers Baton's tool gets the tool call, once; whatever carries its result gets the final answer.
    host.script.respond = (request) => {
      const results = request.messages.flatMap((m) => m.parts).filter((p) => p.type === 'toolResult' && p.callId === callId);
      if (results.length) return { parts: [{ text: final }] };
      if (request.tools.includes('baton_search_sessions'))
        return { parts: [{ text: 'Searching the sessions.' }, { toolCall: { callId, name: 'baton_search_sessions', input: { query: 'idempotency' } } }] };
      return { parts: [{ text: 'Payments idempotency' }] };
    };
    const asked = host.script.requests.length;
    await newChat(page);
    await send(page, 'Which session talked about idempotency?');
    const { text } = await latestReply(page, final, 90_000);
    const mine = host.script.requests.slice(asked);
    const offered = mine.find((r) => r.tools.includes('baton_search_sessions'));
    assert.ok(offered, `an agent request offered Baton's tools (${mine.length} requests)`);
    assert.ok(offered.tools.length > 5, `agent mode offers its tools too: ${offered.tools.join(', ')}`);
    const withResult = mine.find((r) => r.messages.some((m) => m.parts.some((p) => p.type === 'toolResult' && p.callId === callId)));
    assert.ok(withResult, 'a later request carried the tool result');
    const result = withResult.messages.flatMap((m) => m.parts).find((p) => p.type === 'toolResult' && p.callId === callId);
    assert.ok(result?.type === 'toolResult' && result.text.includes(root), `the search tool found the root: ${JSON.stringify(result)}`);
    const call = withResult.messages.flatMap((m) => m.parts).find((p) => p.type === 'toolCall' && p.callId === callId);
    assert.deepEqual(call && call.type === 'toolCall' ? call.input : null, { query: 'idempotency' }, 'the assistant turn holds the call as made');
    assert.ok(text.includes(final));
    await shot('agent-tool');
  });
});
