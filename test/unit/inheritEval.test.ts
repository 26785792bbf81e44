// The inheritance evaluation (bench/inheritEval.ts, docs/inheritance.md, "Evaluation"): its
// committed figures are what the code computes now, and they say what the defaults rest on.

import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_INHERIT } from '../../src/core/inherit';
import { DEFAULT_SELECTION } from '../../src/core/turnSelection';
import { defaultRule, evaluate, report, RULES } from '../../bench/inheritEval';
import { SESSIONS } from '../../bench/data/inheritSessions';

describe('inheritance evaluation: the figures behind the selection defaults', () => {
  it('has at least 30 pairs, some needing an early turn the newest part alone cuts', () => {
    const pairs = SESSIONS.flatMap((s) => s.tasks);
    assert.ok(pairs.length >= 30, `${pairs.length} pairs`);
    assert.ok(pairs.filter((p) => p.where === 'early').length >= 10);
  });

  it('task-aware selection (the default rule) finds the needed turn more often than recency at the same budget, for no more tokens, and loses no recent turn', () => {
    const recency = evaluate('full', RULES[0], DEFAULT_INHERIT.tailChars);
    const chosen = defaultRule();
    assert.deepEqual(chosen.selection, DEFAULT_SELECTION);
    const task = evaluate('full', chosen, DEFAULT_INHERIT.tailChars);
    assert.ok(task.hits > recency.hits, `${task.hits} <= ${recency.hits}`);
    assert.ok(task.earlyHits > recency.earlyHits);
    assert.equal(task.recentHits, task.recent);
    assert.ok(task.tokens <= recency.tokens);
    // No rule tried does better overall at the default room.
    for (const rule of RULES) assert.ok(evaluate('full', rule, DEFAULT_INHERIT.tailChars).hits <= task.hits, rule.name);
  });

  it('the committed results are what the evaluation computes now', () => {
    const committed = fs.readFileSync(path.join(__dirname, '..', '..', 'bench', 'RESULTS-inherit-eval.md'), 'utf8');
    assert.equal(committed, report());
  });
});
