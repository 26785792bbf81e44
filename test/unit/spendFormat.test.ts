// How spend reads in the editor (src/core/spendFormat.ts): compact counts and costs, the tree's
// description and tooltip, the sort by spend, and the rows the Spend view draws. The spends are
// built the way the store builds them (tallies priced by core/spend.ts with the shipped table).

import { strict as assert } from 'node:assert';
import { addTally, sessionSpendOf, tallyOf, type SessionSpend, type SpendTally, type TurnUsage } from '../../src/core/spend';
import { DEFAULT_PRICES } from '../../src/core/prices';
import {
  bySpend,
  compactTokens,
  compactUsd,
  costLabel,
  shortModel,
  spendBreakdown,
  spendDescription,
  spendTooltipLines,
  type SpendSource,
} from '../../src/core/spendFormat';

let requests = 0;
function usage(model: string | null, inputTokens: number, outputTokens: number, over: Partial<TurnUsage> = {}): SpendTally {
  requests += 1;
  return tallyOf({ key: `r${requests}`, model, inputTokens, outputTokens, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: null, ...over });
}
const sum = (...tallies: Array<SpendTally | null>) => tallies.reduce<SpendTally | null>((acc, t) => addTally(acc, t), null);
const spendOf = (own: SpendTally | null, total: SpendTally | null = own): SessionSpend => sessionSpendOf(own, total, DEFAULT_PRICES);
const NONE: SessionSpend = { own: null, total: null };

describe('spend format: compact counts and costs', () => {
  it('abbreviates token counts without ever reading as more than they are', () => {
    const cases: Array<[number, string]> = [
      [0, '0'],
      [950, '950'],
      [1_000, '1k'],
      [1_234, '1.2k'],
      [12_345, '12.3k'],
      [48_000, '48k'],
      [123_456, '123k'],
      [999_960, '1M'],
      [1_250_000, '1.3M'],
      [2_000_000_000, '2G'],
    ];
    for (const [n, text] of cases) assert.equal(compactTokens(n), text, `${n}`);
  });

  it('writes dollars with cents, whole dollars from $100, and a tiny cost as "<$0.01", never "$0.00"', () => {
    assert.equal(compactUsd(0.41), '$0.41');
    assert.equal(compactUsd(1.9), '$1.90');
    assert.equal(compactUsd(0.0004), '<$0.01');
    assert.equal(compactUsd(0), '$0.00');
    assert.equal(compactUsd(1234.4), '$1,234');
  });

  it('marks an estimated cost "~", a partial one "≥", a reported one plainly, and has none without a price', () => {
    assert.equal(costLabel({ costUsd: 0.41, costBasis: 'estimated' }), '~$0.41');
    assert.equal(costLabel({ costUsd: 0.41, costBasis: 'reported' }), '$0.41');
    assert.equal(costLabel({ costUsd: 0.41, costBasis: 'estimated', costComplete: false }), '≥$0.41');
    assert.equal(costLabel({ costUsd: null, costBasis: null }), null);
  });

  it('shortens model names: no provider, no "claude-", no release date', () => {
    assert.equal(shortModel('claude-opus-4-1-20250805'), 'opus-4-1');
    assert.equal(shortModel('anthropic/claude-sonnet-4-5'), 'sonnet-4-5');
    assert.equal(shortModel('gpt-5-codex'), 'gpt-5-codex');
    assert.equal(shortModel('codex-mini-latest'), 'codex-mini');
    assert.equal(shortModel(null), 'unnamed model');
  });
});

describe('spend format: the tree node', () => {
  it("shows a leaf's model, tokens and estimated cost", () => {
    // 10,000 in at $15/M + 2,345 out at $75/M = $0.150 + $0.175875.
    const leaf = spendOf(usage('claude-opus-4-1-20250805', 10_000, 2_345));
    assert.equal(spendDescription(leaf), 'opus-4-1 · 12.3k tok · ~$0.33');
  });

  it('adds the rolled-up total on a parent whose sub-agents spent, and only the total when it spent nothing itself', () => {
    const own = usage('claude-sonnet-4-5', 1_000, 1_000);
    const child = usage('claude-haiku-4-5', 40_000, 6_000);
    const parent = spendOf(own, sum(own, child));
    assert.equal(spendDescription(parent), 'sonnet-4-5 · 2k tok · ~$0.02 · Σ 48k tok · ~$0.09');
    assert.equal(spendDescription(spendOf(null, child)), 'Σ 46k tok · ~$0.07');
  });

  it('shows nothing, never a zero, for a session that reported no spend; the tooltip says "not reported"', () => {
    assert.equal(spendDescription(NONE), '');
    assert.deepEqual(spendTooltipLines(NONE), ['Spend: not reported']);
  });

  it('names a second model "+1", and an unknown model gets tokens without a price', () => {
    const s = spendOf(sum(usage('claude-sonnet-4-5', 10_000, 0), usage('mystery-model', 100, 0)));
    assert.equal(spendDescription(s), 'sonnet-4-5 +1 · 10.1k tok · ≥$0.03');
    assert.equal(spendDescription(spendOf(usage('mystery-model', 100, 0))), 'mystery-model · 100 tok');
  });

  it('the tooltip breaks down own and with-sub-agents spend per model, saying whether the cost is estimated or reported', () => {
    const own = usage('claude-sonnet-4-5', 1_000, 1_000);
    const child = usage('gpt-5', 0, 0, { costUsd: 0.5, inputTokens: 3_000 });
    const lines = spendTooltipLines(spendOf(own, sum(own, child)));
    assert.deepEqual(lines, [
      'Spend (own): 2,000 tokens in 1 request, $0.0180 (estimated from the price table)',
      '  input 1,000 · output 1,000 · cache read 0 · cache write 0',
      '  claude-sonnet-4-5: 2,000 tokens, 1 request, $0.0180 (estimated from the price table)',
      'Spend with sub-agents: 5,000 tokens in 2 requests, $0.5180 (estimated from the price table)',
      '  input 4,000 · output 1,000 · cache read 0 · cache write 0',
      '  gpt-5: 3,000 tokens, 1 request, $0.5000 (reported by the harness)',
      '  claude-sonnet-4-5: 2,000 tokens, 1 request, $0.0180 (estimated from the price table)',
    ]);
    // A parent that spent nothing itself: its own part says so.
    assert.equal(spendTooltipLines(spendOf(null, child))[0], 'Spend (own): not reported');
  });

  it('sorts by rolled-up tokens, most first, sessions without spend last in their order', () => {
    const nodes = [
      { key: 'none-1', spend: NONE },
      { key: 'small', spend: spendOf(usage('gpt-5', 10, 0)) },
      { key: 'none-2', spend: NONE },
      { key: 'big-tree', spend: spendOf(null, usage('gpt-5', 90_000, 0)) },
    ];
    assert.deepEqual(
      [...nodes].sort(bySpend).map((n) => n.key),
      ['big-tree', 'small', 'none-1', 'none-2'],
    );
  });
});

describe('spend format: the Spend view rows', () => {
  const ownTally = usage('claude-opus-4-1-20250805', 2_000, 0);
  const exploreTally = usage('claude-haiku-4-5', 6_000, 0);
  const planTally = sum(usage('claude-sonnet-4-5', 1_000, 0), usage('claude-haiku-4-5', 1_000, 0));
  const root: SpendSource = { key: 'root', title: 'Ship it', spend: spendOf(ownTally, sum(ownTally, exploreTally, planTally)) };
  const children: SpendSource[] = [
    { key: 'a/plan', title: null, harnessAgentType: 'Plan', spend: spendOf(planTally) },
    { key: 'a/explore', title: 'Explore the code', spend: spendOf(exploreTally) },
    { key: 'quiet', title: null, spend: NONE },
  ];

  it('by child: the own requests and each child, most tokens first, bars scaled to the largest, shares of the whole', () => {
    const b = spendBreakdown(root, children);
    assert.deepEqual(
      b.byChild.map((r) => [r.label, r.sessionKey, r.tokens, r.share, r.percent]),
      [
        ['Explore the code', 'a/explore', 6_000, 1, 0.6],
        ['This session (own requests)', null, 2_000, 2_000 / 6_000, 0.2],
        ['Plan plan', 'a/plan', 2_000, 2_000 / 6_000, 0.2],
        ['quiet', 'quiet', null, 0, 0],
      ],
    );
    assert.equal(b.byChild[3].tokensText, 'not reported');
    assert.equal(b.byChild[0].costText, '~$0.01');
    assert.equal(b.unreported, 1);
  });

  it('by model: the whole tree per model, with the full name as detail', () => {
    const b = spendBreakdown(root, children);
    assert.deepEqual(
      b.byModel.map((r) => [r.label, r.detail, r.tokens, r.percent]),
      [
        ['haiku-4-5', 'claude-haiku-4-5', 7_000, 0.7],
        ['opus-4-1', 'claude-opus-4-1-20250805', 2_000, 0.2],
        ['sonnet-4-5', 'claude-sonnet-4-5', 1_000, 0.1],
      ],
    );
    assert.equal(b.summary, '10k tok · ~$0.04 · 3 models · 4 requests');
  });

  it('a tree that reported nothing has no model rows and says "not reported"', () => {
    const b = spendBreakdown({ key: 'x', title: null, spend: NONE }, []);
    assert.equal(b.summary, 'not reported');
    assert.deepEqual(b.byModel, []);
    assert.deepEqual(
      b.byChild.map((r) => r.tokensText),
      ['not reported'],
    );
  });
});
