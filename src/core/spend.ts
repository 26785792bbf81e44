// What a session spent: the model and tokens of each request as its harness's transcript reports
// them, summed per session (its own and rolled up over its descendants) and priced
// (docs/storage.md, "Spend"; docs/harnesses.md, "Spend"). Pure: the store keeps the sums, the
// price table (prices.ts) turns tokens into dollars when the harness reported no cost.

import { z } from 'zod';
import { priceOf, type PriceTable } from './prices';
import type { TurnUsage } from './usage';

export type { TurnUsage } from './usage';
export { tokenCount } from './usage';

/** The stored sums of one model's requests (short keys: a row holds one per model, per session). */
export interface ModelTally {
  /** Requests counted. */
  n: number;
  in: number;
  out: number;
  cr: number;
  cw: number;
  /** Reported cost of the requests that had one, and how many had one. */
  cost: number;
  costed: number;
  /** Tokens of the requests without a reported cost (the ones the price table estimates). */
  uin: number;
  uout: number;
  ucr: number;
  ucw: number;
}

/** Per model ('' when the transcript names none); stored as JSON in sessions.spend_own / spend_total. */
export type SpendTally = Record<string, ModelTally>;

const EMPTY: ModelTally = { n: 0, in: 0, out: 0, cr: 0, cw: 0, cost: 0, costed: 0, uin: 0, uout: 0, ucr: 0, ucw: 0 };

/** A tally of one request. */
export function tallyOf(usage: TurnUsage): SpendTally {
  const reported = usage.costUsd !== null;
  return {
    [usage.model ?? '']: {
      n: 1,
      in: usage.inputTokens,
      out: usage.outputTokens,
      cr: usage.cacheReadTokens,
      cw: usage.cacheWriteTokens,
      cost: usage.costUsd ?? 0,
      costed: reported ? 1 : 0,
      uin: reported ? 0 : usage.inputTokens,
      uout: reported ? 0 : usage.outputTokens,
      ucr: reported ? 0 : usage.cacheReadTokens,
      ucw: reported ? 0 : usage.cacheWriteTokens,
    },
  };
}

/** a + sign·b, per model; models left with no request are dropped, an empty tally is null. */
export function addTally(a: SpendTally | null, b: SpendTally | null, sign: 1 | -1 = 1): SpendTally | null {
  if (!b) return a;
  const sum: SpendTally = { ...(a ?? {}) };
  for (const [model, t] of Object.entries(b)) {
    const base = sum[model] ?? EMPTY;
    const next = {} as ModelTally;
    for (const field of Object.keys(EMPTY) as Array<keyof ModelTally>) next[field] = base[field] + sign * t[field];
    // Reported costs are floats: a subtraction that leaves a rounding crumb leaves nothing.
    if (next.costed === 0) next.cost = 0;
    if (next.n > 0) sum[model] = next;
    else delete sum[model];
  }
  return Object.keys(sum).length > 0 ? sum : null;
}

export function parseTally(json: string | null): SpendTally | null {
  if (!json) return null;
  try {
    const parsed = JSON.parse(json) as SpendTally;
    return parsed && typeof parsed === 'object' && Object.keys(parsed).length > 0 ? parsed : null;
  } catch {
    return null;
  }
}

/** How a cost was found: the harness reported it, or the price table estimated (part of) it. */
export type CostBasis = 'reported' | 'estimated';

const tokenFields = {
  inputTokens: z.number(),
  outputTokens: z.number(),
  cacheReadTokens: z.number(),
  cacheWriteTokens: z.number(),
  /** USD; null when no price is known for the tokens the harness gave no cost for. */
  costUsd: z.number().nullable(),
  costBasis: z.enum(['reported', 'estimated']).nullable(),
};

export const modelSpendSchema = z.object({
  /** null: the transcript did not name the model. */
  model: z.string().nullable(),
  requests: z.number(),
  ...tokenFields,
});

export const spendSchema = z.object({
  /** The models used, most tokens first. */
  models: z.array(z.string()),
  requests: z.number(),
  ...tokenFields,
  /** False when some tokens had neither a reported cost nor a price: costUsd covers the rest only. */
  costComplete: z.boolean(),
  byModel: z.array(modelSpendSchema),
});

/** A session's spend: its own requests, and its own plus every descendant's. null: not reported (never zero). */
export const sessionSpendSchema = z.object({ own: spendSchema.nullable(), total: spendSchema.nullable() });

export type ModelSpend = z.infer<typeof modelSpendSchema>;
export type Spend = z.infer<typeof spendSchema>;
export type SessionSpend = z.infer<typeof sessionSpendSchema>;

const round = (usd: number) => Math.round(usd * 1e6) / 1e6;

function modelSpend(model: string, t: ModelTally, prices: PriceTable): ModelSpend {
  const estimable = t.costed < t.n;
  const price = estimable ? priceOf(prices, model) : null;
  let costUsd: number | null = t.costed > 0 ? t.cost : null;
  let costBasis: CostBasis | null = t.costed > 0 ? 'reported' : null;
  if (estimable) {
    if (price) {
      const estimate = (t.uin * price.input + t.uout * price.output + t.ucr * price.cacheRead + t.ucw * price.cacheWrite) / 1_000_000;
      costUsd = (costUsd ?? 0) + estimate;
      costBasis = 'estimated';
    } else {
      // Some requests have no cost and no price: what is known is not the whole cost.
      costUsd = null;
      costBasis = null;
    }
  }
  return {
    model: model === '' ? null : model,
    requests: t.n,
    inputTokens: t.in,
    outputTokens: t.out,
    cacheReadTokens: t.cr,
    cacheWriteTokens: t.cw,
    costUsd: costUsd === null ? null : round(costUsd),
    costBasis,
  };
}

/** A tally as the API answers it, priced with `prices` where the harness reported no cost. */
export function spendOf(tally: SpendTally | null, prices: PriceTable): Spend | null {
  if (!tally) return null;
  const byModel = Object.entries(tally)
    .map(([model, t]) => modelSpend(model, t, prices))
    .sort((a, b) => totalTokens(b) - totalTokens(a) || (a.model ?? '').localeCompare(b.model ?? ''));
  const sum = (f: (m: ModelSpend) => number) => byModel.reduce((acc, m) => acc + f(m), 0);
  const priced = byModel.filter((m) => m.costUsd !== null);
  return {
    models: byModel.flatMap((m) => (m.model ? [m.model] : [])),
    requests: sum((m) => m.requests),
    inputTokens: sum((m) => m.inputTokens),
    outputTokens: sum((m) => m.outputTokens),
    cacheReadTokens: sum((m) => m.cacheReadTokens),
    cacheWriteTokens: sum((m) => m.cacheWriteTokens),
    costUsd: priced.length > 0 ? round(priced.reduce((acc, m) => acc + m.costUsd!, 0)) : null,
    costBasis: priced.length === 0 ? null : priced.some((m) => m.costBasis === 'estimated') ? 'estimated' : 'reported',
    costComplete: priced.length === byModel.length,
    byModel,
  };
}

export function totalTokens(s: Pick<Spend, 'inputTokens' | 'outputTokens' | 'cacheReadTokens' | 'cacheWriteTokens'>): number {
  return s.inputTokens + s.outputTokens + s.cacheReadTokens + s.cacheWriteTokens;
}

/** The session's stored tallies as its record's `spend`. */
export function sessionSpendOf(own: SpendTally | null, total: SpendTally | null, prices: PriceTable): SessionSpend {
  return { own: spendOf(own, prices), total: spendOf(total, prices) };
}

/**
 * A spend priced with another table (the configured one; the store prices with the shipped one).
 * A model whose cost was reported keeps it; the others are priced again from their tokens (a
 * harness reports the cost of all its requests or of none, so their tokens are all unreported).
 */
export function repriceSpend(spend: Spend | null, prices: PriceTable): Spend | null {
  if (!spend) return null;
  const tally: SpendTally = {};
  for (const m of spend.byModel) {
    const reported = m.costBasis === 'reported';
    const t = { n: m.requests, in: m.inputTokens, out: m.outputTokens, cr: m.cacheReadTokens, cw: m.cacheWriteTokens };
    tally[m.model ?? ''] = reported
      ? { ...t, cost: m.costUsd ?? 0, costed: m.requests, uin: 0, uout: 0, ucr: 0, ucw: 0 }
      : { ...t, cost: 0, costed: 0, uin: t.in, uout: t.out, ucr: t.cr, ucw: t.cw };
  }
  return spendOf(tally, prices);
}

export function repriceSessionSpend(spend: SessionSpend, prices: PriceTable): SessionSpend {
  return { own: repriceSpend(spend.own, prices), total: repriceSpend(spend.total, prices) };
}

/** 1234 → "1.2k", 2500000 → "2.5M". */
export function compactCount(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(n < 10_000_000 ? 1 : 0)}M`;
}

/** A dollar amount as a person reads it: cents for most, more digits below a cent. */
export function usd(amount: number): string {
  return amount >= 0.01 || amount === 0 ? `$${amount.toFixed(2)}` : `$${amount.toPrecision(2)}`;
}

/** One line of a spend: "claude-sonnet-4-5 · 12k tokens · $0.12 estimated", or "spend not reported". */
export function spendLine(spend: Spend | null): string {
  if (!spend) return 'spend not reported';
  const models =
    spend.models.length > 2 ? `${spend.models.slice(0, 2).join(', ')} +${spend.models.length - 2}` : spend.models.join(', ') || 'model not reported';
  const cost =
    spend.costUsd === null
      ? 'no price'
      : `${usd(spend.costUsd)}${spend.costBasis === 'estimated' ? ' estimated' : ''}${spend.costComplete ? '' : ' (part priced)'}`;
  return `${models} · ${compactCount(totalTokens(spend))} tokens · ${cost}`;
}
