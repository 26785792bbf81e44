// How a session's spend reads in the editor (README.md, "Spend"): the compact line of a
// tree node ("opus-4-1 · 12.3k tok · ~$0.41", "Σ 48k tok · ~$1.90" on a parent), the tooltip's
// full breakdown, the order of "Sort Sessions by Spend", and the rows of the Spend view (by child,
// by model). Pure: the surfaces in src/vscode and media/ only draw what these return.

import { totalTokens, type ModelSpend, type SessionSpend, type Spend } from './spend';

/** Token counts at a glance: 950, 1.2k, 12.3k, 123k, 1.2M. */
export function compactTokens(n: number): string {
  const units: Array<[number, string]> = [
    [1, ''],
    [1e3, 'k'],
    [1e6, 'M'],
    [1e9, 'G'],
  ];
  let i = 0;
  while (i < units.length - 1 && Math.abs(n) >= units[i + 1][0]) i++;
  for (; ; i++) {
    const value = n / units[i][0];
    const text = i === 0 ? String(Math.round(value)) : value.toFixed(Math.abs(value) < 100 ? 1 : 0).replace(/\.0$/, '');
    // 999,960 rounds to "1000k": say "1M" instead.
    if (Math.abs(Number(text)) >= 1000 && i < units.length - 1) continue;
    return text + units[i][1];
  }
}

/** Dollars at a glance: $0.41, $12.30, $123, $1,234; a cost under a cent is "<$0.01", not "$0.00". */
export function compactUsd(usd: number): string {
  if (usd > 0 && usd < 0.005) return '<$0.01';
  if (usd < 100) return `$${usd.toFixed(2)}`;
  return `$${Math.round(usd).toLocaleString('en-US')}`;
}

/** A cost as it reads next to tokens: "~" marks an estimate from the price table, "≥" a partial one. */
export function costLabel(spend: Pick<Spend, 'costUsd' | 'costBasis'> & { costComplete?: boolean }): string | null {
  if (spend.costUsd === null) return null;
  const prefix = spend.costComplete === false ? '≥' : spend.costBasis === 'estimated' ? '~' : '';
  return prefix + compactUsd(spend.costUsd);
}

/**
 * A model's short name: no provider prefix, no "claude-", no release date or "-latest"
 * ("claude-opus-4-1-20250805" → "opus-4-1", "openai/gpt-5-codex" → "gpt-5-codex").
 */
export function shortModel(model: string | null): string {
  if (!model) return 'unnamed model';
  return model
    .slice(model.lastIndexOf('/') + 1)
    .replace(/^claude-/, '')
    .replace(/-(\d{8}|latest)$/, '');
}

/** The models of a spend, short: the one with most tokens, "+n" for the others. */
export function modelsLabel(spend: Spend): string | null {
  if (spend.models.length === 0) return null;
  const more = spend.models.length - 1;
  return shortModel(spend.models[0]) + (more > 0 ? ` +${more}` : '');
}

function tokensAndCost(spend: Spend): string {
  return [`${compactTokens(totalTokens(spend))} tok`, costLabel(spend)].filter(Boolean).join(' · ');
}

/** True when the rolled-up total holds requests of descendants (not only the session's own). */
export function hasDescendantSpend(spend: SessionSpend): boolean {
  return spend.total !== null && spend.total.requests !== (spend.own?.requests ?? 0);
}

/**
 * A tree node's compact spend: its own ("opus-4-1 · 12.3k tok · ~$0.41") and, when sub-agents
 * spent too, the rolled-up total ("Σ 48k tok · ~$1.90"). Empty when nothing was reported: the
 * tooltip says "not reported", the row never shows a zero.
 */
export function spendDescription(spend: SessionSpend): string {
  const parts: string[] = [];
  if (spend.own) parts.push([modelsLabel(spend.own), tokensAndCost(spend.own)].filter(Boolean).join(' · '));
  if (spend.total && hasDescendantSpend(spend)) parts.push(`Σ ${tokensAndCost(spend.total)}`);
  return parts.join(' · ');
}

const count = (n: number) => n.toLocaleString('en-US');

function costSentence(spend: Pick<Spend, 'costUsd' | 'costBasis'> & { costComplete?: boolean }): string {
  if (spend.costUsd === null) return 'no price known';
  const usd = `$${spend.costUsd.toFixed(spend.costUsd < 1 ? 4 : 2)}`;
  if (spend.costComplete === false) return `${usd} for the priced models only (some have no price)`;
  return `${usd} (${spend.costBasis === 'estimated' ? 'estimated from the price table' : 'reported by the harness'})`;
}

function modelLine(m: ModelSpend): string {
  return `  ${m.model ?? 'unnamed model'}: ${count(totalTokens(m))} tokens, ${m.requests} request${m.requests === 1 ? '' : 's'}, ${costSentence(m)}`;
}

function spendLines(title: string, spend: Spend | null): string[] {
  if (!spend) return [`${title}: not reported`];
  return [
    `${title}: ${count(totalTokens(spend))} tokens in ${count(spend.requests)} request${spend.requests === 1 ? '' : 's'}, ${costSentence(spend)}`,
    `  input ${count(spend.inputTokens)} · output ${count(spend.outputTokens)} · cache read ${count(spend.cacheReadTokens)} · cache write ${count(spend.cacheWriteTokens)}`,
    ...(spend.byModel.length > 1 || spend.byModel[0]?.model ? spend.byModel.map(modelLine) : []),
  ];
}

/** The tooltip's breakdown: own and (when sub-agents spent) with sub-agents, per model, "not reported" when null. */
export function spendTooltipLines(spend: SessionSpend): string[] {
  if (!spend.own && !spend.total) return ['Spend: not reported'];
  const lines = spendLines('Spend (own)', spend.own);
  if (hasDescendantSpend(spend)) lines.push(...spendLines('Spend with sub-agents', spend.total));
  return lines;
}

/** The tokens "Sort Sessions by Spend" orders by: the rolled-up total (0 when not reported). */
export function spendWeight(spend: SessionSpend): number {
  return spend.total ? totalTokens(spend.total) : 0;
}

/** Most rolled-up tokens first; equal spends keep their order (Array.prototype.sort is stable). */
export function bySpend<T extends { spend: SessionSpend }>(a: T, b: T): number {
  return spendWeight(b.spend) - spendWeight(a.spend);
}

/** One bar of the Spend view: what it names, its tokens and cost, and its share of the whole. */
export interface SpendRow {
  label: string;
  /** What the label abbreviates (the full model name, the session key). */
  detail: string;
  /** The session the row is (by child), to open its own Spend view; null for "own" and model rows. */
  sessionKey: string | null;
  /** null: not reported. */
  tokens: number | null;
  tokensText: string;
  costText: string;
  /** 0..1 of the largest row's tokens (the bar's length). */
  share: number;
  /** 0..1 of the whole tree's tokens, for the table and screen readers. */
  percent: number;
}

export interface SpendBreakdown {
  /** The whole tree's line: "48k tok · ~$1.90 · 3 models", or "not reported". */
  summary: string;
  /** The session's own requests, then each child's rolled-up total, most tokens first. */
  byChild: SpendRow[];
  /** The rolled-up total per model, most tokens first. */
  byModel: SpendRow[];
  /** Children that reported nothing. */
  unreported: number;
}

/** What the breakdown needs of a session. */
export interface SpendSource {
  key: string;
  title: string | null;
  harnessAgentType?: string | null;
  spend: SessionSpend;
}

function row(label: string, detail: string, sessionKey: string | null, tokens: number | null, cost: string | null, whole: number): Omit<SpendRow, 'share'> {
  return {
    label,
    detail,
    sessionKey,
    tokens,
    tokensText: tokens === null ? 'not reported' : `${count(tokens)} tokens`,
    costText: cost ?? (tokens === null ? '' : 'no price'),
    percent: tokens && whole > 0 ? tokens / whole : 0,
  };
}

function withShares(rows: Array<Omit<SpendRow, 'share'>>): SpendRow[] {
  const max = Math.max(0, ...rows.map((r) => r.tokens ?? 0));
  return rows.map((r) => ({ ...r, share: max > 0 && r.tokens ? r.tokens / max : 0 })).sort((a, b) => (b.tokens ?? -1) - (a.tokens ?? -1)); // stable: ties keep their order (own first)
}

function childLabel(c: SpendSource): string {
  if (c.title) return c.title;
  if (c.harnessAgentType) return `${c.harnessAgentType} ${c.key.split('/').pop()}`;
  return c.key;
}

/** Where a session tree's tokens went: by child (each child's whole subtree) and by model. */
export function spendBreakdown(session: SpendSource, children: SpendSource[]): SpendBreakdown {
  const total = session.spend.total;
  const whole = total ? totalTokens(total) : 0;
  const own = session.spend.own;
  const childRows = children.map((c) =>
    row(childLabel(c), c.key, c.key, c.spend.total ? totalTokens(c.spend.total) : null, c.spend.total && costLabel(c.spend.total), whole),
  );
  const byChild = withShares([
    row('This session (own requests)', session.key, null, own ? totalTokens(own) : null, own && costLabel(own), whole),
    ...childRows,
  ]);
  const byModel = withShares(
    (total?.byModel ?? []).map((m) => row(shortModel(m.model), m.model ?? 'the transcript names no model', null, totalTokens(m), costLabel(m), whole)),
  );
  const models = total?.byModel.length ?? 0;
  const summary = total ? [tokensAndCost(total), `${models} model${models === 1 ? '' : 's'}`, `${count(total.requests)} requests`].join(' · ') : 'not reported';
  return { summary, byChild, byModel, unreported: children.filter((c) => !c.spend.total).length };
}
