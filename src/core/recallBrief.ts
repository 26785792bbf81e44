// The text a recall answers with (docs/memory.md, "Recall"): either one line per memory, or, for an
// aggregate recall, one brief that groups the memories by type and stops at a character budget.
// Thin harness hooks inject this text as is, so they never rank or format memories themselves.

export type AggregateBudget = 'small' | 'medium' | 'large';

/** Characters per budget; estimated tokens are characters / 4. */
export const AGGREGATE_BUDGETS: Record<AggregateBudget, number> = { small: 1200, medium: 3200, large: 8000 };

export interface BriefMemory {
  content: string;
  type: string | null;
  createdAt: string;
}

export interface AggregateBrief {
  budget: AggregateBudget;
  maxChars: number;
  chars: number;
  estimatedTokens: number;
  /** Memories in the brief, and those left out for the budget. */
  included: number;
  omitted: number;
  text: string;
}

/** Types in the order a reader needs them: rules before choices before background. */
const TYPE_ORDER = ['constraint', 'decision', 'preference', 'fact', 'open-question'];
const TYPE_TITLES: Record<string, string> = {
  constraint: 'Constraints',
  decision: 'Decisions',
  preference: 'Preferences',
  fact: 'Facts',
  'open-question': 'Open questions',
};

function line(m: BriefMemory): string {
  return `- ${m.content.replace(/\s+/g, ' ').trim()}${m.createdAt ? ` (${m.createdAt.slice(0, 10)})` : ''}`;
}

export function recallList(memories: BriefMemory[]): string {
  return memories.length === 0 ? 'No matching memories found.' : ['Relevant memories:', ...memories.map(line)].join('\n');
}

/** The memories (already ranked) grouped by type, best first within a group, cut at the budget. */
export function aggregateBrief(query: string, memories: BriefMemory[], budget: AggregateBudget): AggregateBrief {
  const maxChars = AGGREGATE_BUDGETS[budget];
  const groups = new Map<string, BriefMemory[]>();
  for (const m of memories) {
    const type = m.type ?? 'note';
    groups.set(type, [...(groups.get(type) ?? []), m]);
  }
  const rank = (type: string) => (TYPE_ORDER.includes(type) ? TYPE_ORDER.indexOf(type) : TYPE_ORDER.length);
  const types = [...groups.keys()].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  const lines = [`Memory brief for "${query.replace(/\s+/g, ' ').trim().slice(0, 200)}":`];
  let chars = lines[0].length;
  let included = 0;
  for (const type of types) {
    const title = `${TYPE_TITLES[type] ?? type[0].toUpperCase() + type.slice(1)}:`;
    let titled = false;
    for (const m of groups.get(type)!) {
      const entry = line(m);
      const cost = entry.length + 1 + (titled ? 0 : title.length + 1);
      if (chars + cost > maxChars) continue;
      if (!titled) lines.push(title);
      titled = true;
      lines.push(entry);
      chars += cost;
      included++;
    }
  }
  const text = included ? lines.join('\n') : 'No matching memories found.';
  return { budget, maxChars, chars: text.length, estimatedTokens: Math.ceil(text.length / 4), included, omitted: memories.length - included, text };
}
