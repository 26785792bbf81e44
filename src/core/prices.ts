// The price table: USD per million tokens of each kind, by model, shipped as data and overridable
// in DIR/config.json (`prices`, docs/storage.md "Spend"). It prices only what a harness did not
// report a cost for (core/spend.ts); a model it does not know keeps its tokens and gets no price.

import { z } from 'zod';

export const modelPriceSchema = z
  .object({
    input: z.number().min(0).max(10_000),
    output: z.number().min(0).max(10_000),
    cacheRead: z.number().min(0).max(10_000),
    cacheWrite: z.number().min(0).max(10_000),
  })
  .strict();

/** USD per million tokens. cacheWrite: Anthropic's 5-minute cache write; OpenAI charges none. */
export type ModelPrice = z.infer<typeof modelPriceSchema>;

/** Model name (without its date) → price. */
export type PriceTable = Record<string, ModelPrice>;

/** When the figures below were taken, and from where. */
export const PRICES_AS_OF = '2025-11';
export const PRICE_SOURCES = ['https://docs.anthropic.com/en/docs/about-claude/pricing', 'https://openai.com/api/pricing/'] as const;

const p = (input: number, output: number, cacheRead: number, cacheWrite: number): ModelPrice => ({ input, output, cacheRead, cacheWrite });

export const DEFAULT_PRICES: PriceTable = {
  // Anthropic (list prices; cache write = 1.25 × input, cache read = 0.1 × input)
  'claude-opus-4-5': p(5, 25, 0.5, 6.25),
  'claude-opus-4-1': p(15, 75, 1.5, 18.75),
  'claude-opus-4-0': p(15, 75, 1.5, 18.75),
  'claude-opus-4': p(15, 75, 1.5, 18.75),
  'claude-sonnet-4-5': p(3, 15, 0.3, 3.75),
  'claude-sonnet-4-0': p(3, 15, 0.3, 3.75),
  'claude-sonnet-4': p(3, 15, 0.3, 3.75),
  'claude-3-7-sonnet': p(3, 15, 0.3, 3.75),
  'claude-3-5-sonnet': p(3, 15, 0.3, 3.75),
  'claude-haiku-4-5': p(1, 5, 0.1, 1.25),
  'claude-3-5-haiku': p(0.8, 4, 0.08, 1),
  'claude-3-haiku': p(0.25, 1.25, 0.03, 0.3),
  // OpenAI (cached input is the cache read; no charge to write the cache)
  'gpt-5.1-codex-mini': p(0.25, 2, 0.025, 0),
  'gpt-5.1-codex': p(1.25, 10, 0.125, 0),
  'gpt-5.1': p(1.25, 10, 0.125, 0),
  'gpt-5-codex': p(1.25, 10, 0.125, 0),
  'gpt-5-mini': p(0.25, 2, 0.025, 0),
  'gpt-5-nano': p(0.05, 0.4, 0.005, 0),
  'gpt-5': p(1.25, 10, 0.125, 0),
  'gpt-4.1-mini': p(0.4, 1.6, 0.1, 0),
  'gpt-4.1-nano': p(0.1, 0.4, 0.025, 0),
  'gpt-4.1': p(2, 8, 0.5, 0),
  'gpt-4o-mini': p(0.15, 0.6, 0.075, 0),
  'gpt-4o': p(2.5, 10, 1.25, 0),
  'o4-mini': p(1.1, 4.4, 0.275, 0),
  o3: p(2, 8, 0.5, 0),
  'codex-mini-latest': p(1.5, 6, 0.375, 0),
};

/** The defaults with a configuration's prices over them (a configured prefix wins over a default one of the same name). */
export function mergePrices(overrides: PriceTable | undefined): PriceTable {
  return overrides ? { ...DEFAULT_PRICES, ...overrides } : DEFAULT_PRICES;
}

/** What may follow a table's name in a model's: nothing, a date, `-latest` or a provider's version tag. */
const VERSION_SUFFIX = /^(?:-\d{8}|-\d{4}-\d{2}-\d{2}|-latest|[@:].*)?$/;

/**
 * The price of a model, or null. Matched case-insensitively on the name without a provider prefix
 * (`anthropic/claude-sonnet-4-5` is `claude-sonnet-4-5`): the table's name followed by nothing or
 * a version (a date, `-latest`), so `claude-opus-4-20250514` is Opus 4, while `gpt-5-mini` is not
 * `gpt-5` and a newer model (`claude-opus-4-6`) is unknown rather than priced as an older one.
 */
export function priceOf(table: PriceTable, model: string): ModelPrice | null {
  // Every session listed is priced: each table answers each model name once.
  let known = pricesFound.get(table);
  if (!known) pricesFound.set(table, (known = new Map()));
  let price = known.get(model);
  if (price === undefined) {
    price = lookUp(table, model);
    if (known.size < 10_000) known.set(model, price);
  }
  return price;
}

const pricesFound = new WeakMap<PriceTable, Map<string, ModelPrice | null>>();

function lookUp(table: PriceTable, model: string): ModelPrice | null {
  const name = model.toLowerCase().slice(model.lastIndexOf('/') + 1);
  let best: string | null = null;
  for (const prefix of Object.keys(table)) {
    const lower = prefix.toLowerCase();
    if (!name.startsWith(lower) || !VERSION_SUFFIX.test(name.slice(lower.length))) continue;
    if (best === null || lower.length > best.length) best = lower;
  }
  if (best === null) return null;
  return Object.entries(table).find(([k]) => k.toLowerCase() === best)![1];
}
