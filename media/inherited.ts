// Inherited-context preview: the exact block a new child of a session would receive now, by
// section, with its size, the settings that shaped it, and a copy button. A picker chooses the
// kind of child (a configured agent type, the default, or one profile): the host answers with that
// child's block. Each constraint says where it came from; the budget line says what was cut.

import { INHERIT_PROFILES } from '../src/core/inheritProfiles';
import type { FromWebview, InheritedState, ToWebview } from '../src/vscode/protocol';
import { el, icon } from './dom';

declare function acquireVsCodeApi(): { postMessage(msg: FromWebview): void; setState(s: unknown): void; getState(): unknown };

const vscode = acquireVsCodeApi();
const app = document.getElementById('app')!;

function part(title: string, iconName: string, body: Node): HTMLElement {
  return el('section', { className: 'part' }, [el('h2', {}, [icon(iconName), el('span', { text: title })]), body]);
}

type View = Extract<ToWebview, { type: 'inherited' }>['view'];

/** The picker's value for a state: "" (default), "type:NAME" or "profile:NAME". */
function pickerValue(state: InheritedState): string {
  if (state.profile) return `profile:${state.profile}`;
  if (state.agentType) return `type:${state.agentType}`;
  return '';
}

/** The agent-type picker: the default, each configured agent type with its profile, then each profile. */
function picker(v: View, state: InheritedState): HTMLSelectElement {
  const select = el('select', { title: 'Preview the block for this kind of sub-agent' });
  select.setAttribute('aria-label', 'Preview for');
  const add = (value: string, label: string, group: HTMLElement | HTMLSelectElement = select) => {
    const option = el('option', { text: label });
    option.value = value;
    group.append(option);
  };
  add('', `default (${v.profiles.defaultProfile})`);
  const types = el('optgroup');
  types.setAttribute('label', 'Agent types');
  const byType = v.profiles.byAgentType;
  const names = Object.keys(byType).sort((a, b) => a.localeCompare(b));
  if (state.agentType && !names.some((n) => n.toLowerCase() === state.agentType!.toLowerCase())) names.push(state.agentType);
  for (const name of names) add(`type:${name}`, byType[name] ? `${name} → ${byType[name]}` : `${name} (no rule: default)`, types);
  if (names.length) select.append(types);
  const profiles = el('optgroup');
  profiles.setAttribute('label', 'Profiles');
  for (const p of INHERIT_PROFILES) add(`profile:${p}`, `profile: ${p}`, profiles);
  select.append(profiles);
  select.value = pickerValue(state);
  select.addEventListener('change', () => previewFor(select, taskInput(state)));
  return select;
}

/** The picker's child with the task typed, if any: the host renders the block for it. */
function previewFor(select: HTMLSelectElement, task: HTMLInputElement): void {
  const [kind, ...rest] = select.value.split(':');
  const name = rest.join(':');
  const child = kind === 'type' ? { agentType: name } : kind === 'profile' ? { profile: name as (typeof INHERIT_PROFILES)[number] } : {};
  select.setAttribute('disabled', 'true');
  app.setAttribute('aria-busy', 'true');
  vscode.postMessage({ type: 'previewFor', child: { ...child, ...(task.value.trim() ? { task: task.value.trim() } : {}) } });
}

let taskField: HTMLInputElement | null = null;

/** The task of the child to preview for (the parent's turns are then chosen for it); one field per render. */
function taskInput(state: InheritedState): HTMLInputElement {
  if (taskField) return taskField;
  const input = el('input', { title: 'The parent turns are chosen for this task (empty: the newest turns)' });
  input.type = 'text';
  input.maxLength = 2000;
  input.placeholder = 'Task of the child (optional)';
  input.setAttribute('aria-label', 'Task of the child');
  input.value = state.task ?? '';
  taskField = input;
  return input;
}

function budgetLine(v: View): string {
  if (!v.budget) return v.profile.name === 'none' ? 'Budget: none (this profile inherits nothing)' : 'Budget: —';
  const cut = v.budget.cut.length ? `cut: ${v.budget.cut.join(', ')}` : 'nothing cut';
  return `Budget: ~${v.budget.usedTokens.toLocaleString()} of ${v.budget.maxTokens.toLocaleString()} tokens (${cut})`;
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
  const profile = el('p', {
    className: 'muted meta profile',
    text: `Profile ${v.profile.name} · chosen by ${v.profile.reason} · budget ${v.profile.maxTokens.toLocaleString()} tokens`,
  });
  taskField = null;
  const select = picker(v, msg.state);
  const task = taskInput(msg.state);
  task.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') previewFor(select, task);
  });
  const choose = el('div', { className: 'picker' }, [el('label', { text: 'Preview for' }), select, task, profile]);
  const budget = el('p', { className: `budget${v.budget?.cut.length ? ' cut' : ''}`, text: budgetLine(v) });
  app.append(header, stats, choose, budget);
  if (v.sections) {
    app.append(part('Header', 'symbol-namespace', el('pre', { className: 'block', text: v.sections.header })));
    // In the block's order: the rules right after the header, each with where it came from
    // ("user, turn 12", "added by hand"); a rule without a known origin is listed plainly.
    const origins = v.constraintOrigins.length ? v.constraintOrigins : v.sections.constraints.map((text) => ({ text, origin: '' }));
    if (origins.length)
      app.append(
        part(
          'Active constraints',
          'law',
          el(
            'ul',
            { className: 'constraints' },
            origins.map((c) => el('li', {}, [el('span', { text: c.text }), ...(c.origin ? [el('span', { className: 'origin', text: c.origin })] : [])])),
          ),
        ),
      );
    if (v.sections.checkpoint) app.append(part('Checkpoint summary', 'milestone', el('pre', { className: 'block', text: v.sections.checkpoint })));
    if (v.sections.recentContext)
      app.append(
        part(
          v.selection ? 'Relevant and recent context (for the task)' : 'Recent context',
          'history',
          el('pre', { className: 'block', text: v.sections.recentContext }),
        ),
      );
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
  }
  if (!v.empty) app.append(part('The exact block', 'file-text', el('pre', { className: 'block', text: v.block })));
  // What was drawn, read back from the page: the host publishes it (Panels.onDidRenderInherited) and the extension-host tests check it.
  vscode.postMessage({
    type: 'rendered',
    profile: v.profile.name,
    selected: select.value,
    options: Array.from(select.options).map((o) => o.text),
    origins: Array.from(app.querySelectorAll('ul.constraints .origin')).map((n) => n.textContent ?? ''),
    budget: budget.textContent ?? '',
  });
});

vscode.postMessage({ type: 'ready' });
