// Spend in the Sessions tree against the running leader (README.md, "Spend"): sessions
// made by real hooks, their turns carrying the usage of the model requests they came from written
// with the store's own write command (the one the harness readers use), and the tree's items read
// back: a parent shows its own spend and its sub-agents' summed total, updated as their turns
// arrive; "Sort Sessions by Spend" reorders a level; "Show Spend" opens the Spend view.

import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { api, endpointOf, nextEvent, prompt, sessionStart, uid, waitFor, workspaceFolder, type BatonApi, type SessionNodeLike } from './helpers';

interface UsageLike {
  key: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  costUsd: number | null;
}

interface StoreLike {
  write(command: 'recordTranscript', args: { key: string; turns: Array<{ role: 'assistant'; text: string; usage: UsageLike }> }): Promise<unknown>;
}

/** The leader's store: the extension host runs it in process (host.ts lead()). */
function storeOf(a: BatonApi): StoreLike {
  const daemon = (a.host as unknown as { daemon: { store: StoreLike } | null }).daemon;
  assert.ok(daemon, `this window leads the store (role ${a.host.role})`);
  return daemon.store;
}

interface SpendRenderedLike {
  sessionKey: string;
  summary: string;
  bars: Record<string, string[]>;
  tables: Record<string, string[]>;
}

interface SpendPanels {
  showSpend(key: string): vscode.WebviewPanel;
  onDidRenderSpend: vscode.Event<SpendRenderedLike>;
}

let request = 0;
/** One assistant turn carrying the usage of its model request (input tokens only, unless given). */
function reply(model: string, inputTokens: number, costUsd: number | null = null) {
  request += 1;
  const usage = { key: `spend-test-${Date.now()}-${request}`, model, inputTokens, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd };
  return { role: 'assistant' as const, text: `answer ${request}`, usage };
}

describe('Spend in the Sessions tree', () => {
  let a: BatonApi;
  let store: StoreLike;
  let initialFilter: 'workspace' | 'all';
  const root = uid('spend-root');
  const explore = uid('spend-explore');
  const grandchild = uid('spend-grand');
  const plan = uid('spend-plan');

  const tree = () => a.tree as unknown as { sortedBySpend: boolean } & BatonApi['tree'];
  const nodeOf = async (parent: SessionNodeLike | undefined, key: string) => {
    const nodes = await a.tree.getChildren(parent);
    return nodes.find((n) => n.key === key);
  };
  /** The tooltip's text, without MarkdownString's escapes. */
  const tooltip = (node: SessionNodeLike) => (a.tree.getTreeItem(node).tooltip as vscode.MarkdownString).value.replace(/&nbsp;/g, ' ').replace(/\\(.)/g, '$1');
  const description = async (parent: SessionNodeLike | undefined, key: string) => {
    const node = await nodeOf(parent, key);
    return node ? String(a.tree.getTreeItem(node).description ?? '') : '';
  };

  before(async function () {
    this.timeout(60_000);
    a = await api();
    store = storeOf(a);
    initialFilter = a.tree.filter;
    const ep = endpointOf(a.host);
    const project = workspaceFolder();
    await sessionStart(ep, { key: root, project, title: `Spend root ${root}` });
    await sessionStart(ep, { key: explore, project, parent: root, title: `Explore ${explore}` });
    await sessionStart(ep, { key: grandchild, project, parent: explore, title: `Grandchild ${grandchild}` });
    await sessionStart(ep, { key: plan, project, parent: root, title: `Plan ${plan}` });
    a.tree.setFilter('all');
  });

  after(() => {
    a?.tree.setFilter(initialFilter);
    if (a && tree().sortedBySpend) void vscode.commands.executeCommand('baton.sortByActivity');
  });

  it("a parent node's description shows its own spend, then its children's summed total as their turns arrive", async function () {
    this.timeout(60_000);
    // Before any usage: no spend in the row (never a zero), "not reported" in the tooltip.
    const bare = (await nodeOf(undefined, root))!;
    assert.ok(bare, 'the root is listed');
    assert.doesNotMatch(String(a.tree.getTreeItem(bare).description), /tok/);
    assert.match(tooltip(bare), /Spend: not reported/);

    // The root's own request: 10,000 input tokens of opus-4-1 at $15 per million.
    await store.write('recordTranscript', { key: root, turns: [reply('claude-opus-4-1-20250805', 10_000)] });
    await waitFor(async () => (await description(undefined, root)).endsWith('opus-4-1 · 10k tok · ~$0.15'), 20_000, 'the root shows its own spend');

    // The children's requests: the tree hears of them (a refresh) and the root sums them.
    const refreshed = nextEvent(a.tree.onDidChangeTreeData, 20_000, 'the tree refreshes after the children spent');
    await store.write('recordTranscript', { key: explore, turns: [reply('claude-haiku-4-5', 30_000)] }); // $0.03
    await store.write('recordTranscript', { key: grandchild, turns: [reply('claude-sonnet-4-5', 5_000)] }); // $0.015
    await store.write('recordTranscript', { key: plan, turns: [reply('gpt-5', 3_000, 0.505)] }); // reported
    await refreshed;
    // 10k + 30k + 5k + 3k tokens; $0.15 + $0.03 + $0.015 + $0.505, partly estimated.
    const rootLine = await waitFor(
      async () => {
        const d = await description(undefined, root);
        return d.endsWith('opus-4-1 · 10k tok · ~$0.15 · Σ 48k tok · ~$0.70') && d;
      },
      20_000,
      "the root shows its children's summed total",
    );
    assert.match(rootLine, /^claude-code · /);
    const rootNode = (await nodeOf(undefined, root))!;
    const tip = tooltip(rootNode);
    assert.match(tip, /Spend \(own\): 10,000 tokens in 1 request, \$0\.1500 \(estimated from the price table\)/);
    assert.match(tip, /Spend with sub-agents: 48,000 tokens in 4 requests, \$0\.7000 \(estimated from the price table\)/);
    assert.match(tip, /gpt-5: 3,000 tokens, 1 request, \$0\.5050 \(reported by the harness\)/);
    // A middle node: its own and its subtree's; a leaf: its own only.
    assert.ok((await description(rootNode, explore)).endsWith('haiku-4-5 · 30k tok · ~$0.03 · Σ 35k tok · ~$0.04'));
    assert.ok((await description(rootNode, plan)).endsWith('gpt-5 · 3k tok · $0.51'));
  });

  it('"Sort Sessions by Spend" lists the biggest spender first, and toggles back to newest activity first', async function () {
    this.timeout(30_000);
    const rootNode = (await nodeOf(undefined, root))!;
    const order = async () => (await a.tree.getChildren(rootNode)).map((n) => n.key);
    // The plan has the newest activity (a prompt without usage), the explorer the bigger spend.
    await prompt(endpointOf(a.host), plan, 'one more question', undefined);
    assert.deepEqual(await order(), [plan, explore]);
    assert.equal(await vscode.commands.executeCommand('baton.sortBySpend'), true);
    assert.deepEqual(await order(), [explore, plan]);
    assert.equal(await vscode.commands.executeCommand('baton.sortBySpend'), false);
    assert.deepEqual(await order(), [plan, explore]);
  });

  it('"Show Spend" draws the tree\'s tokens by sub-agent and by model, as bars and tables, and redraws as turns arrive', async function () {
    this.timeout(90_000);
    const panels = a.panels as unknown as SpendPanels;
    const rendered = (what: string, ms: number, filter: (r: SpendRenderedLike) => boolean = () => true) =>
      nextEvent(panels.onDidRenderSpend, ms, what, (r) => r.sessionKey === root && filter(r));
    // A new webview in code-server now and then stalls in VS Code's own bootstrap (see
    // webviews.test.ts, openLoaded): then it is shown again, which gives it a fresh document.
    let drawn: SpendRenderedLike | undefined;
    for (let attempt = 1; !drawn; attempt++) {
      const first = rendered('the Spend view draws', 15_000);
      if (attempt === 1) await vscode.commands.executeCommand('baton.showSpend', root);
      else panels.showSpend(root);
      drawn = await first.catch((err: Error) => {
        if (attempt >= 3) throw err;
        return undefined;
      });
    }
    assert.ok(a.panels.openPanels.includes(`spend:${root}`));
    assert.match(drawn.summary, /^Whole tree: 48k tok · ~\$0\.70 · 4 models · 4 requests/);
    // Each child's whole subtree (the explorer's includes its own sub-agent), the root's own requests.
    assert.deepEqual(drawn.bars['By sub-agent'], [
      `Explore ${explore}: 35,000 tokens, 73% of the tree, ~$0.04`,
      'This session (own requests): 10,000 tokens, 21% of the tree, ~$0.15',
      `Plan ${plan}: 3,000 tokens, 6.3% of the tree, $0.51`,
    ]);
    assert.deepEqual(drawn.tables['By sub-agent'], [
      `Explore ${explore} | 35,000 | 73% | ~$0.04`,
      'This session (own requests) | 10,000 | 21% | ~$0.15',
      `Plan ${plan} | 3,000 | 6.3% | $0.51`,
    ]);
    assert.deepEqual(
      drawn.bars['By model'].map((b) => b.replace(/, [~$].*$/, '')),
      [
        'haiku-4-5: 30,000 tokens, 63% of the tree',
        'opus-4-1: 10,000 tokens, 21% of the tree',
        'sonnet-4-5: 5,000 tokens, 10% of the tree',
        'gpt-5: 3,000 tokens, 6.3% of the tree',
      ],
    );
    // A grandchild's turn arrives: the open view redraws with the new totals.
    const redrawn = rendered('the Spend view redraws', 20_000, (r) => r.bars['By sub-agent'][0]?.startsWith(`Explore ${explore}: 80,000 tokens`));
    await store.write('recordTranscript', { key: grandchild, turns: [reply('claude-sonnet-4-5', 45_000)] });
    const again = await redrawn;
    assert.match(again.summary, /^Whole tree: 93k tok/);
    // The panel's document: the strict CSP of every Baton webview, its one script by nonce.
    const panel = panels.showSpend(root);
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(panel.webview.html)?.[1] ?? '';
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'nonce-[A-Za-z0-9+/=]{16,}'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    assert.match(panel.webview.html, /<script nonce="[^"]+" src="[^"]+\/dist\/webview\/spend\.js"><\/script>/);
    panel.dispose();
  });
});
