// The transcript viewer, the inherited-context preview and the Spend view: webview panels that
// talk to the extension host over the typed protocol (protocol.ts) and come back after a reload
// (serializers).

import * as vscode from 'vscode';
import { age } from '../core/format';
import { spendLine } from '../core/spend';
import { spendBreakdown } from '../core/spendFormat';
import { DEFAULT_AGENT } from '../core/agents';
import type { BatonHost } from './host';
import type { InheritedChild } from '../client/batonClient';
import type { FromWebview, InheritedRendered, InheritedState, PanelState, SpendRendered, SpendState, ToWebview, TranscriptState } from './protocol';
import { webviewHtml, webviewOptions } from './webviewHtml';
import { Disposable, toDisposable } from '../core/disposable';

export const TRANSCRIPT_VIEW = 'baton.transcript';
export const INHERITED_VIEW = 'baton.inherited';
export const SPEND_VIEW = 'baton.spend';

const VIEW_TYPES: Record<PanelState['kind'], string> = { transcript: TRANSCRIPT_VIEW, inherited: INHERITED_VIEW, spend: SPEND_VIEW };
const TITLES: Record<PanelState['kind'], string> = { transcript: 'Transcript', inherited: 'Inherited ←', spend: 'Spend' };
/** The Spend view lists at most this many children (one page, as the tree). */
const SPEND_CHILDREN = 500;

function shortKey(key: string): string {
  return key.length > 28 ? `${key.slice(0, 12)}…${key.slice(-12)}` : key;
}

/**
 * A panel shows one session, known by its agent and key (keys are per agent, docs/security.md):
 * "kind:key" for the default agent's (or the key's newest), "kind:key (agent)" for another's.
 */
function panelId(state: { kind: string; sessionKey: string; agentId?: string }): string {
  return `${state.kind}:${state.sessionKey}${agentSuffix(state.agentId)}`;
}

function agentSuffix(agentId: string | undefined): string {
  return agentId && agentId !== DEFAULT_AGENT ? ` (${agentId})` : '';
}

interface OpenPanel {
  panel: vscode.WebviewPanel;
  state: PanelState;
  post(msg: ToWebview): void;
}

export class Panels extends Disposable {
  private readonly open = new Map<string, OpenPanel>();
  private readonly renderedEmitter = this._register(new vscode.EventEmitter<{ sessionKey: string } & InheritedRendered>());
  /** Each time an inherited preview has drawn a block: what it shows (profile, picker, origins, budget). */
  readonly onDidRenderInherited = this.renderedEmitter.event;
  private readonly spendRenderedEmitter = this._register(new vscode.EventEmitter<{ sessionKey: string } & SpendRendered>());
  /** Each time a Spend view has drawn: its summary, bars and tables as shown. */
  readonly onDidRenderSpend = this.spendRenderedEmitter.event;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly host: BatonHost,
  ) {
    super();
    this._register(toDisposable(() => [...this.open.values()].forEach(({ panel }) => panel.dispose())));
    this._register(
      vscode.window.registerWebviewPanelSerializer(TRANSCRIPT_VIEW, {
        deserializeWebviewPanel: async (panel, state) => this.restore(panel, state as PanelState | undefined, 'transcript'),
      }),
    );
    this._register(
      vscode.window.registerWebviewPanelSerializer(INHERITED_VIEW, {
        deserializeWebviewPanel: async (panel, state) => this.restore(panel, state as PanelState | undefined, 'inherited'),
      }),
    );
    this._register(
      vscode.window.registerWebviewPanelSerializer(SPEND_VIEW, {
        deserializeWebviewPanel: async (panel, state) => this.restore(panel, state as PanelState | undefined, 'spend'),
      }),
    );
  }

  /**
   * Open (or focus and retarget) the transcript of a session, optionally at a turn with words
   * marked. `agentId`: whose session of the key (the key's newest without it).
   */
  showTranscript(sessionKey: string, focusSeq?: number, highlight?: string[], agentId?: string): vscode.WebviewPanel {
    return this.show({ kind: 'transcript', sessionKey, agentId, focusSeq, highlight });
  }

  /**
   * Open the preview of what a new child of the session inherits; of a given agent type or profile
   * on request. `agentId`: the agent the child would be written for (the default agent without it).
   */
  showInherited(sessionKey: string, child: InheritedChild = {}, agentId?: string, preserveFocus = false): vscode.WebviewPanel {
    return this.show({ kind: 'inherited', sessionKey, agentId, ...child }, preserveFocus);
  }

  /** Open (or focus) the Spend view of a session's tree: its tokens by child and by model. */
  showSpend(sessionKey: string, agentId?: string): vscode.WebviewPanel {
    return this.show({ kind: 'spend', sessionKey, agentId });
  }

  /** The preview's picker: re-renders an open preview for another agent type or profile, in place. */
  async previewFor(sessionKey: string, child: InheritedChild, agentId?: string): Promise<void> {
    const entry = this.open.get(panelId({ kind: 'inherited', sessionKey, agentId }));
    if (!entry) throw new Error(`No inherited-context preview of ${sessionKey} is open.`);
    entry.state = {
      kind: 'inherited',
      sessionKey,
      agentId,
      agentType: child.agentType || undefined,
      profile: child.profile,
      task: child.task?.trim() || undefined,
    };
    await this.sendInherited(entry.state, entry.post);
  }

  /** Panels currently open, as "kind:key" (tests and the status menu use it). */
  get openPanels(): string[] {
    return [...this.open.keys()];
  }

  /** `preserveFocus`: open beside what has the focus without taking it (the demo's first screen). */
  private show(state: PanelState, preserveFocus = false): vscode.WebviewPanel {
    const existing = this.open.get(panelId(state));
    if (existing) {
      // A fresh document (new nonce) makes the webview say `ready` again and load the new state.
      existing.state = state;
      existing.panel.webview.html = webviewHtml(existing.panel.webview, this.extensionUri, state.kind, existing.panel.title);
      existing.panel.reveal(undefined, preserveFocus);
      return existing.panel;
    }
    const panel = vscode.window.createWebviewPanel(
      VIEW_TYPES[state.kind],
      `${TITLES[state.kind]} ${shortKey(state.sessionKey)}${agentSuffix(state.agentId)}`,
      { viewColumn: vscode.ViewColumn.Active, preserveFocus },
      webviewOptions(this.extensionUri),
    );
    this.attach(panel, state);
    return panel;
  }

  private restore(panel: vscode.WebviewPanel, state: PanelState | undefined, kind: PanelState['kind']): void {
    if (!state?.sessionKey || this.open.has(panelId({ ...state, kind }))) {
      panel.dispose();
      return;
    }
    panel.webview.options = webviewOptions(this.extensionUri);
    this.attach(panel, { ...state, kind } as PanelState);
  }

  private attach(panel: vscode.WebviewPanel, state: PanelState): void {
    const id = panelId(state);
    const post = (msg: ToWebview) => void panel.webview.postMessage(msg);
    const entry: OpenPanel = { panel, state, post };
    this.open.set(id, entry);
    const subs: vscode.Disposable[] = [
      panel.webview.onDidReceiveMessage(async (msg: FromWebview) => {
        try {
          await this.handle(msg, entry.state, post);
        } catch (err) {
          post({ type: 'error', message: (err as Error).message });
        }
      }),
    ];
    if (state.kind === 'inherited') {
      // The preview follows the parent: any change to it re-renders the block.
      subs.push(
        this.host.onDidChangeSessions(
          (keys) => void (keys.includes(state.sessionKey) && this.sendInherited(entry.state as InheritedState, post).catch(() => undefined)),
        ),
      );
    }
    if (state.kind === 'spend') {
      // Live: turns arriving anywhere in the tree change its totals. Events come in bursts, and a
      // child's turn names the child, not this session: redraw once per burst, whatever changed.
      let pending: NodeJS.Timeout | undefined;
      subs.push(
        this.host.onDidChangeSessions(() => {
          pending ??= setTimeout(() => {
            pending = undefined;
            void this.sendSpend(entry.state as SpendState, post).catch(() => undefined);
          }, 300);
        }),
        { dispose: () => clearTimeout(pending) },
      );
    }
    panel.onDidDispose(() => {
      this.open.delete(id);
      for (const s of subs) s.dispose();
    });
    panel.webview.html = webviewHtml(panel.webview, this.extensionUri, state.kind, panel.title);
  }

  private async handle(msg: FromWebview, state: PanelState, post: (m: ToWebview) => void): Promise<void> {
    const client = await this.host.requireClient();
    switch (msg.type) {
      case 'ready':
        if (state.kind === 'inherited') return this.sendInherited(state, post);
        if (state.kind === 'spend') return this.sendSpend(state, post);
        return this.sendInit(state, post);
      case 'loadTurns': {
        if (state.kind !== 'transcript') return;
        const page = await client.turns(state.sessionKey, msg.from, Math.min(msg.limit, 500), state.agentId);
        post({ type: 'turns', from: msg.from, turns: page.turns, total: page.total });
        return;
      }
      case 'copy':
        await vscode.env.clipboard.writeText(msg.text);
        void vscode.window.setStatusBarMessage('Baton: inherited block copied', 3000);
        return;
      case 'openSession':
        // A session the view names (a rule's origin) belongs to the agent of the one it shows.
        this.showTranscript(msg.sessionKey, undefined, undefined, state.agentId);
        return;
      case 'openSpend':
        // A child of the session shown: the same agent's.
        this.showSpend(msg.sessionKey, state.agentId);
        return;
      case 'previewFor':
        if (state.kind === 'inherited') return this.previewFor(state.sessionKey, msg.child, state.agentId);
        return;
      case 'rendered': {
        if (state.kind !== 'inherited') return;
        const { type: _type, ...shown } = msg;
        this.renderedEmitter.fire({ sessionKey: state.sessionKey, ...shown });
        return;
      }
      case 'spendRendered': {
        if (state.kind !== 'spend') return;
        const { type: _type, ...shown } = msg;
        this.spendRenderedEmitter.fire({ sessionKey: state.sessionKey, ...shown });
        return;
      }
    }
  }

  private async sendInit(state: TranscriptState, post: (m: ToWebview) => void): Promise<void> {
    const client = await this.host.requireClient();
    const session = await client.getSession(state.sessionKey, state.agentId);
    if (!session) throw new Error(`Session ${state.sessionKey} is not in the store.`);
    const meta = [
      session.harness,
      session.harnessAgentType,
      session.status,
      `${session.turnCount} turns`,
      // The session's spend with its sub-agents' (only when its harness reported any).
      session.spend.total && spendLine(session.spend.total),
      `updated ${age(session.updatedAt)} ago`,
      session.project,
    ]
      .filter(Boolean)
      .join(' · ');
    post({ type: 'init', state, title: session.title ?? session.key, total: session.turnCount, meta, spend: session.spend });
  }

  private async sendSpend(state: SpendState, post: (m: ToWebview) => void): Promise<void> {
    const client = await this.host.requireClient();
    const session = await client.getSession(state.sessionKey, state.agentId);
    if (!session) throw new Error(`Session ${state.sessionKey} is not in the store.`);
    const { sessions: children, total } = await client.listSessions({ parent: session.key, agentId: session.agentId, limit: SPEND_CHILDREN });
    const view = { breakdown: spendBreakdown(session, children), childCount: total, childrenShown: children.length };
    post({ type: 'spend', state, view, title: `Spend of ${session.title ?? session.key}` });
  }

  private async sendInherited(state: InheritedState, post: (m: ToWebview) => void): Promise<void> {
    const client = await this.host.requireClient();
    const view = await client.inherited(state.sessionKey, { agentType: state.agentType, profile: state.profile, task: state.task }, state.agentId);
    const child = state.profile ? ` with the ${state.profile} profile` : state.agentType ? ` of type ${state.agentType}` : '';
    const task = state.task ? ' for its task' : '';
    post({ type: 'inherited', state, view, title: `What a new sub-agent${child} of ${state.sessionKey} receives${task}` });
  }
}
