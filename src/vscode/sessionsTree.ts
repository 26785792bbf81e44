// The Sessions tree: root sessions with their sub-agents nested to any depth, loaded lazily (one
// level per expand), refreshed from the endpoint's event stream (no polling), filtered to this
// workspace's project or showing all, newest activity first. A session with active constraints
// (the rules its sub-agents inherit) shows them under a "Constraints (n)" node. Each session shows
// its model and spend, and its sub-agents' rolled-up total (README.md, "Spend"); the
// levels can be sorted by spend instead of activity.

import * as vscode from 'vscode';
import type { ConstraintListView, SessionView } from '../client/batonClient';
import { age } from '../core/format';
import { bySpend, spendDescription, spendTooltipLines } from '../core/spendFormat';
import { constraintOrigin } from '../store/ruleQueries';
import { DEFAULT_AGENT } from '../core/agents';
import type { BatonHost } from './host';
import { Disposable, toDisposable } from '../core/disposable';

/**
 * A session is known by its agent and key: keys are per agent, so two agents may hold one key
 * (docs/security.md, "Reads by key name the agent"). Every read of a node sends its agent.
 */
function sessionId(agentId: string, key: string): string {
  return `${agentId}\u0000${key}`;
}

/** The tree item id: the key for the default agent's session, the key and its agent for another's. */
function itemId(s: { agentId: string; key: string }): string {
  return s.agentId === DEFAULT_AGENT ? s.key : `${s.key}\u0000${s.agentId}`;
}

export class SessionNode {
  constructor(
    /** Refreshed in place: VS Code knows tree elements by identity, so a session keeps one node. */
    public session: SessionView,
    /** The parent's key; the parent is the session of that key in the same agent. */
    readonly parentKey: string | null,
  ) {}
  get key(): string {
    return this.session.key;
  }
  get agentId(): string {
    return this.session.agentId;
  }
}

/** "Load more" at the end of a level that has more sessions than are shown. */
export class MoreNode {
  constructor(
    readonly parentKey: string | null,
    readonly remaining: number,
    /** The parent's agent (a level is one session's children). */
    readonly agentId?: string,
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
  get agentId(): string {
    return this.session.agentId;
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
  /** How many sessions each level shows (key: the parent session's agent and key, '' for the roots). */
  private readonly limits = new Map<string, number>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly nodes = new Map<string, SessionNode>();
  private pending: NodeJS.Timeout | null = null;
  /** Active constraint counts by session (agent and key), loaded once per refresh (one request, not one per session). */
  private constraintCounts: Promise<Map<string, number>> | null = null;
  /** The last loaded counts, for getTreeItem (sync): a session with constraints expands. */
  private countsNow = new Map<string, number>();
  private showAll: boolean;
  private spendOrder = false;
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

  /** True: each level lists its sessions most rolled-up tokens first, not newest activity first. */
  get sortedBySpend(): boolean {
    return this.spendOrder;
  }

  setSortBySpend(on: boolean): void {
    this.spendOrder = on;
    void vscode.commands.executeCommand('setContext', 'baton.sortBySpend', on);
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
        for (const c of list) if (c.sessionKey) counts.set(sessionId(c.agentId, c.sessionKey), (counts.get(sessionId(c.agentId, c.sessionKey)) ?? 0) + 1);
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

  /** A level of the tree: the roots, or the children of the session of `parentKey` in `agentId`. */
  private async level(parentKey: string | null, limit: number, agentId?: string): Promise<{ sessions: SessionView[]; total: number }> {
    const client = this.host.client;
    if (!client) return { sessions: [], total: 0 };
    if (parentKey) return client.listSessions({ parent: parentKey, agentId, limit });
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
    const limit = this.limits.get(element ? sessionId(element.agentId, element.key) : '') ?? PAGE;
    const [{ sessions: listed, total }, constraints] = await Promise.all([
      this.level(parentKey, limit, element?.agentId),
      element ? this.sessionConstraints(element.key, element.agentId) : Promise.resolve([]),
      this.counts(),
    ]);
    // The endpoint pages a level newest first: the spend order sorts the loaded page (the rest
    // stays behind "Load more"), most rolled-up tokens first, ties by activity.
    const sessions = this.spendOrder ? [...listed].sort(bySpend) : listed;
    if (!element) {
      this.rootKeys = sessions.map((s) => s.key);
      void vscode.commands.executeCommand('setContext', 'baton.empty', sessions.length === 0);
    }
    const nodes: TreeNode[] = sessions.map((s) => {
      const known = this.nodes.get(sessionId(s.agentId, s.key));
      // The same object across refreshes, so a node handed out earlier (reveal) still resolves.
      if (known && known.parentKey === (parentKey ?? s.parentSessionKey)) {
        known.session = s;
        return known;
      }
      const node = new SessionNode(s, parentKey ?? s.parentSessionKey);
      this.nodes.set(sessionId(s.agentId, s.key), node);
      return node;
    });
    if (total > sessions.length) nodes.push(new MoreNode(parentKey, total - sessions.length, element?.agentId));
    if (element && constraints.length > 0) nodes.unshift(new ConstraintsNode(element, constraints));
    return nodes;
  }

  /** A session's active constraints (its agent's); a failed read leaves them out rather than failing the level. */
  private async sessionConstraints(key: string, agentId: string): Promise<ConstraintListView[]> {
    return (await this.host.client?.constraints(key, 1000, agentId).catch(() => [])) ?? [];
  }

  /** Shows the next page of a level (the roots, or the children of the session of `parentKey` in `agentId`). */
  loadMore(parentKey: string | null, agentId?: string): void {
    const key = parentKey === null ? '' : sessionId(agentId ?? DEFAULT_AGENT, parentKey);
    this.limits.set(key, (this.limits.get(key) ?? PAGE) + PAGE);
    this.refresh();
  }

  /**
   * Makes sure a session (of `agentId`, else the key's newest) is inside the loaded pages of its
   * level (and of its ancestors', each in the same agent), for reveal.
   */
  async ensureListed(key: string, agentId?: string): Promise<void> {
    const client = this.host.client;
    if (!client) return;
    let widened = false;
    for (let session = await client.getSession(key, agentId), hops = 0; session && hops < 100; hops++) {
      const agent = session.agentId;
      const parent = session.parentSessionKey && (await client.getSession(session.parentSessionKey, agent)) ? session.parentSessionKey : null;
      const level = parent === null ? '' : sessionId(agent, parent);
      for (let limit = this.limits.get(level) ?? PAGE; ; limit += PAGE) {
        const { sessions, total } = await this.level(parent, limit, agent);
        if (sessions.some((s) => s.key === session!.key && s.agentId === agent) || limit >= total) {
          widened ||= limit !== (this.limits.get(level) ?? PAGE);
          this.limits.set(level, limit);
          break;
        }
      }
      session = parent ? await client.getSession(parent, agent) : null;
    }
    // VS Code's reveal waits for a pending refresh: make it the one that loads the wider pages,
    // not one started earlier (a filter change, live events) that still shows the old pages.
    if (widened) this.refresh();
  }

  getTreeItem(node: TreeNode): vscode.TreeItem {
    if (node instanceof MoreNode) {
      const more = new vscode.TreeItem(`Load ${Math.min(PAGE, node.remaining)} more… (${node.remaining} not shown)`, vscode.TreeItemCollapsibleState.None);
      more.id = `more:${node.parentKey === null ? '' : itemId({ agentId: node.agentId ?? DEFAULT_AGENT, key: node.parentKey })}`;
      more.iconPath = new vscode.ThemeIcon('ellipsis');
      more.contextValue = 'more';
      more.command = { command: 'baton.loadMoreSessions', title: 'Load More', arguments: [node.parentKey, node.agentId] };
      return more;
    }
    if (node instanceof ConstraintsNode) return constraintsItem(node);
    if (node instanceof ConstraintNode) return constraintItem(node);
    const s = node.session;
    const expands = s.childCount > 0 || (this.countsNow.get(sessionId(s.agentId, s.key)) ?? 0) > 0;
    const item = new vscode.TreeItem(sessionLabel(s), expands ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
    item.id = itemId(s);
    item.iconPath = statusIcon(s);
    // Spend is read from the session as listed: every refresh (live events included) re-reads it.
    item.description = [s.harness, `${age(s.updatedAt)} ago`, `${s.turnCount} turns`, spendDescription(s.spend)].filter(Boolean).join(' · ');
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
    tip.appendText(`\n${spendTooltipLines(s.spend).join('\n')}\n`);
    item.tooltip = tip;
    item.contextValue = ['session', s.status, s.bypassed ? 'bypassed' : 'live'].join('.');
    item.command = { command: 'baton.openTranscript', title: 'Open Transcript', arguments: [node] };
    return item;
  }

  async getParent(node: TreeNode): Promise<TreeNode | undefined> {
    if (node instanceof ConstraintNode) return node.parent;
    if (node instanceof ConstraintsNode) return node.session;
    if (node instanceof MoreNode) return node.parentKey ? this.nodes.get(sessionId(node.agentId ?? DEFAULT_AGENT, node.parentKey)) : undefined;
    if (!node.parentKey) return undefined;
    // The parent is the session of that key in the child's own agent.
    const cached = this.nodes.get(sessionId(node.agentId, node.parentKey));
    if (cached) return cached;
    const parent = await this.host.client?.getSession(node.parentKey, node.agentId);
    if (!parent) return undefined;
    const created = new SessionNode(parent, parent.parentSessionKey);
    this.nodes.set(sessionId(parent.agentId, parent.key), created);
    return created;
  }

  /** A node for a session (for `reveal`): of `agentId`, else the key's newest; fetched when it was never listed. */
  async nodeFor(key: string, agentId?: string): Promise<SessionNode | undefined> {
    const cached = agentId ? this.nodes.get(sessionId(agentId, key)) : undefined;
    if (cached) return cached;
    const session = await this.host.client?.getSession(key, agentId);
    if (!session) return undefined;
    const known = this.nodes.get(sessionId(session.agentId, session.key));
    if (known) return known;
    const node = new SessionNode(session, session.parentSessionKey);
    this.nodes.set(sessionId(session.agentId, session.key), node);
    return node;
  }
}

function constraintsItem(node: ConstraintsNode): vscode.TreeItem {
  const item = new vscode.TreeItem(`Constraints (${node.constraints.length})`, vscode.TreeItemCollapsibleState.Collapsed);
  item.id = `constraints:${itemId({ agentId: node.agentId, key: node.sessionKey })}`;
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
  // The default agent's session is addressed by its key alone, as everywhere in the tree.
  if (c.origin.seq !== null && c.sessionKey) {
    const target = c.agentId && c.agentId !== DEFAULT_AGENT ? { key: c.sessionKey, agentId: c.agentId } : c.sessionKey;
    item.command = { command: 'baton.openTranscript', title: 'Open Transcript', arguments: [target, c.origin.seq] };
  }
  return item;
}
