// Which of a parent's rules the inherited block carries when they do not all fit (docs/inheritance.md,
// "Budget"). Rules come first in the block but within a budget of their own, most important first,
// and the rest are named by count with the command that lists them all: a prompt stating thousands
// of rules once gave every child tens of thousands of tokens against a budget of two thousand.

/** Where a rule came from, in the order the block takes them. */
export type ConstraintSource = 'hand' | 'user' | 'agent' | 'entity';

/**
 * The order of sources: rules added by hand (`baton constraints add`, the API, the MCP tool: the
 * user said so explicitly), then rules the user stated in the session, then rules the agent stated,
 * then rules of the session's focal entities recorded by other sessions.
 */
const SOURCE_ORDER: Record<ConstraintSource, number> = { hand: 0, user: 1, agent: 2, entity: 3 };

export interface RankedConstraint {
  source?: ConstraintSource;
  /** The rule's importance (0..1): higher first within a source. */
  importance?: number;
  /** Larger is newer (when the rule was recorded, in ms): newer first among equals; equals keep their given order. */
  recency?: number;
}

/** The command that lists every active rule, named by the block when it leaves rules out (src/cli/ruleCommands.ts). */
export const LIST_CONSTRAINTS_COMMAND = 'baton constraints list';

/**
 * The rules in the order the block takes them: by source (SOURCE_ORDER), then importance, then
 * newest first. Rules without a source keep their given order, after the others.
 */
export function orderConstraints<T extends RankedConstraint>(constraints: T[]): T[] {
  const rank = (c: T) => (c.source ? SOURCE_ORDER[c.source] : Object.keys(SOURCE_ORDER).length);
  return constraints
    .map((c, i) => ({ c, i }))
    .sort((a, b) => rank(a.c) - rank(b.c) || (b.c.importance ?? 0) - (a.c.importance ?? 0) || (b.c.recency ?? 0) - (a.c.recency ?? 0) || a.i - b.i)
    .map(({ c }) => c);
}

/** The line that stands for the rules left out. */
export function moreConstraintsLine(count: number): string {
  return `  ${count} more: \`${LIST_CONSTRAINTS_COMMAND}\``;
}

/**
 * The block's rules section within `maxChars`: `Active constraints:`, the rules in the given order
 * as long as they fit (the first that does not ends the list, so a later rule never displaces an
 * earlier one), then the "N more" line when any were left out. Empty without rules.
 */
export function fitConstraints(rules: string[], maxChars: number): { lines: string[]; kept: number; omitted: number } {
  if (rules.length === 0) return { lines: [], kept: 0, omitted: 0 };
  const heading = 'Active constraints:';
  const lines = [heading, ...rules.map((r) => `  - ${r}`)];
  if (lines.join('\n').length <= maxChars) return { lines, kept: rules.length, omitted: 0 };
  // Room for the "N more" line, at its longest (every rule left out).
  let used = heading.length + 1 + moreConstraintsLine(rules.length).length;
  let kept = 0;
  while (kept < rules.length && used + lines[kept + 1].length + 1 <= maxChars) used += lines[++kept].length + 1;
  return { lines: [...lines.slice(0, kept + 1), moreConstraintsLine(rules.length - kept)], kept, omitted: rules.length - kept };
}
