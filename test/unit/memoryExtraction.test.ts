// Pure parts of the memory side: the session-end extractor, the recall brief and the stemmed question form.

import { strict as assert } from 'node:assert';
import { extractSessionMemories } from '../../src/core/memoryExtraction';
import { aggregateBrief, AGGREGATE_BUDGETS } from '../../src/core/recallBrief';
import { compileQuestionQuery, stemWord } from '../../src/core/searchQuery';

describe('memory extraction and recall text (pure)', () => {
  it('types each sentence once, in order of precedence, and skips chatter', () => {
    const memories = extractSessionMemories([
      { seq: 1, role: 'user', text: 'We decided to never deploy on Fridays. Thanks, looks fine to me.' },
      { seq: 2, role: 'tool', text: 'We decided to use tool output as a decision.' },
      { seq: 3, role: 'assistant', text: 'Found that the cache lives in redis. TODO: migrate the old keys later.' },
      { seq: 4, role: 'user', text: 'Which region should the replica go to?' },
    ]);
    assert.deepEqual(
      memories.map((m) => [m.type, m.content]),
      [
        ['constraint', 'We decided to never deploy on Fridays.'],
        ['fact', 'Found that the cache lives in redis.'],
        ['open-question', 'TODO: migrate the old keys later.'],
        ['open-question', 'Which region should the replica go to?'],
      ],
    );
  });

  it('ignores a question that is not in the last turn and has no open marker', () => {
    const memories = extractSessionMemories([
      { seq: 1, role: 'user', text: 'Can you read the config file for me?' },
      { seq: 2, role: 'assistant', text: 'Done, the config looks good.' },
    ]);
    assert.deepEqual(memories, []);
  });

  it('keeps an aggregate brief within its budget', () => {
    const many = Array.from({ length: 200 }, (_, i) => ({
      content: `note ${i} ${'x'.repeat(50)}`,
      type: i % 3 ? 'fact' : 'decision',
      createdAt: '2026-01-01T00:00:00Z',
    }));
    for (const budget of ['small', 'medium', 'large'] as const) {
      const brief = aggregateBrief('q', many, budget);
      assert.ok(brief.chars <= AGGREGATE_BUDGETS[budget], `${budget}: ${brief.chars}`);
      assert.equal(brief.included + brief.omitted, many.length);
      assert.ok(brief.text.startsWith('Memory brief for "q":\nDecisions:'));
    }
    assert.equal(aggregateBrief('q', [], 'small').text, 'No matching memories found.');
  });

  it('trims plurals and inflections off question words only when asked', () => {
    assert.equal(stemWord('preferences'), 'preferenc');
    assert.equal(stemWord('notes'), 'note');
    assert.equal(stemWord('memories'), 'memor');
    assert.equal(stemWord('class'), 'class');
    assert.equal(stemWord('uses'), 'uses');
    assert.equal(compileQuestionQuery('user UI preferences')!.match, '"user*" OR "ui" OR "preferences*"');
    assert.equal(compileQuestionQuery('user UI preferences', { stem: true })!.match, '"user*" OR "ui" OR "preferenc*"');
  });
});
