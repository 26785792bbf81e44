// How an entity's attribute is scored against a prompt (docs/memory.md, "Entity context at each
// prompt"): pure functions, no store.

import { strict as assert } from 'node:assert';
import { isLowSignal, meaningfulWords, relevanceScore } from '../../src/core/promptRelevance';

describe('promptRelevance: attributes scored against the prompt', () => {
  it('keeps the meaningful words of a text: stop words dropped, plurals and inflections trimmed', () => {
    assert.deepEqual([...meaningfulWords('How does it handle the Rounding of currencies?')], ['handle', 'round', 'currenc']);
  });

  it('calls a prompt of stop words only low-signal', () => {
    assert.equal(isLowSignal('ok, make it so'), true);
    assert.equal(isLowSignal('  '), true);
    assert.equal(isLowSignal('run make for the release'), false);
  });

  it('raises the importance by the share of the prompt words the attribute holds', () => {
    const words = meaningfulWords('currency rounding handle');
    assert.equal(relevanceScore(0.6, words, 'Unrelated house rule about logging.'), 0.6);
    assert.ok(Math.abs(relevanceScore(0.6, words, 'Currency rounding uses half-even.') - (1 - 0.4 / 3)) < 1e-9);
    assert.equal(relevanceScore(0.2, words, 'handle currency rounding'), 1);
    assert.equal(relevanceScore(0.7, new Set(), 'anything'), 0.7);
  });
});
