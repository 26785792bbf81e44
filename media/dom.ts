// Small DOM helpers for Baton's webviews. Text is always inserted as text (textContent), never HTML.

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: { className?: string; text?: string; title?: string } = {},
  children: Node[] = [],
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (props.className) node.className = props.className;
  if (props.text !== undefined) node.textContent = props.text;
  if (props.title) node.title = props.title;
  for (const child of children) node.appendChild(child);
  return node;
}

export function icon(name: string): HTMLElement {
  return el('span', { className: `codicon codicon-${name}` });
}

/** Text with the given words wrapped in <mark>, built from text nodes only. */
export function highlighted(text: string, words: string[]): DocumentFragment {
  const fragment = document.createDocumentFragment();
  const terms = words.filter((w) => w.length > 0).map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  if (terms.length === 0) {
    fragment.appendChild(document.createTextNode(text));
    return fragment;
  }
  const re = new RegExp(`(${terms.join('|')})`, 'giu');
  let last = 0;
  for (const m of text.matchAll(re)) {
    const at = m.index ?? 0;
    if (at > last) fragment.appendChild(document.createTextNode(text.slice(last, at)));
    fragment.appendChild(el('mark', { text: m[0] }));
    last = at + m[0].length;
  }
  if (last < text.length) fragment.appendChild(document.createTextNode(text.slice(last)));
  return fragment;
}
