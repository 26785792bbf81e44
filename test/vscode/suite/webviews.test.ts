// The transcript viewer and the inherited-context preview as real webview panels: they open, their
// HTML has a strict CSP with a nonce and no inline handlers, and the typed protocol round-trips
// (the webview's script says `ready`, the host answers `init`, the script asks for the turns around
// the focused one).

import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { api, endpointOf, prompt, sessionStart, sleep, uid, waitFor, within, workspaceFolder, type BatonApi } from './helpers';

const SETTLE_MS = 1_500;

interface Seen {
  type: string;
  from?: number;
  limit?: number;
}

/** Records what the webview posts to the host (a second listener beside the Panels' own). */
function observe(panel: vscode.WebviewPanel): { seen: Seen[]; dispose(): void } {
  const seen: Seen[] = [];
  const sub = panel.webview.onDidReceiveMessage((m: Seen) => seen.push(m));
  return { seen, dispose: () => sub.dispose() };
}

/**
 * Opens a webview and waits until its script posted what `until` looks for. In code-server a new
 * webview's bootstrap (VS Code's own pre/index.html) now and then waits forever for its service
 * worker ("Found unexpected service worker controller … Waiting for controllerchange" in the
 * browser console); such a panel is closed and opened again, at most `tries` times, and the retry
 * is logged. Baton's code is not involved before that bootstrap finished. (The stall follows a
 * webview that was hidden while loading: VS Code's webview service worker cannot be replaced while
 * the old one still has a resource fetch in flight.)
 */
async function openLoaded(
  open: () => vscode.WebviewPanel,
  until: (seen: Seen[]) => boolean,
  what: string,
  tries = 4,
  perTryMs = 12_000,
): Promise<{ panel: vscode.WebviewPanel; seen: Seen[] }> {
  for (let attempt = 1; ; attempt++) {
    const panel = open();
    const watch = observe(panel);
    try {
      await waitFor(() => until(watch.seen), perTryMs, `${what} (messages ${JSON.stringify(watch.seen)})`);
      if (attempt > 1) console.log(`      (${what}: loaded on attempt ${attempt})`);
      // Let the view finish rendering (fonts, styles) before a later test hides it: a webview
      // hidden with a resource fetch in flight is what stalls the next one.
      await sleep(SETTLE_MS);
      return { panel, seen: watch.seen };
    } catch (err) {
      if (attempt >= tries || watch.seen.length > 0) throw err; // the script ran: not the bootstrap stall
      const closed = new Promise<void>((resolve) => panel.onDidDispose(() => resolve()));
      panel.dispose();
      await within(closed, 5_000, 'panel disposed');
    } finally {
      watch.dispose();
    }
  }
}

function checkHtml(html: string, script: 'transcript' | 'inherited'): string {
  const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1];
  assert.ok(csp, 'no CSP meta tag');
  assert.match(csp, /default-src 'none'/);
  const nonce = /script-src 'nonce-([A-Za-z0-9+/=]+)'/.exec(csp)?.[1];
  assert.ok(nonce && nonce.length >= 16, `no script nonce in ${csp}`);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
  const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
  assert.equal(scripts.length, 1);
  assert.ok(scripts[0][1].includes(`nonce="${nonce}"`), 'the script tag does not carry the CSP nonce');
  assert.match(scripts[0][1], new RegExp(`src="[^"]+/dist/webview/${script}\\.js"`));
  assert.equal(scripts[0][2].trim(), '', 'inline script body');
  assert.doesNotMatch(html, /\son[a-z]+\s*=/i, 'inline event handler');
  assert.doesNotMatch(html, /javascript:/i);
  return nonce;
}

describe('Webviews', () => {
  let a: BatonApi;
  const key = uid('web');
  const child = uid('webchild');
  const TURNS = 80;

  before(async function () {
    this.timeout(60_000);
    a = await api();
    const ep = endpointOf(a.host);
    await sessionStart(ep, { key, project: workspaceFolder(), title: 'Webview target' });
    for (let i = 1; i <= TURNS / 2; i++) await prompt(ep, key, `prompt ${i} about kingfishers`, i > 1 ? `reply ${i - 1}` : undefined);
    await sessionStart(ep, { key: child, parent: key, project: workspaceFolder() });
  });

  after(async () => {
    await sleep(SETTLE_MS);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('showTranscript(key, focusSeq) opens a panel whose script asks for the turns around the focused one', async function () {
    this.timeout(70_000);
    const total = (await a.host.client!.getSession(key))!.turnCount;
    assert.equal(total, TURNS - 1);
    const focusSeq = 70;
    let checked = false;
    const { panel, seen } = await openLoaded(
      () => {
        const p = a.panels.showTranscript(key, focusSeq, ['kingfishers']);
        assert.ok(a.panels.openPanels.includes(`transcript:${key}`), JSON.stringify(a.panels.openPanels));
        assert.equal(p.viewType, 'baton.transcript');
        assert.match(p.title, /^Transcript /);
        assert.equal(p.webview.options.enableScripts, true);
        checkHtml(p.webview.html, 'transcript');
        checked = true;
        return p;
      },
      // ready → (host) init → loadTurns from focusSeq - PAGE/4 (PAGE 200 in media/transcript.ts).
      (m) => m.some((x) => x.type === 'loadTurns'),
      'the transcript view asks for turns',
    );
    assert.ok(checked && panel.visible);
    assert.equal(seen[0].type, 'ready');
    const load = seen.find((m) => m.type === 'loadTurns')!;
    assert.equal(load.from, focusSeq - 50);
    assert.equal(load.limit, 200);
  });

  it('showing the same transcript again reuses the panel with a fresh nonce, and the view says ready again', async function () {
    this.timeout(70_000);
    const first = a.panels.showTranscript(key);
    const oldNonce = checkHtml(first.webview.html, 'transcript');
    let reused = false;
    await openLoaded(
      () => {
        const again = a.panels.showTranscript(key, 5);
        if (!reused) {
          assert.equal(again, first, 'a second panel was opened');
          assert.equal(a.panels.openPanels.filter((p) => p === `transcript:${key}`).length, 1);
          assert.notEqual(checkHtml(again.webview.html, 'transcript'), oldNonce);
          reused = true;
        }
        return again;
      },
      (m) => m.some((x) => x.type === 'loadTurns' && x.from === 1),
      'the retargeted transcript view asks for turns from 1',
    );
  });

  it('showInherited(key) opens a second panel that says ready and is answered', async function () {
    this.timeout(70_000);
    await openLoaded(
      () => {
        const panel = a.panels.showInherited(key);
        assert.ok(a.panels.openPanels.includes(`inherited:${key}`));
        assert.ok(a.panels.openPanels.includes(`transcript:${key}`));
        assert.equal(panel.viewType, 'baton.inherited');
        assert.match(panel.title, /^Inherited ← /);
        checkHtml(panel.webview.html, 'inherited');
        return panel;
      },
      (m) => m.some((x) => x.type === 'ready'),
      'ready from the inherited view',
    );
    // What the host answered with: the block a new child would get now.
    const view = await (a.host.client as unknown as { inherited(k: string): Promise<{ sessionKey: string; empty: boolean; block: string }> }).inherited(key);
    assert.equal(view.sessionKey, key);
    assert.equal(view.empty, false);
    assert.match(view.block, /kingfishers/);
  });

  it('retargeting a transcript while its turns are in flight still ends with the new turns requested', async function () {
    this.timeout(70_000);
    // Re-showing the panel the moment the view asks for turns: the host's answer for the old
    // document reaches the new one before its `init` (see "no uncaught errors" in ui.test.ts).
    let retargeted = false;
    const { seen } = await openLoaded(
      () => {
        const panel = a.panels.showTranscript(key, 60);
        const sub = panel.webview.onDidReceiveMessage((m: Seen) => {
          if (m.type === 'loadTurns' && !retargeted) {
            retargeted = true;
            sub.dispose();
            a.panels.showTranscript(key, 30);
          }
        });
        return panel;
      },
      (m) => m.some((x) => x.type === 'loadTurns' && x.from === 1) && m.filter((x) => x.type === 'ready').length >= 2,
      'the retargeted view asks for the turns around #30',
    );
    assert.ok(retargeted);
    // 60 - 50 first, then (retargeted to #30) max(1, 30 - 50) = 1.
    assert.deepEqual(
      seen.filter((m) => m.type === 'loadTurns').map((m) => m.from),
      [10, 1],
    );
  });

  it('baton.openTranscript and baton.previewInherited open the panels for a key argument', async function () {
    this.timeout(10_000);
    await vscode.commands.executeCommand('baton.openTranscript', child);
    assert.ok(a.panels.openPanels.includes(`transcript:${child}`));
    await vscode.commands.executeCommand('baton.previewInherited', child);
    assert.ok(a.panels.openPanels.includes(`inherited:${child}`));
  });

  it('closing a panel removes it from openPanels', async function () {
    this.timeout(10_000);
    const panel = a.panels.showTranscript(child);
    const closed = new Promise<void>((resolve) => panel.onDidDispose(() => resolve()));
    panel.dispose();
    await within(closed, 5_000, 'panel disposed');
    assert.ok(!a.panels.openPanels.includes(`transcript:${child}`));
  });
});
