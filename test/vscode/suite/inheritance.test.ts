// What a sub-agent inherits, as VS Code shows it: a session's constraints in the Sessions tree
// (and deactivating one from its context menu), the inherited-context preview with where each
// constraint came from, the budget and an agent-type picker, and the `baton.inherit.*` profile
// settings reaching the server. Everything goes through the running leader's real endpoint.

import * as assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { api, endpointOf, extension, nextEvent, post, prompt, sessionEnd, sessionStart, uid, waitFor, within, workspaceFolder, type BatonApi } from './helpers';

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
