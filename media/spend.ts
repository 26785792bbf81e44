// The Spend view: where a session tree's tokens went, by child (each child's whole subtree) and by
// model, as horizontal bars drawn with plain HTML and CSS, each section with the same figures in a
// real table for screen readers and copying. A child's name is a button (keyboard reachable) that
// opens that child's own Spend view. The host sends the rows ready to draw (core/spendFormat.ts).

import type { SpendRow } from '../src/core/spendFormat';
import type { FromWebview, ToWebview } from '../src/vscode/protocol';
import { el, icon } from './dom';

declare function acquireVsCodeApi(): { postMessage(msg: FromWebview): void; setState(s: unknown): void; getState(): unknown };

const vscode = acquireVsCodeApi();
const app = document.getElementById('app')!;

const percentText = (r: SpendRow) => (r.tokens === null ? '—' : `${(r.percent * 100).toFixed(r.percent < 0.1 ? 1 : 0)}%`);

/** What a screen reader says for a bar: its name, tokens, share of the tree and cost. */
function barLabel(r: SpendRow): string {
  if (r.tokens === null) return `${r.label}: not reported`;
  return [`${r.label}: ${r.tokensText}`, `${percentText(r)} of the tree`, r.costText].filter(Boolean).join(', ');
}

function name(r: SpendRow): HTMLElement {
  if (!r.sessionKey) return el('span', { className: 'name', text: r.label, title: r.detail });
  const open = el('button', { className: 'link name', text: r.label, title: `Show the spend of ${r.detail}` });
  open.addEventListener('click', () => vscode.postMessage({ type: 'openSpend', sessionKey: r.sessionKey! }));
  return open;
}

function bars(rows: SpendRow[], label: string): HTMLElement {
  const list = el('ul', { className: 'bars' });
  list.setAttribute('aria-label', label);
  for (const r of rows) {
    const fill = el('span', { className: 'fill' });
    // CSSOM, not a style attribute: the panel's Content-Security-Policy allows no inline styles.
    fill.style.width = `${(r.share * 100).toFixed(2)}%`;
    const track = el('span', { className: 'track' }, [fill]);
    track.setAttribute('aria-hidden', 'true');
    const item = el('li', { className: r.tokens === null ? 'bar unreported' : 'bar' }, [
      name(r),
      track,
      el('span', { className: 'value', text: r.tokens === null ? 'not reported' : [r.tokensText, r.costText].filter(Boolean).join(' · ') }),
    ]);
    item.setAttribute('aria-label', barLabel(r));
    list.append(item);
  }
  return list;
}

function table(rows: SpendRow[], caption: string, first: string): HTMLTableElement {
  const t = el('table', { className: 'figures' });
  t.append(el('caption', { text: caption }));
  const head = el('tr');
  for (const h of [first, 'Tokens', 'Share', 'Cost']) {
    const th = el('th', { text: h });
    th.setAttribute('scope', 'col');
    head.append(th);
  }
  t.append(el('thead', {}, [head]));
  const body = el('tbody');
  for (const r of rows) {
    const th = el('th', { text: r.label, title: r.detail });
    th.setAttribute('scope', 'row');
    body.append(
      el('tr', {}, [
        th,
        el('td', { className: 'num', text: r.tokens === null ? 'not reported' : r.tokens.toLocaleString('en-US') }),
        el('td', { className: 'num', text: percentText(r) }),
        el('td', { className: 'num', text: r.costText || '—' }),
      ]),
    );
  }
  t.append(body);
  return t;
}

function section(title: string, iconName: string, rows: SpendRow[], first: string, empty: string): HTMLElement {
  const heading = el('h2', {}, [icon(iconName), el('span', { text: title })]);
  const body = rows.length
    ? [bars(rows, `Tokens ${title.toLowerCase()}`), table(rows, `Tokens ${title.toLowerCase()}`, first)]
    : [el('p', { className: 'muted', text: empty })];
  return el('section', { className: 'part spend' }, [heading, ...body]);
}

window.addEventListener('message', (event: MessageEvent<ToWebview>) => {
  const msg = event.data;
  if (msg.type === 'error') {
    app.append(el('p', { className: 'error', text: msg.message }));
    return;
  }
  if (msg.type !== 'spend') return;
  vscode.setState(msg.state);
  const { breakdown, childCount, childrenShown } = msg.view;
  app.textContent = '';
  app.setAttribute('aria-busy', 'false');
  const header = el('header', { className: 'bar' }, [icon('graph'), el('h1', { text: msg.title, title: msg.title })]);
  const notes = [
    `Whole tree: ${breakdown.summary}`,
    breakdown.unreported ? `${breakdown.unreported} sub-agent${breakdown.unreported === 1 ? '' : 's'} reported no spend` : '',
    childrenShown < childCount ? `the ${childrenShown.toLocaleString('en-US')} newest of ${childCount.toLocaleString('en-US')} sub-agents listed` : '',
    '~ estimated from the price table, ≥ some models have no price',
  ].filter(Boolean);
  const summary = el('p', { className: 'muted meta', text: notes.join(' · ') });
  const sections = {
    'By sub-agent': section('By sub-agent', 'type-hierarchy-sub', breakdown.byChild, 'Session', 'No sub-agents.'),
    'By model': section('By model', 'symbol-method', breakdown.byModel, 'Model', 'No model reported its usage in this tree.'),
  };
  app.append(header, summary, ...Object.values(sections));
  // What was drawn, read back from the page: the host publishes it (Panels.onDidRenderSpend) and the extension-host tests check it.
  const read = (f: (s: HTMLElement) => string[]) => Object.fromEntries(Object.entries(sections).map(([title, s]) => [title, f(s)]));
  vscode.postMessage({
    type: 'spendRendered',
    summary: summary.textContent ?? '',
    bars: read((s) => Array.from(s.querySelectorAll('li.bar')).map((li) => li.getAttribute('aria-label') ?? '')),
    tables: read((s) =>
      Array.from(s.querySelectorAll('table.figures tbody tr')).map((tr) =>
        Array.from(tr.children)
          .map((c) => c.textContent ?? '')
          .join(' | '),
      ),
    ),
  });
});

vscode.postMessage({ type: 'ready' });
