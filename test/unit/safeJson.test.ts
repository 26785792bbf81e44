// The nesting-depth scan and the input-free JSON errors (src/core/safeJson.ts).

import { strict as assert } from 'node:assert';
import { excessDepthAt, JsonInputError, MAX_JSON_DEPTH, parseJsonSafely } from '../../src/core/safeJson';

describe('safeJson', () => {
  it('finds the first bracket past the limit, and only outside strings', () => {
    assert.equal(excessDepthAt('[[[]]]', 3), -1);
    assert.equal(excessDepthAt('[[[[]]]]', 3), 3);
    assert.equal(excessDepthAt('{"a":{"b":[1]}}', 3), -1);
    assert.equal(excessDepthAt('{"a":{"b":[{}]}}', 3), 11);
    assert.equal(excessDepthAt('["[[[[", "{{{{"]', 1), -1, 'brackets inside strings are text');
    assert.equal(excessDepthAt('["\\"[[[["]', 1), -1, 'an escaped quote does not end the string');
    assert.equal(excessDepthAt('["\\\\", [[]]]', 2), 8, 'an escaped backslash does end it');
    assert.equal(excessDepthAt('[]'.repeat(100_000), 1), -1, 'siblings do not add up');
    assert.equal(excessDepthAt('['.repeat(1_000_000), MAX_JSON_DEPTH), MAX_JSON_DEPTH, 'a million levels: stops at the first excess');
  });

  it('parses within the limit, refuses beyond it, and never quotes the input', () => {
    assert.deepEqual(parseJsonSafely('{"a":[1,{"b":null}]}'), { a: [1, { b: null }] });
    assert.throws(
      () => parseJsonSafely('['.repeat(20_000) + ']'.repeat(20_000), 'body'),
      (err: unknown) => err instanceof JsonInputError && err.problem === 'too_deep' && /nesting-depth limit is 64/.test(err.message),
    );
    const secret = 'zq' + 'x7'.repeat(10);
    for (const text of [`{"a": ${secret}}`, `{"a":"${secret}`, `${secret}`, `{"a":1} ${secret}`, `{${secret}:1}`]) {
      assert.throws(
        () => parseJsonSafely(text, 'body'),
        (err: unknown) =>
          err instanceof JsonInputError &&
          err.problem === 'syntax' &&
          /^body is not valid JSON/.test(err.message) &&
          !err.message.includes('zqx7') &&
          !err.message.includes('x7x7'),
        text,
      );
    }
  });
});
