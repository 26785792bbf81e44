// Inherited-context preview: the exact block a new child of a session would receive now, by
// section, with its size, the settings that shaped it, and a copy button.

import type { FromWebview, ToWebview } from '../src/vscode/protocol';
import { el, icon } from './dom';

declare function acquireVsCodeApi(): { postMessage(msg: FromWebview): void; setState(s: unknown): void; getState(): unknown };

const vscode = acquireVsCodeApi();
const app = document.getElementById('app')!;

function part(title: string, iconName: string, body: Node): HTMLElement {
  return el('section', { className: 'part' }, [el('h2', {}, [icon(iconName), el('span', { text: title })]), body]);
}

window.addEventListener('message', (event: MessageEvent<ToWebview>) => {
  const msg = event.data;
  if (msg.type === 'error') {
    app.append(el('p', { className: 'error', text: msg.message }));
    return;
  }
  if (msg.type !== 'inherited') return;
  vscode.setState(msg.state);
  const v = msg.view;
  app.textContent = '';
  app.setAttribute('aria-busy', 'false');
  const copy = el('button', { title: 'Copy the block' }, [icon('copy'), el('span', { text: 'Copy' })]);
  copy.addEventListener('click', () => vscode.postMessage({ type: 'copy', text: v.block }));
  const header = el('header', { className: 'bar' }, [icon('references'), el('h1', { text: msg.title, title: msg.title }), copy]);
  if (v.empty) copy.setAttribute('disabled', 'true');
  const stats = el('p', {
    className: 'muted meta',
    text: v.empty
      ? 'Nothing to inherit yet: the block is omitted until the session has a transcript or a checkpoint.'
      : `${v.chars.toLocaleString()} characters · about ${v.estimatedTokens.toLocaleString()} tokens · inherit ${v.settings.inheritContext ? 'on' : 'off'} · tail ${v.settings.tailChars} characters · parent updated ${new Date(v.parentUpdatedAt).toLocaleString()}`,
  });
  app.append(header, stats);
  if (v.sections) {
    app.append(part('Header', 'symbol-namespace', el('pre', { className: 'block', text: v.sections.header })));
    if (v.sections.checkpoint) app.append(part('Checkpoint summary', 'milestone', el('pre', { className: 'block', text: v.sections.checkpoint })));
    if (v.sections.recentContext) app.append(part('Recent context', 'history', el('pre', { className: 'block', text: v.sections.recentContext })));
    if (v.sections.focalEntities.length)
      app.append(
        part(
          'Focal entities',
          'symbol-class',
          el(
            'div',
            { className: 'chips' },
            v.sections.focalEntities.map((e) => el('span', { className: 'chip', text: e })),
          ),
        ),
      );
    if (v.sections.constraints.length)
      app.append(
        part(
          'Active constraints',
          'law',
          el(
            'ul',
            {},
            v.sections.constraints.map((c) => el('li', { text: c })),
          ),
        ),
      );
  }
  if (!v.empty) app.append(part('The exact block', 'file-text', el('pre', { className: 'block', text: v.block })));
});

vscode.postMessage({ type: 'ready' });
