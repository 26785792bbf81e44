// Transcript viewer: turns by role, lazily loaded in pages, the search hit scrolled to and marked.

import type { FromWebview, ToWebview, TranscriptState } from '../src/vscode/protocol';
import type { TurnView } from '../src/client/batonClient';
import { el, highlighted, icon } from './dom';

declare function acquireVsCodeApi(): { postMessage(msg: FromWebview): void; setState(s: unknown): void; getState(): unknown };

const vscode = acquireVsCodeApi();
const app = document.getElementById('app')!;
const PAGE = 200;
const ROLE_ICON: Record<string, string> = { user: 'account', assistant: 'hubot', tool: 'tools', system: 'gear' };
const ROLE_NAME: Record<string, string> = { user: 'User', assistant: 'Assistant', tool: 'Tool', system: 'System' };

let state: TranscriptState | null = null;
let total = 0;
let first = Number.POSITIVE_INFINITY;
let last = 0;
let list: HTMLElement;
let before: HTMLElement;
let after: HTMLElement;
let loading = false;

function post(msg: FromWebview): void {
  vscode.postMessage(msg);
}

function renderTurn(turn: TurnView): HTMLElement {
  const focus = state?.focusSeq === turn.seq;
  const node = el('article', { className: `turn ${turn.role}${focus ? ' focus' : ''}` }, [
    el('div', { className: 'head' }, [
      icon(ROLE_ICON[turn.role] ?? 'comment'),
      el('span', { className: 'role', text: ROLE_NAME[turn.role] ?? turn.role }),
      el('span', { text: `#${turn.seq}` }),
      el('span', { text: turn.at ? new Date(turn.at).toLocaleString() : '' }),
    ]),
    el('div', { className: 'body' }, [highlighted(turn.text, state?.highlight ?? [])]),
  ]);
  node.id = `turn-${turn.seq}`;
  return node;
}

function updatePagers(): void {
  before.hidden = first <= 1;
  after.hidden = last >= total;
}

function request(from: number): void {
  if (loading) return;
  loading = true;
  post({ type: 'loadTurns', from: Math.max(1, from), limit: PAGE });
}

window.addEventListener('message', (event: MessageEvent<ToWebview>) => {
  const msg = event.data;
  if (msg.type === 'init') {
    state = msg.state;
    total = msg.total;
    vscode.setState(state);
    app.textContent = '';
    before = el('div', { className: 'pager' }, [el('button', { className: 'secondary', text: 'Load earlier turns' })]);
    after = el('div', { className: 'pager' }, [el('button', { className: 'secondary', text: 'Load more turns' })]);
    before.querySelector('button')!.addEventListener('click', () => request(first - PAGE));
    after.querySelector('button')!.addEventListener('click', () => request(last + 1));
    list = el('div', { className: 'turns' });
    app.append(
      el('header', { className: 'bar' }, [
        icon('comment-discussion'),
        el('h1', { text: msg.title, title: msg.title }),
        el('span', { className: 'muted meta', text: msg.meta }),
      ]),
      before,
      list,
      after,
    );
    app.setAttribute('aria-busy', 'false');
    first = Number.POSITIVE_INFINITY;
    last = 0;
    const start = state.focusSeq ? Math.max(1, state.focusSeq - Math.floor(PAGE / 4)) : 1;
    if (total === 0) list.append(el('p', { className: 'muted', text: 'No transcript stored for this session yet.' }));
    else request(start);
    new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting) && last < total && last > 0) request(last + 1);
    }).observe(after);
  } else if (msg.type === 'turns') {
    // A late reply meant for the page this one replaced: nothing to add it to yet.
    if (!state || !list) return;
    loading = false;
    total = msg.total;
    const fresh = msg.turns.filter((t) => t.seq < first || t.seq > last);
    if (fresh.length === 0) return updatePagers();
    const nodes = fresh.map(renderTurn);
    if (fresh[0].seq < first && last > 0) list.prepend(...nodes);
    else list.append(...nodes);
    first = Math.min(first, fresh[0].seq);
    last = Math.max(last, fresh[fresh.length - 1].seq);
    updatePagers();
    if (state?.focusSeq) document.getElementById(`turn-${state.focusSeq}`)?.scrollIntoView({ block: 'center' });
  } else if (msg.type === 'error') {
    loading = false;
    app.append(el('p', { className: 'error', text: msg.message }));
  }
});

post({ type: 'ready' });
