// The Sessions tree against the running leader: a root with two levels of sub-agents made by real
// hooks, lazy loading one level per getChildren, status icons, descriptions and tooltips,
// getParent, reveal of a grandchild, live refresh from the endpoint's event stream (and no polling
// while nothing happens), and the workspace/all project filter.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  api,
  endpointOf,
  nextEvent,
  post,
  prompt,
  sessionEnd,
  sessionStart,
  sleep,
  themeIconId,
  uid,
  waitFor,
  workspaceFolder,
  type BatonApi,
  type SessionNodeLike,
} from './helpers';

describe('Sessions tree', () => {
  let a: BatonApi;
  let initialFilter: 'workspace' | 'all';
  const root = uid('root');
  const child = uid('child');
  const grandchild = uid('grand');
  const other = uid('other');

  before(async function () {
    this.timeout(60_000);
    a = await api();
    initialFilter = a.tree.filter;
    const ep = endpointOf(a.host);
    const project = workspaceFolder();
    await sessionStart(ep, { key: root, project, title: `Tree root ${root}` });
    await prompt(ep, root, 'plan the tree test', undefined);
    await prompt(ep, root, 'now the children', 'the plan is ready');
    const c = await sessionStart(ep, { key: child, project, parent: root, harnessAgentType: 'Explore' });
    assert.equal(c.parentSessionKey, root);
    const g = await sessionStart(ep, { key: grandchild, project, parent: child, harnessAgentType: 'general-purpose' });
    assert.equal(g.parentSessionKey, child);
    await sessionStart(ep, { key: other, project: '/tmp/baton-other-project', title: `Other ${other}` });
    a.tree.setFilter('all');
  });

  after(() => a?.tree.setFilter(initialFilter));

  /** The tooltip's text, without MarkdownString's escapes. */
  function tip(item: vscode.TreeItem): string {
    assert.ok(item.tooltip instanceof vscode.MarkdownString, 'the tooltip is Markdown');
    return item.tooltip.value.replace(/&nbsp;/g, ' ').replace(/\\(.)/g, '$1');
  }

  async function rootNode(key: string): Promise<SessionNodeLike> {
    const roots = await a.tree.getChildren();
    const node = roots.find((n) => n.key === key);
    assert.ok(node, `${key} is not among the ${roots.length} roots`);
    return node;
  }

  it('lists the root (not its sub-agents) with icon, description, tooltip and context value', async () => {
    const roots = await a.tree.getChildren();
    const keys = roots.map((n) => n.key);
    assert.ok(keys.includes(root) && keys.includes(other));
    assert.ok(!keys.includes(child) && !keys.includes(grandchild), 'sub-agents are not roots');
    assert.deepEqual(a.tree.rootKeys, keys);
    // Newest activity first.
    const times = roots.map((n) => n.session.updatedAt);
    assert.deepEqual([...times].sort().reverse(), times);

    const item = a.tree.getTreeItem(await rootNode(root));
    assert.equal(item.label, `Tree root ${root}`);
    assert.equal(item.id, root);
    assert.equal(item.collapsibleState, vscode.TreeItemCollapsibleState.Collapsed);
    assert.equal(themeIconId(item), 'sync~spin');
    assert.match(String(item.description), /^claude-code · \d+s ago · 3 turns$/);
    assert.ok(tip(item).includes(`Key: ${root}\n`), tip(item));
    assert.ok(tip(item).includes('Status: active\n'));
    assert.ok(tip(item).includes(`Project: ${workspaceFolder()}\n`));
    assert.equal(item.contextValue, 'session.active.live');
    assert.equal(item.command?.command, 'baton.openTranscript');
  });

  it('loads children and grandchildren lazily, one level per call', async () => {
    const r = await rootNode(root);
    const children = await a.tree.getChildren(r);
    assert.deepEqual(
      children.map((n) => n.key),
      [child],
    );
    const cItem = a.tree.getTreeItem(children[0]);
    assert.equal(cItem.label, `Explore ${child}`);
    assert.equal(cItem.collapsibleState, vscode.TreeItemCollapsibleState.Collapsed);
    assert.match(String(cItem.description), /^claude-code · \d+s ago · 0 turns$/);
    assert.ok(tip(cItem).includes(`Parent: ${root}\n`), tip(cItem));
    assert.ok(tip(cItem).includes('Harness: claude-code (Explore)\n'));

    const grandchildren = await a.tree.getChildren(children[0]);
    assert.deepEqual(
      grandchildren.map((n) => n.key),
      [grandchild],
    );
    const gItem = a.tree.getTreeItem(grandchildren[0]);
    assert.equal(gItem.collapsibleState, vscode.TreeItemCollapsibleState.None);
    assert.deepEqual(await a.tree.getChildren(grandchildren[0]), []);
  });

  it('getParent walks grandchild → child → root → none', async () => {
    const g = await a.tree.nodeFor(grandchild);
    assert.ok(g);
    const c = await a.tree.getParent(g);
    assert.equal(c?.key, child);
    const r = await a.tree.getParent(c!);
    assert.equal(r?.key, root);
    assert.equal(await a.tree.getParent(r!), undefined);
    assert.equal(await a.tree.nodeFor(uid('missing')), undefined);
  });

  it('baton.revealSession reveals a grandchild (expanding its ancestors)', async function () {
    this.timeout(20_000);
    const node = (await vscode.commands.executeCommand('baton.revealSession', grandchild)) as SessionNodeLike | undefined;
    assert.ok(node, 'revealSession resolved without a node (see the Baton log)');
    assert.equal(node.key, grandchild);
  });

  it('shows pass after session-end completed, error after failed, circle-slash when bypassed', async () => {
    const ep = endpointOf(a.host);
    await sessionEnd(ep, grandchild, 'completed');
    const c = (await a.tree.getChildren(await rootNode(root)))[0];
    const g = (await a.tree.getChildren(c))[0];
    assert.equal(themeIconId(a.tree.getTreeItem(g)), 'pass');
    assert.equal(a.tree.getTreeItem(g).contextValue, 'session.completed.live');

    const failed = uid('failed');
    await sessionStart(ep, { key: failed, parent: root });
    await sessionEnd(ep, failed, 'failed');
    const kids = await a.tree.getChildren(await rootNode(root));
    assert.equal(themeIconId(a.tree.getTreeItem(kids.find((n) => n.key === failed)!)), 'error');

    await a.host.client!.setBypass(child, true);
    const bypassed = (await a.tree.getChildren(await rootNode(root))).find((n) => n.key === child)!;
    const item = a.tree.getTreeItem(bypassed);
    assert.equal(themeIconId(item), 'circle-slash');
    assert.equal(item.contextValue, 'session.active.bypassed');
    assert.ok(tip(item).includes('Status: active, bypassed\n'), tip(item));
    await a.host.client!.setBypass(child, false);
  });

  it('refreshes live when a hook arrives from outside (within 2 s), and stays quiet without traffic', async function () {
    this.timeout(20_000);
    // Quiet: nothing happens, so nothing fires (the tree does not poll).
    await sleep(400); // let the previous test's refreshes settle
    let quiet = 0;
    const sub = a.tree.onDidChangeTreeData(() => quiet++);
    await sleep(2_500);
    sub.dispose();
    assert.equal(quiet, 0, 'the tree fired change events with no traffic');

    const ep = endpointOf(a.host);
    for (const [what, send] of [
      ['a new root session', () => sessionStart(ep, { key: uid('live'), project: workspaceFolder() })],
      ['a prompt in a sub-agent', () => prompt(ep, grandchild, 'one more prompt', undefined)],
    ] as const) {
      const fired = nextEvent(a.tree.onDidChangeTreeData, 2_000, `tree change after ${what}`);
      const t0 = Date.now();
      await send();
      await fired;
      const ms = Date.now() - t0;
      console.log(`      (${what}: tree changed ${ms} ms after the hook)`);
    }
    const g = await a.tree.nodeFor(grandchild);
    const fresh = (await a.tree.getChildren((await a.tree.getParent(g!))!)).find((n) => n.key === grandchild)!;
    assert.equal(fresh.session.turnCount, 1, 'a refreshed level carries the new turn count');
  });

  it("a key two agents hold is two sessions: each its own node and children, and commands read that agent's row", async function () {
    this.timeout(60_000);
    const ep = endpointOf(a.host);
    const project = workspaceFolder();
    const shared = uid('twoagents');
    // The same key in the default agent and in another one (the admin names it), each with a child.
    for (const agentId of ['default', 'carol']) {
      const text = `${agentId.toUpperCase()}-ROW-TEXT`;
      await post(ep, '/api/hooks/user-prompt-submit', { harness: 'claude-code', sessionKey: shared, project, userMessage: text, agentId });
      await post(ep, '/api/hooks/session-start', {
        harness: 'claude-code',
        sessionKey: `${shared}/${agentId}-child`,
        parentSessionKey: shared,
        project,
        agentId,
      });
    }
    const nodes = await waitFor(
      async () => {
        const found = (await a.tree.getChildren()).filter((n) => n.key === shared);
        return found.length === 2 ? found : null;
      },
      15_000,
      'both sessions of the key are roots',
    );
    const ids = nodes.map((n) => a.tree.getTreeItem(n).id);
    assert.equal(new Set(ids).size, 2, `each session has its own tree item id: ${JSON.stringify(ids)}`);
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-two-agents-'));
    for (const node of nodes) {
      const agentId = node.session.agentId;
      const kids = await a.tree.getChildren(node);
      assert.deepEqual(
        kids.map((k) => k.key),
        [`${shared}/${agentId}-child`],
        `${agentId}: only its own child`,
      );
      const file = vscode.Uri.file(path.join(tmp, `${agentId}.jsonl`));
      await vscode.commands.executeCommand('baton.exportSession', node, 'jsonl', file);
      const exported = JSON.parse(fs.readFileSync(file.fsPath, 'utf8')) as { session: { agentId: string }; turns: Array<{ text: string }> };
      assert.equal(exported.session.agentId, agentId);
      assert.deepEqual(
        exported.turns.map((t) => t.text),
        [`${agentId.toUpperCase()}-ROW-TEXT`],
      );
      await vscode.commands.executeCommand('baton.openTranscript', node);
      await vscode.commands.executeCommand('baton.previewInherited', node);
    }
    const open = a.panels.openPanels;
    for (const id of [`transcript:${shared}`, `transcript:${shared} (carol)`, `inherited:${shared}`, `inherited:${shared} (carol)`])
      assert.ok(open.includes(id), `${id} among ${JSON.stringify(open)}`);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it("filter 'workspace' keeps only the workspace folder's sessions as roots; 'all' shows every project", async () => {
    const folder = workspaceFolder();
    await vscode.commands.executeCommand('baton.showWorkspaceProject');
    assert.equal(a.tree.filter, 'workspace');
    const roots = await a.tree.getChildren();
    assert.ok(roots.length > 0);
    for (const n of roots) assert.equal(n.session.project, folder, `${n.key} (${n.session.project}) is not of the workspace`);
    assert.ok(roots.some((n) => n.key === root));
    assert.ok(!roots.some((n) => n.key === other));

    await vscode.commands.executeCommand('baton.showAllProjects');
    assert.equal(a.tree.filter, 'all');
    const all = await a.tree.getChildren();
    assert.ok(all.some((n) => n.key === other) && all.some((n) => n.key === root));
  });
});
