// What a session is told at its start of the memories earlier sessions left (docs/memory.md, "At
// session start"): one line per memory under one heading, within a budget of its own. Pure: the
// store picks and ledgers the memories this chooses, the server and the harness mappings only pass
// the text on.

import { redactSecrets } from './redact';

export const MEMORIES_HEADING = '## Memories from earlier sessions';

export interface StartMemoryBudget {
  /** Estimated tokens (characters / 4) of the whole section, heading included. */
  maxTokens: number;
  /** At most this many memories. */
  maxMemories: number;
}

export const DEFAULT_START_MEMORY_BUDGET: StartMemoryBudget = { maxTokens: 600, maxMemories: 8 };

/** A long memory is cut to this on its line, so that one memory never takes the whole budget. */
export const START_MEMORY_LINE_CHARS = 280;

export interface StartMemoryCandidate {
  content: string;
  type: string | null;
  createdAt: string;
}

/** `- [type] content (date)`, one line, secrets redacted, cut on a word boundary. */
export function startMemoryLine(m: StartMemoryCandidate): string {
  let text = redactSecrets(m.content).replace(/\s+/g, ' ').trim();
  if (text.length > START_MEMORY_LINE_CHARS) {
    const cut = text.slice(0, START_MEMORY_LINE_CHARS);
    text = cut.slice(0, Math.max(cut.lastIndexOf(' '), START_MEMORY_LINE_CHARS - 20)) + '…';
  }
  return `- ${m.type ? `[${m.type}] ` : ''}${text}${m.createdAt ? ` (${m.createdAt.slice(0, 10)})` : ''}`;
}

/**
 * The memories (already ranked, best first) that fit the budget, in that order, and the section
 * that shows them ('' for none). A line that does not fit is left out and the next one tried.
 */
export function fitStartMemories<T extends StartMemoryCandidate>(ranked: T[], budget: StartMemoryBudget): { chosen: T[]; text: string } {
  const maxChars = budget.maxTokens * 4;
  const lines = [MEMORIES_HEADING];
  let chars = MEMORIES_HEADING.length;
  const chosen: T[] = [];
  for (const m of ranked) {
    if (chosen.length >= budget.maxMemories) break;
    const line = startMemoryLine(m);
    if (chars + 1 + line.length > maxChars) continue;
    lines.push(line);
    chars += 1 + line.length;
    chosen.push(m);
  }
  return { chosen, text: chosen.length ? lines.join('\n') : '' };
}

/** The memory section of a session-start `inject` (always its last part), or '' when it has none. */
export function memorySectionOf(inject: string): string {
  if (inject.startsWith(MEMORIES_HEADING + '\n')) return inject;
  const at = inject.lastIndexOf(`\n\n${MEMORIES_HEADING}\n`);
  return at < 0 ? '' : inject.slice(at + 2);
}
