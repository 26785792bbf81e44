// What a sub-agent inherits, as VS Code shows it: a session's constraints in the Sessions tree
// (and deactivating one from its context menu), the inherited-context preview with where each
// constraint came from, the budget and an agent-type picker, and the `baton.inherit.*` profile
// settings reaching the server. Everything goes through the running leader's real endpoint.

import * as assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  api,
  endpointOf,
  extension,
  nextEvent,
  post,
  prompt,
  sessionEnd,
  sessionStart,
  setBaton,
  uid,
  waitFor,
  within,
  workspaceFolder,
  type BatonApi,
} from './helpers';

interface ConstraintLike {
  id: number;
  content: string;
  entity: string;
  agentId: string;
  sessionKey: string | null;
  origin: { kind: string | null; seq: number | null; role: string | null };
}

interface InheritedLike {
  block: string;
  constraintOrigins: Array<{ text: string; origin: string }>;
  profile: { name: string; maxTokens: number; reason: string; agentType: string | null };
  profiles: { defaultProfile: string; byAgentType: Record<string, string> };
  budget?: { maxTokens: number; usedTokens: number; cut: string[] } | null;
}

/** The parts of the extension's client these tests use (typed structurally, like helpers.ts). */
interface InheritClient {
  constraints(sessionKey?: string, limit?: number): Promise<ConstraintLike[]>;
  inherited(key: string, child?: { agentType?: string; profile?: string }): Promise<InheritedLike>;
}

/** Tree nodes beside sessions: "Constraints (n)" and each constraint under it. */
type AnyNode = { key?: string; constraint?: ConstraintLike; constraints?: ConstraintLike[] };

function clientOf(a: BatonApi): InheritClient {
  assert.ok(a.host.client, `the host has no client (role ${a.host.role})`);
  return a.host.client as unknown as InheritClient;
}

/** Records the messages the extension's own `vscode` object shows (its module loader hands it to code inside the extension). */
function recordMessages(kind: 'showErrorMessage' | 'showWarningMessage'): { seen: string[]; restore(): void } {
  const extVscode = createRequire(path.join(extension().extensionPath, 'dist', 'extension.js'))('vscode') as typeof vscode;
  const original = extVscode.window[kind];
  const seen: string[] = [];
  extVscode.window[kind] = ((message: string, ...rest: unknown[]) => {
    seen.push(message);
    return (original as (...args: unknown[]) => Thenable<unknown>).call(extVscode.window, message, ...rest);
  }) as typeof original;
  return { seen, restore: () => (extVscode.window[kind] = original) };
}

describe('Inheritance in VS Code: constraints in the Sessions tree', () => {
  let a: BatonApi;
  const key = uid('rules');
  const said = 'You must never push to the main branch without a review.';
  const byHand = 'Always run the linter before a commit.';
  let errors: { seen: string[]; restore(): void };

  before(async function () {
    this.timeout(60_000);
    a = await api();
    errors = recordMessages('showErrorMessage');
    const ep = endpointOf(a.host);
    await sessionStart(ep, { key, project: workspaceFolder(), title: `Rules ${key}` });
    await prompt(ep, key, `Set up the release pipeline. ${said}`);
    await prompt(ep, key, 'Now write the deploy script.', 'The pipeline is ready.');
    // Session end runs the extractor over the whole session: the rule becomes a constraint of turn 1.
    await sessionEnd(ep, key, 'completed');
    await post(ep, '/api/constraints', { sessionKey: key, content: byHand });
    await waitFor(async () => (await clientOf(a).constraints(key)).length === 2, 15_000, 'two active constraints of the session');
    a.tree.refresh();
  });

  after(() => errors?.restore());

  async function sessionNode(): Promise<AnyNode> {
    const roots = (await a.tree.getChildren()) as AnyNode[];
    const node = roots.find((n) => n.key === key);
    assert.ok(node, `${key} is not among the roots`);
    return node;
  }

  async function children(node: AnyNode): Promise<AnyNode[]> {
    return (await a.tree.getChildren(node as never)) as AnyNode[];
  }

  const item = (node: AnyNode): vscode.TreeItem => a.tree.getTreeItem(node as never);

  it('a session with active constraints expands to "Constraints (2)", listing each rule with its entity and origin', async () => {
    const session = await sessionNode();
    // No sub-agents, yet it expands: the constraints are under it.
    assert.equal(item(session).collapsibleState, vscode.TreeItemCollapsibleState.Collapsed);
    const [group, ...rest] = await children(session);
    assert.equal(rest.length, 0, 'no sessions under it');
    const groupItem = item(group);
    assert.equal(groupItem.label, 'Constraints (2)');
    assert.equal(groupItem.contextValue, 'constraints');
    const rules = await children(group);
    const byLabel = new Map(rules.map((n) => [String(item(n).label), item(n)]));
    assert.deepEqual([...byLabel.keys()].sort(), [byHand, said].sort());
    const extracted = byLabel.get(said)!;
    assert.equal(extracted.description, 'rules · user, turn 1');
    assert.equal(extracted.contextValue, 'constraint');
    assert.ok(extracted.tooltip instanceof vscode.MarkdownString);
    assert.match(extracted.tooltip.value.replace(/&nbsp;/g, ' ').replace(/\\(.)/g, '$1'), /From: user, turn 1/);
    // Clicking a rule stated in a turn opens the transcript at that turn.
    assert.deepEqual(extracted.command?.arguments, [key, 1]);
    assert.equal(byLabel.get(byHand)!.description, 'rules · added by hand');
    assert.equal(byLabel.get(byHand)!.command, undefined);
  });

  it('baton.deactivateConstraint (the context menu) deactivates through the API and refreshes the tree', async function () {
    this.timeout(20_000);
    const [group] = await children(await sessionNode());
    const hand = (await children(group)).find((n) => n.constraint?.content === byHand);
    assert.ok(hand);
    const refreshed = nextEvent(a.tree.onDidChangeTreeData, 10_000, 'a tree refresh');
    await vscode.commands.executeCommand('baton.deactivateConstraint', hand);
    await refreshed;
    assert.deepEqual(
      (await clientOf(a).constraints(key)).map((c) => c.content),
      [said],
    );
    const [after] = await children(await sessionNode());
    assert.equal(item(after).label, 'Constraints (1)');
    assert.deepEqual(
      (await children(after)).map((n) => item(n).label),
      [said],
    );
    // The last one gone: no constraints node, and a session without sub-agents no longer expands.
    await vscode.commands.executeCommand('baton.deactivateConstraint', (await children(after))[0]);
    const session = await sessionNode();
    assert.equal(item(session).collapsibleState, vscode.TreeItemCollapsibleState.None);
    assert.deepEqual(await children(session), []);
    assert.deepEqual(errors.seen, []);
  });

  it('a failed deactivation is a readable error notification', async function () {
    this.timeout(20_000);
    errors.seen.length = 0;
    await vscode.commands.executeCommand('baton.deactivateConstraint', 987_654_321);
    await waitFor(() => errors.seen.length > 0, 5_000, 'an error notification');
    assert.match(errors.seen[0], /^Baton: could not deactivate constraint 987654321: .*not found/);
  });
});

interface Rendered {
  sessionKey: string;
  profile: string;
  selected: string;
  options: string[];
  origins: string[];
  budget: string;
}

interface PreviewPanels {
  showInherited(key: string, child?: { agentType?: string; profile?: string }): vscode.WebviewPanel;
  previewFor(key: string, child: { agentType?: string; profile?: string }): Promise<void>;
  onDidRenderInherited: vscode.Event<Rendered>;
}

describe('Inheritance in VS Code: the preview and the profile settings', () => {
  let a: BatonApi;
  let panels: PreviewPanels;
  const key = uid('preview');
  const rule = 'Never deploy the billing service on a Friday afternoon.';
  const byHand = 'Always tag a release before it ships.';
  // About 3,000 estimated tokens: more than the full profile's 2,000, so the digest is cut.
  const summary = Array.from({ length: 120 }, (_, i) => `Step ${i + 1} moved the invoice exporter closer to the new ledger format.`).join(' ');

  /**
   * Opens the preview and resolves with its first render. A webview whose bootstrap stalls in
   * code-server (see webviews.test.ts, openLoaded) is closed and opened again, at most 4 times.
   */
  async function openRendered(child?: { agentType?: string; profile?: string }): Promise<Rendered> {
    for (let attempt = 1; ; attempt++) {
      const rendered = nextEvent(panels.onDidRenderInherited, 12_000, 'the preview renders', (r) => r.sessionKey === key);
      const panel = panels.showInherited(key, child);
      try {
        return await rendered;
      } catch (err) {
        if (attempt >= 4) throw err;
        const closed = new Promise<void>((resolve) => panel.onDidDispose(() => resolve()));
        panel.dispose();
        await within(closed, 5_000, 'panel disposed');
      }
    }
  }

  /** Re-renders through the picker's path and resolves with the new render. */
  async function pick(child: { agentType?: string; profile?: string }): Promise<Rendered> {
    const rendered = nextEvent(panels.onDidRenderInherited, 15_000, `the preview re-renders for ${JSON.stringify(child)}`, (r) => r.sessionKey === key);
    await panels.previewFor(key, child);
    return rendered;
  }

  before(async function () {
    this.timeout(60_000);
    a = await api();
    panels = a.panels as unknown as PreviewPanels;
    const ep = endpointOf(a.host);
    await sessionStart(ep, { key, project: workspaceFolder(), title: `Preview ${key}` });
    await prompt(ep, key, `Move the invoice exporter to the ledger format. ${rule}`);
    await prompt(ep, key, 'Then check the totals.', 'The exporter writes the ledger format now.');
    // The compaction replaces those turns: its summary is the digest, and the rule is extracted from turn 1.
    await post(ep, '/api/hooks/compaction-complete', { harness: 'claude-code', sessionKey: key, summary });
    await prompt(ep, key, 'Now the totals report.', 'The totals match.');
    await post(ep, '/api/constraints', { sessionKey: key, content: byHand });
    await waitFor(async () => (await clientOf(a).constraints(key)).length === 2, 15_000, 'two active constraints');
  });

  after(async function () {
    this.timeout(60_000);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('marks where each constraint came from, shows the budget line with what was cut, and offers the configured agent types', async function () {
    this.timeout(70_000);
    const r = await openRendered();
    assert.equal(r.profile, 'full');
    assert.equal(r.selected, '');
    assert.deepEqual([...r.origins].sort(), ['added by hand', 'user, turn 1']);
    assert.match(r.budget, /^Budget: ~[\d,.]+ of 2[,.]?000 tokens \(cut: checkpoint summary\)$/);
    // The default, the built-in agent types with their profiles, then the four profiles.
    assert.equal(r.options[0], 'default (full)');
    for (const option of ['Explore → digest', 'statusline-setup → routing', 'profile: full', 'profile: digest', 'profile: routing', 'profile: none'])
      assert.ok(r.options.includes(option), `${option} in ${JSON.stringify(r.options)}`);
    assert.ok(r.options.indexOf('Explore → digest') < r.options.indexOf('profile: full'));
    // The same origins as the server's preview.
    const view = await clientOf(a).inherited(key);
    assert.deepEqual(view.constraintOrigins.map((c) => c.origin).sort(), [...r.origins].sort());
  });

  it('the agent-type picker re-renders the block for the chosen type or profile', async function () {
    this.timeout(60_000);
    const explore = await pick({ agentType: 'Explore' });
    assert.equal(explore.profile, 'digest');
    assert.equal(explore.selected, 'type:Explore');
    assert.match(explore.budget, / of 1[,.]?200 tokens/);
    // Constraints are in every profile but none.
    assert.deepEqual([...explore.origins].sort(), ['added by hand', 'user, turn 1']);
    const routing = await pick({ profile: 'routing' });
    assert.equal(routing.profile, 'routing');
    assert.equal(routing.selected, 'profile:routing');
    assert.match(routing.budget, / of 400 tokens/);
    const none = await pick({ profile: 'none' });
    assert.equal(none.profile, 'none');
    assert.deepEqual(none.origins, []);
    const back = await pick({});
    assert.equal(back.profile, 'full');
    assert.equal(back.selected, '');
  });

  it('baton.inherit.* profile settings reach the server (merged over the built-in types); a bad entry is a readable warning', async function () {
    this.timeout(120_000);
    const warnings = recordMessages('showWarningMessage');
    try {
      await setBaton('inherit.profileMaxTokens', { routing: 150 });
      await setBaton('inherit.agentTypeProfiles', { 'vs17-reviewer': 'routing', 'vs17-bad': 'most' });
      await setBaton('inherit.defaultProfile', 'digest');
      await waitFor(
        () =>
          warnings.seen.includes(
            'Baton settings: baton.inherit.agentTypeProfiles: "vs17-bad" must map to one of "full", "digest", "routing", "fork", "none" (got "most"); that entry is ignored.',
          ),
        10_000,
        `the warning (seen: ${JSON.stringify(warnings.seen)})`,
      );
      // The leader restarts with the new rules.
      const view = await waitFor(
        async () => {
          const v = await clientOf(a).inherited(key, { agentType: 'vs17-reviewer' });
          return v.profiles.defaultProfile === 'digest' && v.profile.name === 'routing' ? v : null;
        },
        30_000,
        'the server uses the new profile rules',
        200,
      );
      assert.equal(view.profile.maxTokens, 150);
      assert.equal(view.profile.reason, 'agentType:vs17-reviewer');
      assert.equal(view.profiles.byAgentType.Explore, 'digest', 'the built-in types stay');
      assert.equal(view.profiles.byAgentType['vs17-bad'], undefined);
      assert.equal((await clientOf(a).inherited(key)).profile.name, 'digest');
      await waitFor(() => a.host.role === 'leader', 15_000, 'leader again');
      // A new preview offers the configured type and the new default.
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      const r = await openRendered();
      assert.equal(r.profile, 'digest');
      assert.equal(r.options[0], 'default (digest)');
      assert.ok(r.options.includes('vs17-reviewer → routing'), JSON.stringify(r.options));
    } finally {
      warnings.restore();
      await setBaton('inherit.defaultProfile', undefined);
      await setBaton('inherit.agentTypeProfiles', undefined);
      await setBaton('inherit.profileMaxTokens', undefined);
      await waitFor(
        async () => {
          const v = await clientOf(a).inherited(key, { agentType: 'vs17-reviewer' });
          return v.profiles.defaultProfile === 'full' && v.profile.name === 'full';
        },
        30_000,
        'the server is back on the default rules',
        200,
      );
      await waitFor(() => a.host.role === 'leader', 15_000, 'leader again');
    }
  });
});
