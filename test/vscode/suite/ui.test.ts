// UI-level check driven from the browser side. The runner (test/vscode/runner.ts, "UI probe"
// section) sets BATON_VSCODE_UI_DIR; this test prepares a session, asks the runner through a log
// line to drive the workbench with Playwright (open the Baton view, read the tree rows, run
// "Baton: Search Sessions" from the command palette, type the query, accept the hit, find the
// "Transcript …" tab and the focused turn inside the webview, run "Baton: Preview Inherited
// Context" for the root session, take screenshots), waits for the
// runner's result file, and checks it. Without the runner's opt-in (BATON_VSCODE_UI=0) it is skipped.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { api, endpointOf, post, prompt, sessionStart, uid, waitFor, workspaceFolder } from './helpers';

interface ProbeResult {
  ok: boolean;
  steps: Array<{ name: string; ok: boolean; ms: number; detail?: string }>;
  treeRows: string[];
  turnsShown: number;
  pagers: Array<{ text: string; hidden: boolean; displayed: boolean }>;
  attempts: number;
  /** Uncaught errors of Baton's webview scripts (dist/webview/*.js) seen by the browser so far. */
  webviewErrors: string[];
  screenshots: string[];
  /** The inherited-context preview's sections, as the webview shows them. */
  inheritedSections?: string[];
  /** The preview's profile line after choosing "profile: routing" in its picker, then the default. */
  pickedProfiles?: string[];
  error?: string;
}

describe('UI (driven by Playwright from the runner)', () => {
  let probed: (ProbeResult & { total: number }) | undefined;

  it('Baton view rows, Search Sessions from the command palette, Enter opens the Transcript tab at the hit', async function () {
    const dir = process.env.BATON_VSCODE_UI_DIR;
    if (!dir) this.skip();
    this.timeout(150_000);
    const a = await api();
    const ep = endpointOf(a.host);
    const project = workspaceFolder();
    // A root session with sub-agents nested two levels deep, with readable keys, titles and
    // transcripts: the runner's screenshots (BATON_SCREENSHOTS_DIR, docs/*.png) show them as they are.
    const key = uid('payments-refactor');
    const title = 'Refactor the payment retry logic';
    const word = 'idempotency';
    await sessionStart(ep, { key, project, title });
    // Each prompt() stores the previous assistant reply (if any), then the new user message.
    const rootTurns: Array<[user: string, assistant?: string]> = [
      ['Payments are sometimes charged twice when the provider times out. Find out why.'],
      [
        'Which tests cover the retry path?',
        'The retry loop in src/payments/charge.ts re-sends the request after a timeout without checking whether the first attempt went through.',
      ],
      [
        `Send an ${word} key with every charge so the provider can drop duplicates.`,
        'Only "retries on 503" in tests/payments/charge.test.ts; nothing covers a timeout after the provider accepted the charge.',
      ],
      [
        'Use exponential backoff, at most 4 attempts, and keep the public API of chargeCard() unchanged.',
        'Agreed: one key per checkout, reused by every retry of that charge.',
      ],
    ];
    for (const [user, assistant] of rootTurns) await prompt(ep, key, user, assistant);
    // A checkpoint summary for the inherited-context preview (best effort: the screenshot is nicer with it).
    await post(ep, '/api/hooks/compaction-complete', {
      harness: 'claude-code',
      sessionKey: key,
      project,
      summary: `Goal: stop double charges on provider timeouts. Decisions: send an ${word} key per checkout with every charge; exponential backoff, at most 4 attempts; keep the chargeCard() API unchanged.`,
    }).catch(() => undefined);
    const explore = uid('explore-callers');
    const plan = uid('plan-backoff');
    const tests = uid('run-payment-tests');
    // [task, answer]: with an answer the sub-agent ends (completed), without it it is still running.
    const subagents: Array<{ key: string; parent: string; title: string; type: string; task: string; answer?: string }> = [
      {
        key: explore,
        parent: key,
        title: 'Explore: find every caller of chargeCard()',
        type: 'Explore',
        task: `List every caller of chargeCard() and whether it passes an ${word} key.`,
        answer: 'Three callers: checkout/submit.ts, subscriptions/renew.ts, admin/refund-retry.ts. None passes a key yet.',
      },
      {
        key: plan,
        parent: key,
        title: 'Plan: move retries to exponential backoff',
        type: 'Plan',
        task: `Plan the change to exponential backoff with at most 4 attempts, threading the ${word} key through chargeCard().`,
      },
      {
        key: tests,
        parent: plan,
        title: 'Run the payment integration tests',
        type: 'general-purpose',
        task: 'Run tests/payments with the new retry policy and report failures.',
        answer: '42 passed, 0 failed; the new timeout test passes.',
      },
    ];
    for (const s of subagents) {
      await sessionStart(ep, { key: s.key, project, parent: s.parent, title: s.title, harnessAgentType: s.type });
      await prompt(ep, s.key, s.task);
      if (s.answer)
        await post(ep, '/api/hooks/session-end', {
          harness: 'claude-code',
          sessionKey: s.key,
          status: 'completed',
          reason: 'done',
          lastAssistantMessage: s.answer,
        });
    }
    // The root last, so that it is the most recent session at the top of the tree.
    await prompt(
      ep,
      key,
      'Summarise what the sub-agents found.',
      'Noted. I spawned an Explore sub-agent to map the callers and a Plan sub-agent for the migration.',
    );
    await prompt(
      ep,
      key,
      'Good. Open a pull request with the change.',
      'Three callers need the key; the plan has three steps; the payment integration tests pass (42/42).',
    );
    const hitSeq = (await a.host.client!.turns(key)).turns.find((t) => t.text.includes(word))!.seq;

    const request = {
      id: key,
      title,
      query: word,
      sessionKey: key,
      hitSeq,
      // The tree rows to expand (in order) and the row that must show once they are.
      expand: [title, subagents[1].title],
      nested: subagents[2].title,
    };
    const resultFile = path.join(dir!, `result-${key}.json`);
    console.log(`[baton-ui] ${JSON.stringify(request)}`);
    const total = (await a.host.client!.getSession(key))!.turnCount;
    const result = await waitFor(
      () => fs.existsSync(resultFile) && (JSON.parse(fs.readFileSync(resultFile, 'utf8')) as ProbeResult),
      140_000,
      'the runner UI probe result',
      250,
    );
    for (const step of result.steps) console.log(`      ${step.ok ? 'ok ' : 'FAIL'} ${step.name} (${step.ms} ms)${step.detail ? `: ${step.detail}` : ''}`);
    console.log(`      screenshots: ${result.screenshots.join(', ')}`);
    if (result.attempts > 1) console.log(`      (the transcript webview loaded on attempt ${result.attempts}: code-server's webview bootstrap stalled before)`);
    if (result.webviewErrors.length) console.log(`      webview script errors so far: ${result.webviewErrors.join(' || ')}`);
    assert.ok(result.ok, result.error ?? 'a UI step failed');
    probed = { ...result, total };
    assert.equal(result.turnsShown, total, 'the webview renders every turn of a short transcript');
    assert.deepEqual(
      result.pagers.map((p) => p.hidden),
      [true, true],
      `pagers: ${JSON.stringify(result.pagers)}`,
    );
    assert.ok(
      result.treeRows.some((r) => r.includes(title)),
      `tree rows: ${JSON.stringify(result.treeRows)}`,
    );
    for (const s of subagents)
      assert.ok(
        result.treeRows.some((r) => r.includes(s.title)),
        `tree rows without "${s.title}": ${JSON.stringify(result.treeRows)}`,
      );
    assert.ok(result.inheritedSections?.includes('Recent context'), `inherited sections: ${JSON.stringify(result.inheritedSections)}`);
    // The picker, chosen in the real webview: routing (its 400-token budget), then the default again.
    assert.equal(result.pickedProfiles?.length, 2, JSON.stringify(result.pickedProfiles));
    assert.match(result.pickedProfiles[0], /^Profile routing · chosen by requested · budget 400 tokens$/);
    assert.match(result.pickedProfiles[1], /^Profile full · chosen by default · budget 2,000 tokens$/);
    // The extension host agrees: the search hit opened this session's transcript panel.
    assert.ok(a.panels.openPanels.includes(`transcript:${key}`), JSON.stringify(a.panels.openPanels));
    assert.ok(a.panels.openPanels.includes(`inherited:${key}`), JSON.stringify(a.panels.openPanels));
  });

  // The transcript view sets `hidden` on its "Load earlier turns" / "Load more turns" pagers when
  // there is nothing more to load (media/transcript.ts updatePagers). An author rule such as
  // `.pager { display: flex }` overrides the user agent's `[hidden] { display: none }`, which once
  // left both buttons showing; checked in the real browser, from the probe.
  it('hides the pagers when the whole transcript is loaded', function () {
    if (!probed) this.skip();
    for (const pager of probed!.pagers) assert.equal(pager.displayed, false, `"${pager.text}" is displayed (hidden=${pager.hidden})`);
  });

  // When a transcript panel is retargeted (a search hit, the tree) while the old document's
  // `loadTurns` is being answered, the host's `turns` reply can reach the *new* document before its
  // `init`. The view must ignore it; once it threw "Cannot read properties of undefined (reading
  // 'append')". The race is timing-dependent:
  // webviews.test.ts "retargeting a transcript while its turns are in flight" provokes it, and the
  // runner collects the browser's uncaught errors of dist/webview/*.js.
  it('no uncaught errors in Baton webview scripts', function () {
    if (!probed) this.skip();
    assert.deepEqual(probed!.webviewErrors, []);
  });
});
