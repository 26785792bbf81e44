// The rules' own budget in the inherited block (src/core/constraintBudget.ts, src/core/inherit.ts;
// docs/inheritance.md, "Budget"): pure functions, no store.

import { strict as assert } from 'node:assert';
import { fitConstraints, LIST_CONSTRAINTS_COMMAND, orderConstraints, type ConstraintSource } from '../../src/core/constraintBudget';
import { assembleInheritBlock, CONSTRAINT_SHARE, estimateTokens, type InheritSources } from '../../src/core/inherit';

type Rule = InheritSources['constraints'][number];

const rule = (content: string, source: ConstraintSource, importance: number, recency: number): Rule => ({
  entity: 'rules',
  content,
  source,
  importance,
  recency,
});

/** A parent with `rules`, a tail and a checkpoint digest, each sizeable. */
function parent(rules: Rule[]): InheritSources {
  return {
    parentKey: 'p',
    title: 'Migrate billing',
    harness: 'claude-code',
    checkpoint: { digest: 'Decided to keep the ledger schema. '.repeat(200), createdAt: '2026-11-28T00:00:00Z' },
    tail: 'User: carry on with the export.\nAssistant: exporting the invoices now.\n'.repeat(100),
    tailTruncated: true,
    constraints: rules,
    focalEntities: ['ledger.ts'],
  };
}

describe('constraints within their own budget of the inherited block', () => {
  it('orders rules added by hand first, then the user’s, then the agent’s, then other sessions’; by importance, then newest first', () => {
    const ordered = orderConstraints([
      rule('agent strong', 'agent', 0.7, 5),
      rule('entity rule', 'entity', 0.9, 9),
      rule('user old', 'user', 0.8, 1),
      rule('hand', 'hand', 0.5, 2),
      rule('user new', 'user', 0.8, 7),
      rule('user strong', 'user', 0.9, 3),
    ]);
    assert.deepEqual(
      ordered.map((r) => r.content),
      ['hand', 'user strong', 'user new', 'user old', 'agent strong', 'entity rule'],
    );
    // Without ranks the given order stands.
    assert.deepEqual(
      orderConstraints<{ content: string; source?: ConstraintSource }>([{ content: 'b' }, { content: 'a' }]).map((r) => r.content),
      ['b', 'a'],
    );
  });

  it('keeps every rule that fits, and otherwise the first ones, then one line naming how many more and the command listing them', () => {
    assert.deepEqual(fitConstraints(['rules: a', 'rules: b'], 1000), { lines: ['Active constraints:', '  - rules: a', '  - rules: b'], kept: 2, omitted: 0 });
    const many = Array.from({ length: 50 }, (_, i) => `rules: never touch table_${i}`);
    const fitted = fitConstraints(many, 400);
    assert.ok(fitted.lines.join('\n').length <= 400, `${fitted.lines.join('\n').length} characters`);
    assert.equal(fitted.kept + fitted.omitted, 50);
    assert.ok(fitted.kept >= 5, `${fitted.kept} kept`);
    assert.deepEqual(
      fitted.lines.slice(1, -1),
      many.slice(0, fitted.kept).map((r) => `  - ${r}`),
    );
    assert.equal(fitted.lines.at(-1), `  ${fitted.omitted} more: \`${LIST_CONSTRAINTS_COMMAND}\``);
    assert.equal(LIST_CONSTRAINTS_COMMAND, 'baton constraints list');
    // A block whose rules fit is as it was: every rule, no "more" line, nothing cut.
    const block = assembleInheritBlock(parent([rule('Never drop the users table.', 'user', 0.9, 1)]), {
      inheritContext: true,
      tailChars: 3000,
      maxTokens: 2000,
    })!;
    assert.deepEqual(block.sections.constraints, ['rules: Never drop the users table.']);
    assert.doesNotMatch(block.text, /more: `baton constraints list`/);
    assert.ok(!block.budget.cut.includes('constraints'));
  });

  it('3,000 rules: the block stays within its budget, the rules take at most their share, the most important come first, then "N more"', () => {
    const rules = [
      ...Array.from({ length: 2999 }, (_, i) => rule(`Never change the module_${i} interface without a review.`, i % 2 ? 'agent' : 'user', 0.8, i + 10)),
      rule('Do not touch the invoices table.', 'hand', 0.9, 1),
    ];
    const block = assembleInheritBlock(parent(rules), { inheritContext: true, tailChars: 3000, maxTokens: 2000 })!;
    assert.ok(estimateTokens(block.text) <= 2000, `${estimateTokens(block.text)} tokens`);
    const section = block.text.slice(block.text.indexOf('Active constraints:'), block.text.indexOf('Checkpoint summary:'));
    assert.ok(section.length <= 2000 * 4 * CONSTRAINT_SHARE, `the rules take ${section.length} characters`);
    const lines = section.trim().split('\n');
    assert.equal(lines[1], '  - rules: Do not touch the invoices table.', 'the rule added by hand first');
    assert.match(lines[2], /module_2998 /, 'then the newest rule the user stated');
    assert.equal(lines.at(-1), `  ${3000 - block.sections.constraints.length} more: \`baton constraints list\``);
    assert.ok(block.sections.constraints.length >= 10, `${block.sections.constraints.length} rules kept`);
    assert.equal(block.constraintOrigins.length, block.sections.constraints.length);
    assert.ok(block.sections.checkpoint && block.sections.recentContext, 'the summary and the recent context still get their room');
    assert.deepEqual(block.budget.cut.slice(0, 1), ['constraints']);
    assert.match(block.text, /\nBudget: ~\d+ of 2000 tokens \(cut: constraints, /);
  });

  it('gives the rules the room the other sections do not need: all of it with nothing else to carry (the routing profile)', () => {
    const rules = Array.from({ length: 3000 }, (_, i) => rule(`Always log module_${i} calls.`, 'user', 0.8, i));
    const shared = assembleInheritBlock(parent(rules), { inheritContext: true, tailChars: 3000, maxTokens: 400 })!;
    const routing = assembleInheritBlock(parent(rules), { inheritContext: true, tailChars: 3000, maxTokens: 400, profile: 'routing' })!;
    assert.ok(estimateTokens(routing.text) <= 400, `${estimateTokens(routing.text)} tokens`);
    assert.ok(routing.sections.constraints.length > shared.sections.constraints.length, 'more rules where they share the budget with nothing');
    assert.match(routing.text, /\n {2}\d+ more: `baton constraints list`\n/);
    const short = { ...parent(rules), checkpoint: { digest: 'Keep the schema.', createdAt: '2026-11-28T00:00:00Z' }, tail: 'User: go on.' };
    const small = assembleInheritBlock(short, { inheritContext: true, tailChars: 3000, maxTokens: 400 })!;
    assert.ok(estimateTokens(small.text) <= 400, `${estimateTokens(small.text)} tokens`);
    assert.ok(small.sections.constraints.length > shared.sections.constraints.length, 'a short summary and tail leave the rules more room');
    assert.equal(small.sections.checkpoint, 'Keep the schema.');
    assert.equal(small.sections.recentContext, 'User: go on.');
  });
});
