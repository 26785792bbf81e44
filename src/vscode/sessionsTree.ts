// The Sessions tree: root sessions with their sub-agents nested to any depth, loaded lazily (one
// level per expand), refreshed from the endpoint's event stream (no polling), filtered to this
// workspace's project or showing all, newest activity first. A session with active constraints
// (the rules its sub-agents inherit) shows them under a "Constraints (n)" node.

import * as vscode from 'vscode';
import type { ConstraintListView, SessionView } from '../client/batonClient';
import { age } from '../core/format';
import { constraintOrigin } from '../store/ruleQueries';
import type { BatonHost } from './host';
import { Disposable, toDisposable } from '../core/disposable';

export class SessionNode {
  constructor(
    /** Refreshed in place: VS Code knows tree elements by identity, so a session keeps one node. */
    public session: SessionView,
    readonly parentKey: string | null,
  ) {}
  get key(): string {
    return this.session.key;
  }
}

/** "Load more" at the end of a level that has more sessions than are shown. */
export class MoreNode {
  constructor(
    readonly parentKey: string | null,
    readonly remaining: number,
  ) {}
}

/** "Constraints (n)": the active rules a session's sub-agents inherit. */
export class ConstraintsNode {
  constructor(
    readonly session: SessionNode,
    readonly constraints: ConstraintListView[],
  ) {}
  get sessionKey(): string {
    return this.session.key;
  }
}

/** One active constraint of a session; its context menu deactivates it. */
export class ConstraintNode {
  constructor(
    readonly parent: ConstraintsNode,
    readonly constraint: ConstraintListView,
  ) {}
  get id(): number {
    return this.constraint.id;
  }
  /** Where the rule came from: "user, turn 12", "agent, turn 40", "added by hand". */
  get origin(): string {
    return constraintOrigin(this.constraint, this.parent.sessionKey);
  }
}

export type TreeNode = SessionNode | MoreNode | ConstraintsNode | ConstraintNode;

export const PAGE = 500;

export function statusIcon(s: SessionView): vscode.ThemeIcon {
  if (s.bypassed) return new vscode.ThemeIcon('circle-slash', new vscode.ThemeColor('disabledForeground'));
  switch (s.status) {
    case 'active':
      return new vscode.ThemeIcon('sync~spin', new vscode.ThemeColor('charts.blue'));
    case 'completed':
      return new vscode.ThemeIcon('pass', new vscode.ThemeColor('testing.iconPassed'));
    case 'failed':
      return new vscode.ThemeIcon('error', new vscode.ThemeColor('testing.iconFailed'));
    default:
      return new vscode.ThemeIcon('circle-outline');
  }
}

export function sessionLabel(s: SessionView): string {
  if (s.title) return s.title;
  if (s.harnessAgentType) return `${s.harnessAgentType} ${s.key.split('/').pop()}`;
  return s.key;
}

export class SessionsTree extends Disposable implements vscode.TreeDataProvider<TreeNode> {
  private readonly changed = this._register(new vscode.EventEmitter<TreeNode | undefined>());
  /** How many sessions each level shows (key: parent session key, '' for the roots). */
  private readonly limits = new Map<string, number>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly nodes = new Map<string, SessionNode>();
  private pending: NodeJS.Timeout | null = null;
  /** Active constraint counts by session key, loaded once per refresh (one request, not one per session). */
  private constraintCounts: Promise<Map<string, number>> | null = null;
  /** The last loaded counts, for getTreeItem (sync): a session with constraints expands. */
  private countsNow = new Map<string, number>();
  private showAll: boolean;
  /** Keys of the last loaded roots (for "is it empty", tests and reveal). */
  rootKeys: string[] = [];

  constructor(
    private readonly host: BatonHost,
    initialFilter: 'workspace' | 'all',
  ) {
    super();
    this.showAll = initialFilter === 'all';
    void vscode.commands.executeCommand('setContext', 'baton.showAllProjects', this.showAll);
    this._register(toDisposable(() => this.pending && clearTimeout(this.pending)));
    // Hook traffic arrives in bursts: coalesce the refreshes.
    this._register(host.onDidChangeSessions(() => this.scheduleRefresh()));
    this._register(host.onDidChangeRole(() => this.scheduleRefresh()));
  }

  get filter(): 'workspace' | 'all' {
    return this.showAll ? 'all' : 'workspace';
  }

  setFilter(filter: 'workspace' | 'all'): void {
    this.showAll = filter === 'all';
    void vscode.commands.executeCommand('setContext', 'baton.showAllProjects', this.showAll);
    this.refresh();
  }

  private scheduleRefresh(): void {
    if (this.pending) return;
    this.pending = setTimeout(() => {
      this.pending = null;
      this.refresh();
    }, 150);
  }

  refresh(): void {
    this.constraintCounts = null;
    this.changed.fire(undefined);
  }

  /** How many active constraints each session has (the newest 1000 readable ones are counted). */
  private counts(): Promise<Map<string, number>> {
    const client = this.host.client;
    if (!client) return Promise.resolve(new Map());
    this.constraintCounts ??= client.constraints(undefined, 1000).then(
      (list) => {
        const counts = new Map<string, number>();
        for (const c of list) if (c.sessionKey) counts.set(c.sessionKey, (counts.get(c.sessionKey) ?? 0) + 1);
        this.countsNow = counts;
        return counts;
      },
      () => new Map(),
    );
    return this.constraintCounts;
  }

  /** The workspace folder paths a session's project must match, or undefined for "all". */
  private projects(): string[] | undefined {
    if (this.showAll) return undefined;
    const folders = vscode.workspace.workspaceFolders?.map((f) => f.uri.fsPath) ?? [];
    return folders.length > 0 ? folders : undefined;
  }

  private async level(parentKey: string | null, limit: number): Promise<{ sessions: SessionView[]; total: number }> {
    const client = this.host.client;
    if (!client) return { sessions: [], total: 0 };
    if (parentKey) return client.listSessions({ parent: parentKey, limit });
    const projects = this.projects();
    if (!projects) return client.listSessions({ roots: true, limit });
    const pages = await Promise.all(projects.map((project) => client.listSessions({ roots: true, project, limit })));
    const sessions = pages
      .flatMap((r) => r.sessions)
      .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt))
      .slice(0, limit);
    return { sessions, total: pages.reduce((n, r) => n + r.total, 0) };
  }

  async getChildren(element?: TreeNode): Promise<TreeNode[]> {
    if (element instanceof MoreNode || element instanceof ConstraintNode) return [];
    if (element instanceof ConstraintsNode) return element.constraints.map((c) => new ConstraintNode(element, c));
    const parentKey = element?.key ?? null;
    const limit = this.limits.get(parentKey ?? '') ?? PAGE;
    const [{ sessions, total }, constraints] = await Promise.all([
      this.level(parentKey, limit),
      element ? this.sessionConstraints(element.key) : Promise.resolve([]),
      this.counts(),
    ]);
    if (!element) {
      this.rootKeys = sessions.map((s) => s.key);
      void vscode.commands.executeCommand('setContext', 'baton.empty', sessions.length === 0);
    }
    const nodes: TreeNode[] = sessions.map((s) => {
      const known = this.nodes.get(s.key);
      // The same object across refreshes, so a node handed out earlier (reveal) still resolves.
      if (known && known.parentKey === (parentKey ?? s.parentSessionKey)) {
        known.session = s;
        return known;
      }
      const node = new SessionNode(s, parentKey ?? s.parentSessionKey);
      this.nodes.set(s.key, node);
      return node;
    });
    if (total > sessions.length) nodes.push(new MoreNode(parentKey, total - sessions.length));
    if (element && constraints.length > 0) nodes.unshift(new ConstraintsNode(element, constraints));
    return nodes;
  }

  /** A session's active constraints; a failed read leaves them out rather than failing the level. */
  private async sessionConstraints(key: string): Promise<ConstraintListView[]> {
    return (await this.host.client?.constraints(key, 1000).catch(() => [])) ?? [];
  }

  /** Shows the next page of a level. */
  loadMore(parentKey: string | null): void {
    const key = parentKey ?? '';
    this.limits.set(key, (this.limits.get(key) ?? PAGE) + PAGE);
    this.refresh();
  }

  /** Makes sure a session is inside the loaded pages of its level (and of its ancestors'), for reveal. */
  async ensureListed(key: string): Promise<void> {
    const client = this.host.client;
    if (!client) return;
    let widened = false;
    for (let session = await client.getSession(key), hops = 0; session && hops < 100; hops++) {
      const parent = session.parentSessionKey && (await client.getSession(session.parentSessionKey)) ? session.parentSessionKey : null;
      const level = parent ?? '';
      for (let limit = this.limits.get(level) ?? PAGE; ; limit += PAGE) {
        const { sessions, total } = await this.level(parent, limit);
        if (sessions.some((s) => s.key === session!.key) || limit >= total) {
          widened ||= limit !== (this.limits.get(level) ?? PAGE);
          this.limits.set(level, limit);
          break;
        }
      }
      session = parent ? await client.getSession(parent) : null;
    }
    // VS Code's reveal waits for a pending refresh: make it the one that loads the wider pages,
    // not one started earlier (a filter change, live events) that still shows the old pages.
    if (widened) this.refresh();
  }

  getTreeItem(node: TreeNode): vscode.TreeItem {
    if (node instanceof MoreNode) {
      const more = new vscode.TreeItem(`Load ${Math.min(PAGE, node.remaining)} more… (${node.remaining} not shown)`, vscode.TreeItemCollapsibleState.None);
      more.id = `more:${node.parentKey ?? ''}`;
      more.iconPath = new vscode.ThemeIcon('ellipsis');
      more.contextValue = 'more';
      more.command = { command: 'baton.loadMoreSessions', title: 'Load More', arguments: [node.parentKey] };
      return more;
    }
    if (node instanceof ConstraintsNode) return constraintsItem(node);
    if (node instanceof ConstraintNode) return constraintItem(node);
    const s = node.session;
    const expands = s.childCount > 0 || (this.countsNow.get(s.key) ?? 0) > 0;
    const item = new vscode.TreeItem(sessionLabel(s), expands ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
    item.id = s.key;
    item.iconPath = statusIcon(s);
    item.description = [s.harness, `${age(s.updatedAt)} ago`, `${s.turnCount} turns`].join(' · ');
    const tip = new vscode.MarkdownString(undefined, true);
    tip.appendMarkdown(`**${sessionLabel(s)}**\n\n`);
    const rows: Array<[string, string | null]> = [
      ['Key', s.key],
      ['Harness', s.harness + (s.harnessAgentType ? ` (${s.harnessAgentType})` : '')],
      ['Status', s.bypassed ? `${s.status}, bypassed` : s.status],
      ['Project', s.project],
      ['Agent', s.agentId],
      ['Parent', s.parentSessionKey],
      ['Created', new Date(s.createdAt).toLocaleString()],
      ['Updated', new Date(s.updatedAt).toLocaleString()],
      ['Ended', s.endedAt ? `${new Date(s.endedAt).toLocaleString()}${s.endReason ? ` (${s.endReason})` : ''}` : null],
    ];
    for (const [name, value] of rows) if (value) tip.appendText(`${name}: ${value}\n`);
    item.tooltip = tip;
    item.contextValue = ['session', s.status, s.bypassed ? 'bypassed' : 'live'].join('.');
    item.command = { command: 'baton.openTranscript', title: 'Open Transcript', arguments: [node] };
    return item;
  }

  async getParent(node: TreeNode): Promise<TreeNode | undefined> {
    if (node instanceof ConstraintNode) return node.parent;
    if (node instanceof ConstraintsNode) return node.session;
    if (node instanceof MoreNode) return node.parentKey ? this.nodes.get(node.parentKey) : undefined;
    if (!node.parentKey) return undefined;
    const cached = this.nodes.get(node.parentKey);
    if (cached) return cached;
    const parent = await this.host.client?.getSession(node.parentKey);
    if (!parent) return undefined;
    const created = new SessionNode(parent, parent.parentSessionKey);
    this.nodes.set(parent.key, created);
    return created;
  }

  /** A node for a key (for `reveal`), fetched when it was never listed. */
  async nodeFor(key: string): Promise<SessionNode | undefined> {
    const cached = this.nodes.get(key);
    if (cached) return cached;
    const session = await this.host.client?.getSession(key);
    if (!session) return undefined;
    const node = new SessionNode(session, session.parentSessionKey);
    this.nodes.set(key, node);
    return node;
  }
}

function constraintsItem(node: ConstraintsNode): vscode.TreeItem {
  const item = new vscode.TreeItem(`Constraints (${node.constraints.length})`, vscode.TreeItemCollapsibleState.Collapsed);
  item.id = `constraints:${node.sessionKey}`;
  item.iconPath = new vscode.ThemeIcon('law');
  item.tooltip = 'Active rules of this session: every sub-agent it starts inherits them, whatever the budget.';
  item.contextValue = 'constraints';
  return item;
}

function constraintItem(node: ConstraintNode): vscode.TreeItem {
  const c = node.constraint;
  const item = new vscode.TreeItem(c.content, vscode.TreeItemCollapsibleState.None);
  item.id = `constraint:${c.id}`;
  item.iconPath = new vscode.ThemeIcon('circle-small-filled');
  item.description = `${c.entity} · ${node.origin}`;
  const tip = new vscode.MarkdownString(undefined, true);
  tip.appendText(c.content);
  tip.appendMarkdown('\n\n');
  tip.appendText(`Entity: ${c.entity}\nFrom: ${node.origin}\nImportance: ${c.importance}\nAdded: ${new Date(c.createdAt).toLocaleString()}\n`);
  item.tooltip = tip;
  item.contextValue = 'constraint';
  // A rule stated in a turn opens the transcript there.
  if (c.origin.seq !== null && c.sessionKey)
    item.command = { command: 'baton.openTranscript', title: 'Open Transcript', arguments: [c.sessionKey, c.origin.seq] };
  return item;
}
