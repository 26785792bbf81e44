// A session's title when the harness gives none: its first user prompt, cut to one short line.
// Without it the tree shows bare session keys and the inherited block names the parent "active
// session" (docs/architecture.md, sessions). Harness markup (<command-name>…</command-name>,
// <system-reminder>…) is not a prompt, so it is dropped first.

import { taskBehindContext } from './handedContext';
import type { Role } from './types';

export const TITLE_MAX_CHARS = 60;

/** `text` as a title: markup removed, whitespace folded, cut at a word to at most `max` chars. */
export function titleFromPrompt(text: string, max = TITLE_MAX_CHARS): string | null {
  // A sub-agent's first prompt may start with what it was handed: its task is what names it.
  const task = taskBehindContext(text);
  if (task === undefined) return null;
  text = task;
  const plain = text
    .replace(/<([a-z][\w-]*)[^>]*>[\s\S]*?<\/\1>/gi, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (!plain) return null;
  if (plain.length <= max) return plain;
  const cut = plain.slice(0, max - 1);
  const atWord = cut.lastIndexOf(' ');
  return `${(atWord >= max / 2 ? cut.slice(0, atWord) : cut).trimEnd()}…`;
}

/** The title of the first user turn that has one (null: none yet). */
export function titleFromTurns(turns: ReadonlyArray<{ role: Role; text: string }>): string | null {
  for (const turn of turns) {
    if (turn.role !== 'user') continue;
    const title = titleFromPrompt(turn.text);
    if (title) return title;
  }
  return null;
}
