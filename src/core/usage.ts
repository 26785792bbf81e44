// The usage of one model request as a harness's transcript reports it: what a parser puts on the
// turn the request produced (docs/harnesses.md, "Spend"). Pure and dependency-free: the parsers and
// the hook command's bundle carry it; sums and prices live in spend.ts.

/**
 * The usage of one model request, carried by the turn it produced. `key` names the request within
 * its session (Claude Code's message id, Codex's running total…): a transcript read again, or a
 * request split over several lines, is counted once.
 */
export interface TurnUsage {
  key: string;
  /** The model as the harness names it; null when the transcript does not say. */
  model: string | null;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** The cost in USD when the harness reports it (OpenCode); null: estimate it from the price table. */
  costUsd: number | null;
  /** When the request was recorded, for a usage recorded apart from its turn (else the turn's time). */
  at?: string;
}

/** More tokens than any one request could use: a count past it is not believed. */
const MAX_REQUEST_TOKENS = 1e12;

/** Non-negative whole token counts from a harness's number-or-anything field (anything else, or absurdly large, is 0). */
export function tokenCount(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 && value < MAX_REQUEST_TOKENS ? Math.round(value) : 0;
}
