// The typed message protocol between Baton's webviews and the extension host. Shared by
// src/vscode (host side) and media/*.ts (webview side). Every webview starts with `ready`;
// the host answers with its state, so a reloaded (deserialised) view is filled the same way.

import type { InheritedView, TurnView } from '../client/batonClient';

export interface TranscriptState {
  kind: 'transcript';
  sessionKey: string;
  /** Turn to scroll to and highlight (a search hit). */
  focusSeq?: number;
  /** Words to highlight. */
  highlight?: string[];
}

export interface InheritedState {
  kind: 'inherited';
  sessionKey: string;
}

export type PanelState = TranscriptState | InheritedState;

export type FromWebview =
  { type: 'ready' } | { type: 'loadTurns'; from: number; limit: number } | { type: 'copy'; text: string } | { type: 'openSession'; sessionKey: string };

export type ToWebview =
  | { type: 'init'; state: TranscriptState; title: string; total: number; meta: string }
  | { type: 'turns'; from: number; turns: TurnView[]; total: number }
  | { type: 'inherited'; state: InheritedState; view: InheritedView; title: string }
  | { type: 'error'; message: string };
