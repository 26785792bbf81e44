// `baton spend` and GET /api/spend: what the sessions spent, in a window, by day, project, harness,
// model and session (docs/storage.md, "Spend"). The store sums the stored requests per group and
// model (store/spendQueries.ts); this prices the sums and orders them. Pure.

import { z } from 'zod';
import { addTally, compactCount, modelSpendSchema, spendOf, spendSchema, totalTokens, usd, type ModelTally, type Spend, type SpendTally } from './spend';
import { PRICES_AS_OF, type PriceTable } from './prices';

/** One group's sum for one model, as the store answers it. */
export interface SpendRow {
  group: string | null;
  model: string | null;
  tally: ModelTally;
}

/** A session's own requests in the window, per model, with what names it. */
export interface SessionSpendRows {
  key: string;
  agentId: string;
  title: string | null;
  harness: string;
  project: string | null;
  rows: Array<{ model: string | null; tally: ModelTally }>;
}

export interface SpendSums {
  byDay: SpendRow[];
  byProject: SpendRow[];
  byHarness: SpendRow[];
  sessions: SessionSpendRows[];
}

const nullableString = z.string().nullable();

export const spendReportSchema = z.object({
  /** The window: requests at or after `since` (ISO), of `project` when given. */
  since: nullableString,
  project: nullableString,
  /** Every request in the window; null when none reported usage. */
  total: spendSchema.nullable(),
  byDay: z.array(z.object({ day: z.string(), spend: spendSchema })),
  byProject: z.array(z.object({ project: nullableString, spend: spendSchema })),
  byHarness: z.array(z.object({ harness: z.string(), spend: spendSchema })),
  byModel: z.array(modelSpendSchema),
  /** The sessions that spent most in the window (their own requests), costliest first. */
  topSessions: z.array(
    z.object({ key: z.string(), agentId: z.string(), title: nullableString, harness: z.string(), project: nullableString, spend: spendSchema }),
  ),
  /** When the shipped price table's figures were taken (configured prices override it). */
  pricesAsOf: z.string(),
});

export type SpendReport = z.infer<typeof spendReportSchema>;

function tallyOfRows(rows: Array<{ model: string | null; tally: ModelTally }>): SpendTally | null {
  let sum: SpendTally | null = null;
  for (const row of rows) sum = addTally(sum, { [row.model ?? '']: row.tally });
  return sum;
}

/** Costliest first; spends without a price after the priced ones, by tokens. */
export function bySpend(a: Spend, b: Spend): number {
  if (a.costUsd !== null && b.costUsd !== null && a.costUsd !== b.costUsd) return b.costUsd - a.costUsd;
  if ((a.costUsd === null) !== (b.costUsd === null)) return a.costUsd === null ? 1 : -1;
  return totalTokens(b) - totalTokens(a);
}

function grouped(rows: SpendRow[], prices: PriceTable): Array<{ group: string | null; spend: Spend }> {
  const groups = new Map<string | null, SpendRow[]>();
  for (const row of rows) groups.set(row.group, [...(groups.get(row.group) ?? []), row]);
  return [...groups].map(([group, of]) => ({ group, spend: spendOf(tallyOfRows(of), prices)! }));
}

export function buildSpendReport(sums: SpendSums, window: { since?: string; project?: string; top: number }, prices: PriceTable): SpendReport {
  const days = grouped(sums.byDay, prices).sort((a, b) => String(a.group).localeCompare(String(b.group)));
  const total = spendOf(tallyOfRows(sums.byDay), prices);
  const sessions = sums.sessions
    .map((s) => ({ key: s.key, agentId: s.agentId, title: s.title, harness: s.harness, project: s.project, spend: spendOf(tallyOfRows(s.rows), prices)! }))
    .sort((a, b) => bySpend(a.spend, b.spend) || a.key.localeCompare(b.key))
    .slice(0, window.top);
  return {
    since: window.since ?? null,
    project: window.project ?? null,
    total,
    byDay: days.map((d) => ({ day: d.group ?? '', spend: d.spend })),
    byProject: grouped(sums.byProject, prices)
      .sort((a, b) => bySpend(a.spend, b.spend))
      .map((g) => ({ project: g.group, spend: g.spend })),
    byHarness: grouped(sums.byHarness, prices)
      .sort((a, b) => bySpend(a.spend, b.spend))
      .map((g) => ({ harness: g.group ?? 'unknown', spend: g.spend })),
    byModel: total?.byModel ?? [],
    topSessions: sessions,
    pricesAsOf: PRICES_AS_OF,
  };
}

/** A table with a header, columns padded, numbers right-aligned. */
function table(head: string[], rows: string[][], numeric: boolean[]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (numeric[i] ? c.padStart(widths[i]) : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(head), ...rows.map(line)].join('\n');
}

function costText(s: Spend): string {
  if (s.costUsd === null) return 'no price';
  return `${usd(s.costUsd)}${s.costBasis === 'estimated' ? '~' : ''}${s.costComplete ? '' : '+'}`;
}

const SPEND_HEAD = ['requests', 'input', 'output', 'cache read', 'cache write', 'cost'];
const SPEND_NUMERIC = [true, true, true, true, true, true];
const spendCells = (
  s: Pick<Spend, 'requests' | 'inputTokens' | 'outputTokens' | 'cacheReadTokens' | 'cacheWriteTokens' | 'costUsd' | 'costBasis'> & { costComplete?: boolean },
) => [
  String(s.requests),
  compactCount(s.inputTokens),
  compactCount(s.outputTokens),
  compactCount(s.cacheReadTokens),
  compactCount(s.cacheWriteTokens),
  costText({ costComplete: true, ...s } as Spend),
];

/** `baton spend` without --json: the total, then one table per grouping. */
export function renderSpendReport(report: SpendReport): string {
  const window = [report.since ? `since ${report.since}` : 'all time', report.project ? `project ${report.project}` : 'all projects'].join(', ');
  if (!report.total) return `No spend reported (${window}).`;
  const section = (title: string, head: string, rows: Array<{ name: string; spend: Spend }>) =>
    `${title}\n${table(
      [head, ...SPEND_HEAD],
      rows.map((r) => [r.name, ...spendCells(r.spend)]),
      [false, ...SPEND_NUMERIC],
    )}`;
  return [
    `Spend, ${window}: ${compactCount(totalTokens(report.total))} tokens in ${report.total.requests} requests, ${costText(report.total)}`,
    section(
      'By day',
      'day',
      report.byDay.map((d) => ({ name: d.day, spend: d.spend })),
    ),
    section(
      'By project',
      'project',
      report.byProject.map((p) => ({ name: p.project ?? '(none)', spend: p.spend })),
    ),
    section(
      'By harness',
      'harness',
      report.byHarness.map((h) => ({ name: h.harness, spend: h.spend })),
    ),
    `By model\n${table(
      ['model', ...SPEND_HEAD],
      report.byModel.map((m) => [m.model ?? '(not reported)', ...spendCells(m)]),
      [false, ...SPEND_NUMERIC],
    )}`,
    section(
      'Top sessions',
      'session',
      report.topSessions.map((s) => ({ name: `${s.title ? truncate(s.title, 40) + ' ' : ''}(${s.harness} ${s.key.slice(0, 12)})`, spend: s.spend })),
    ),
    `~ estimated from the price table (${report.pricesAsOf}; override in config.json "prices"); + part of the tokens have no price.`,
  ].join('\n\n');
}

function truncate(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? flat.slice(0, max - 1) + '…' : flat;
}
