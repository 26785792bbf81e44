// UI-level check driven from the browser side. The runner (test/vscode/runner.ts, "UI probe"
// section) sets BATON_VSCODE_UI_DIR; this test prepares a session, asks the runner through a log
// line to drive the workbench with Playwright (open the Baton view, read the tree rows, run
// "Baton: Search Sessions" from the command palette, type the query, accept the hit, find the
// "Transcript …" tab and the focused turn inside the webview, take a screenshot), waits for the
// runner's result file, and checks it. Without the runner's opt-in (BATON_VSCODE_UI=0) it is skipped.

import * as assert from 'node:assert/strict';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { api, endpointOf, prompt, sessionStart, uid, waitFor, workspaceFolder } from './helpers';

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
    const key = uid('ui');
    // Letters only, so the search tokenizer keeps it one word.
    const word = 'quetzal' + [...crypto.randomBytes(6)].map((b) => String.fromCharCode(97 + (b % 26))).join('');
    const title = `UI probe ${key}`;
    await sessionStart(ep, { key, project: workspaceFolder(), title });
    for (let i = 1; i <= 6; i++) await prompt(ep, key, i === 4 ? `where does the ${word} nest?` : `ordinary question ${i}`, i > 1 ? `ordinary answer ${i - 1}` : undefined);
    const hitSeq = (await a.host.client!.turns(key)).turns.find((t) => t.text.includes(word))!.seq;

    const request = { id: key, title, query: word, sessionKey: key, hitSeq };
    const resultFile = path.join(dir!, `result-${key}.json`);
    console.log(`[baton-ui] ${JSON.stringify(request)}`);
    const total = (await a.host.client!.getSession(key))!.turnCount;
    const result = await waitFor(() => fs.existsSync(resultFile) && (JSON.parse(fs.readFileSync(resultFile, 'utf8')) as ProbeResult), 140_000, 'the runner UI probe result', 250);
    for (const step of result.steps) console.log(`      ${step.ok ? 'ok ' : 'FAIL'} ${step.name} (${step.ms} ms)${step.detail ? `: ${step.detail}` : ''}`);
    console.log(`      screenshots: ${result.screenshots.join(', ')}`);
    if (result.attempts > 1) console.log(`      (the transcript webview loaded on attempt ${result.attempts}: code-server's webview bootstrap stalled before)`);
    if (result.webviewErrors.length) console.log(`      webview script errors so far: ${result.webviewErrors.join(' || ')}`);
    assert.ok(result.ok, result.error ?? 'a UI step failed');
    probed = { ...result, total };
    assert.equal(result.turnsShown, total, 'the webview renders every turn of a short transcript');
    assert.deepEqual(result.pagers.map((p) => p.hidden), [true, true], `pagers: ${JSON.stringify(result.pagers)}`);
    assert.ok(result.treeRows.some((r) => r.includes(title)), `tree rows: ${JSON.stringify(result.treeRows)}`);
    // The extension host agrees: the search hit opened this session's transcript panel.
    assert.ok(a.panels.openPanels.includes(`transcript:${key}`), JSON.stringify(a.panels.openPanels));
  });

  // BUG (media/baton.css line 49, `.pager { display: flex }`): the transcript view sets
  // `hidden` on its "Load earlier turns" / "Load more turns" pagers when there is nothing more to
  // load (media/transcript.ts updatePagers), but the author rule `display: flex` overrides the
  // user-agent `[hidden] { display: none }`, so both buttons always show; clicking "Load more
  // turns" at the end posts a useless loadTurns past the last turn. Seen in the probe's
  // screenshot. Proposed fix: add `.pager[hidden] { display: none; }` (or `[hidden] { display:
  // none !important; }`) to media/baton.css.
  it('hides the pagers when the whole transcript is loaded (BUG: they stay visible)', function () {
    if (!probed) this.skip();
    for (const pager of probed!.pagers) assert.equal(pager.displayed, false, `"${pager.text}" is displayed (hidden=${pager.hidden})`);
  });

  // BUG (media/transcript.ts, 'turns' handler; src/vscode/panels.ts show()): when a transcript
  // panel is retargeted (showTranscript on an open panel: a search hit, the tree) while the old
  // document's `loadTurns` is being answered, the host's `turns` reply is delivered to the *new*
  // document before its `init`, where `list` is still undefined: "TypeError: Cannot read
  // properties of undefined (reading 'append') at dist/webview/transcript.js:98". The view recovers
  // once `init` arrives, but the error is uncaught and the reply is applied to the wrong state
  // (`total`, `loading`). The race is timing-dependent; webviews.test.ts "retargeting a transcript
  // while its turns are in flight" provokes it, and the runner collects the browser's uncaught
  // errors of dist/webview/*.js. Proposed fix: in transcript.ts ignore `turns` until `init` set
  // `list` (`if (!state) return;`), and have the host drop replies for a superseded document
  // (tag each panel document with a generation and echo it in `loadTurns`/`turns`).
  it('no uncaught errors in Baton webview scripts (BUG: a stale `turns` reaches a retargeted view)', function () {
    if (!probed) this.skip();
    assert.deepEqual(probed!.webviewErrors, []);
  });
});
