// The typed message protocol between Baton's webviews and the extension host. Shared by
// src/vscode (host side) and media/*.ts (webview side). Every webview starts with `ready`;
// the host answers with its state, so a reloaded (deserialised) view is filled the same way.

import type { InheritedChild, InheritedView, TurnView } from '../client/batonClient';
import type { SessionSpend } from '../core/spend';
import type { SpendBreakdown } from '../core/spendFormat';

export interface TranscriptState {
  kind: 'transcript';
  sessionKey: string;
  /** Whose session of the key (keys are per agent); without it the key's newest session. */
  agentId?: string;
  /** Turn to scroll to and highlight (a search hit). */
  focusSeq?: number;
  /** Words to highlight. */
  highlight?: string[];
}

export interface InheritedState extends InheritedChild {
  kind: 'inherited';
  sessionKey: string;
  /** The agent a new child would be written for: its parent is that agent's session of the key (the default agent's without it). */
  agentId?: string;
}

/** What the preview drew, read back from its DOM after each render (the host publishes it as Panels.onDidRenderInherited; tests check it). */
export interface InheritedRendered {
  profile: string;
  /** The picker's chosen value: "" (default), "type:NAME" or "profile:NAME". */
  selected: string;
  /** The picker's option labels, in order. */
  options: string[];
  /** Each listed constraint's origin, as shown. */
  origins: string[];
  /** The budget line, as shown. */
  budget: string;
}

export interface SpendState {
  kind: 'spend';
  sessionKey: string;
  /** Whose session of the key (keys are per agent); without it the key's newest session. */
  agentId?: string;
}

/** What the Spend view draws: a session tree's tokens by child and by model (core/spendFormat.ts spendBreakdown). */
export interface SpendViewData {
  breakdown: SpendBreakdown;
  /** Children of the session, and how many of them the view lists (at most one page). */
  childCount: number;
  childrenShown: number;
}

/** What the Spend view drew, read back from its DOM after each render (Panels.onDidRenderSpend; tests check it). */
export interface SpendRendered {
  /** The summary line, as shown. */
  summary: string;
  /** Each bar's spoken label, by section ("By sub-agent", then "By model"), in order. */
  bars: Record<string, string[]>;
  /** Each table's body rows, cells joined by " | ". */
  tables: Record<string, string[]>;
}

export type PanelState = TranscriptState | InheritedState | SpendState;

export type FromWebview =
  | { type: 'ready' }
  | { type: 'loadTurns'; from: number; limit: number }
  | { type: 'copy'; text: string }
  | { type: 'openSession'; sessionKey: string }
  /** The Spend view's child rows: open that child's own Spend view. */
  | { type: 'openSpend'; sessionKey: string }
  /** The preview's picker: show the block a child of this agent type (or profile) would get. */
  | { type: 'previewFor'; child: InheritedChild }
  | ({ type: 'rendered' } & InheritedRendered)
  | ({ type: 'spendRendered' } & SpendRendered);

export type ToWebview =
  /** `spend`: the session's own and rolled-up spend (core/spend.ts), for a view that shows more than `meta`'s line. */
  | { type: 'init'; state: TranscriptState; title: string; total: number; meta: string; spend: SessionSpend }
  | { type: 'turns'; from: number; turns: TurnView[]; total: number }
  | { type: 'inherited'; state: InheritedState; view: InheritedView; title: string }
  | { type: 'spend'; state: SpendState; view: SpendViewData; title: string }
  | { type: 'error'; message: string };
