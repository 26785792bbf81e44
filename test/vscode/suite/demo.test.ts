// "Explore a demo" in the extension host: the welcome view offers it, the command fills a demo
// data directory with the bundled CLI (`baton demo`, the recorded sessions) and switches this
// window's Baton to it, labelled as demo data; "Leave Demo" switches back to the data directory
// the window had, and "Remove Demo Data" deletes the directory. Self-contained: its own temp
// folder, and the window ends on its original data directory.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { api, extension, waitFor, type BatonApi } from './helpers';
import { totalTokens, type SessionSpend } from '../../../src/core/spend';
import { compactTokens } from '../../../src/core/spendFormat';

describe('Explore a demo', function () {
  this.timeout(120_000);

  let baton: BatonApi;
  let original: string;
  let base: string;
  let demoDir: string;

  /** The host leads (or follows) `dir` with a client again after a switch. */
  const connectedTo = (dir: string) =>
    waitFor(() => baton.host.dataDir === dir && baton.host.client !== null && baton.host.role !== 'starting', 60_000, `Baton connected to ${dir}`);

  before(async () => {
    baton = await api();
    original = baton.host.dataDir;
    base = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-demo-suite-'));
    demoDir = path.join(base, 'baton-demo');
  });

  after(async () => {
    // Whatever happened above, the window goes back to its own data directory.
    if (baton.host.dataDir !== original) {
      await vscode.commands.executeCommand('baton.leaveDemo');
      await connectedTo(original);
    }
    fs.rmSync(base, { recursive: true, force: true });
  });

  it('the welcome view offers "Explore a Demo" next to the install button', () => {
    const welcome = extension().packageJSON.contributes.viewsWelcome as Array<{ view: string; contents: string }>;
    assert.ok(welcome.length > 0);
    for (const w of welcome) {
      assert.equal(w.view, 'baton.sessions');
      assert.match(w.contents, /\[Install Claude Code Hooks\]\(command:baton\.installHooks\)\n\[Explore a Demo\]\(command:baton\.exploreDemo\)/);
    }
  });

  it('fills a demo data directory and switches this window to it, labelled as demo data', async () => {
    const dir = await vscode.commands.executeCommand<string>('baton.exploreDemo', demoDir);
    assert.equal(dir, demoDir);
    assert.ok(fs.existsSync(path.join(demoDir, 'baton-demo.json')), 'the demo marker');
    await connectedTo(demoDir);
    const { sessions } = await baton.host.client!.listSessions({ roots: true, limit: 100 });
    assert.ok(sessions.length >= 10, `${sessions.length} demo sessions`);
    const featured = (JSON.parse(fs.readFileSync(path.join(demoDir, 'baton-demo.json'), 'utf8')) as { featured: string }).featured;
    assert.ok(
      sessions.some((s) => s.key === featured && s.childCount >= 2),
      'the featured session with its sub-agents',
    );
    // The demo's project is not this workspace: the tree shows every project.
    assert.equal(baton.tree.filter, 'all');
    await waitFor(() => baton.tree.getChildren().then((roots) => roots.some((n) => n.key === featured)), 30_000, 'the tree lists the demo sessions');
    await waitFor(() => /demo data/.test(baton.statusBar.text), 10_000, `status bar says demo data (${baton.statusBar.text})`);
  });

  it("shows models and spend on every Claude Code, Codex and OpenCode node, parents carrying their children's totals", async () => {
    const client = baton.host.client!;
    const tokens = (s: SessionSpend['total']) => (s ? totalTokens(s) : 0);
    const roots = (await baton.tree.getChildren()).filter((n) => ['claude-code', 'codex', 'opencode'].includes(n.session.harness));
    assert.ok(roots.length >= 3, `demo roots of the three harnesses: ${roots.map((n) => n.key).join(', ')}`);
    let parents = 0;
    for (const root of roots) {
      // Session nodes only (a parent also lists its constraints).
      const nodes = [root, ...(await baton.tree.getChildren(root)).filter((n) => (n as { session?: { spend?: unknown } }).session?.spend !== undefined)];
      for (const node of nodes) {
        const spend = (node.session as unknown as { spend: SessionSpend }).spend;
        const description = String(baton.tree.getTreeItem(node).description ?? '');
        assert.ok(spend.own && spend.own.models.length > 0, `${node.key} (${node.session.harness}) has its own model and spend`);
        assert.match(description, / tok/, `${node.key}'s row shows its spend: ${description}`);
      }
      const { sessions: children } = await client.listSessions({ parent: root.key, limit: 500 });
      if (children.length === 0) continue;
      parents++;
      const spend = (root.session as unknown as { spend: SessionSpend }).spend;
      // The rolled-up total is the parent's own plus every child's total, as the store summed it in the writes.
      const summed = tokens(spend.own) + children.reduce((n, c) => n + tokens((c as unknown as { spend: SessionSpend }).spend.total), 0);
      assert.equal(tokens(spend.total), summed, `${root.key}: total = own + children`);
      assert.ok(String(baton.tree.getTreeItem(root).description).includes(`Σ ${compactTokens(summed)} tok`), `${root.key} carries its children's total`);
    }
    assert.ok(parents >= 3, `parents with sub-agents among the demo roots: ${parents}`);
  });

  it('"Leave Demo" switches back to the data directory the window had', async () => {
    await vscode.commands.executeCommand('baton.leaveDemo');
    await connectedTo(original);
    await waitFor(
      () => !/demo data/.test(baton.statusBar.text) && baton.statusBar.text.includes('Baton'),
      10_000,
      `status bar without demo (${baton.statusBar.text})`,
    );
    assert.ok(fs.existsSync(demoDir), 'leaving keeps the demo files');
  });

  it('"Remove Demo Data" deletes the demo directory, and only a demo directory', async () => {
    const other = path.join(base, 'not-a-demo');
    fs.mkdirSync(other);
    fs.writeFileSync(path.join(other, 'keep.txt'), 'mine');
    await vscode.commands.executeCommand('baton.removeDemo', other);
    assert.equal(fs.readFileSync(path.join(other, 'keep.txt'), 'utf8'), 'mine');

    await vscode.commands.executeCommand('baton.removeDemo', demoDir);
    assert.ok(!fs.existsSync(demoDir));
    assert.equal(baton.host.dataDir, original);
  });
});
