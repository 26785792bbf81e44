// The contract normalises what a request names once (docs/architecture.md, "Normalised at the
// contract"): handlers see one canonical field, never an alias or the `session:` prefix.

import { strict as assert } from 'node:assert';
import { addConstraintBody, parseBody, promptSubmitBody, recallBody, runBody, searchBody, sessionEndBody, sessionStartBody } from '../../src/api/schemas';

describe('the contract normalises keys and aliases', () => {
  it('session-start: the key arrives stripped of its prefix and sessionId becomes sessionKey', () => {
    const body = parseBody(sessionStartBody, { harness: 'h', sessionId: 'session:abc' });
    assert.equal(body.sessionKey, 'abc');
    assert.equal('sessionId' in body, false);
  });

  it('session-start: parentKey, parentId and parentID become parentSessionKey, in that order of preference after it', () => {
    assert.equal(parseBody(sessionStartBody, { harness: 'h', parentID: 'session:p3' }).parentSessionKey, 'p3');
    assert.equal(parseBody(sessionStartBody, { harness: 'h', parentId: 'p2', parentID: 'p3' }).parentSessionKey, 'p2');
    assert.equal(parseBody(sessionStartBody, { harness: 'h', parentKey: 'p1', parentId: 'p2' }).parentSessionKey, 'p1');
    const both = parseBody(sessionStartBody, { harness: 'h', parentSessionKey: ' p0 ', parentKey: 'p1' });
    assert.equal(both.parentSessionKey, 'p0');
    for (const alias of ['parentKey', 'parentId', 'parentID']) assert.equal(alias in both, false, alias);
  });

  it('prompts and ends: sessionKey wins over sessionId, both stripped', () => {
    assert.equal(parseBody(promptSubmitBody, { harness: 'h', sessionId: 'session:b' }).sessionKey, 'b');
    assert.equal(parseBody(sessionEndBody, { harness: 'h', sessionKey: 'session:a', sessionId: 'b' }).sessionKey, 'a');
  });

  it('a constraint names its session without the prefix; a run keeps its keys as given', () => {
    assert.equal(parseBody(addConstraintBody, { content: 'c', sessionKey: 'session:k' }).sessionKey, 'k');
    assert.equal(parseBody(runBody, { sessionKey: 'session:k' }).sessionKey, 'session:k');
  });

  it('the key rules still reject "." and ".." with or without the prefix', () => {
    for (const sessionKey of ['.', '..', 'session:.', 'session:..'])
      assert.throws(() => parseBody(sessionStartBody, { harness: 'h', sessionKey }), /sessionKey/);
  });

  it('limits are clamped once, by the schema: recall into 1..50, search into 1..20 (rounded toward zero)', () => {
    assert.equal(parseBody(recallBody, { harness: 'h', query: 'q', limit: 500 }).limit, 50);
    assert.equal(parseBody(recallBody, { harness: 'h', query: 'q', limit: -3 }).limit, 1);
    assert.equal(parseBody(recallBody, { harness: 'h', query: 'q' }).limit, undefined);
    assert.throws(() => parseBody(recallBody, { harness: 'h', query: 'q', limit: 2.5 }), /limit/);
    assert.equal(parseBody(searchBody, { query: 'q', limit: 7.9 }).limit, 7);
    assert.equal(parseBody(searchBody, { query: 'q', limit: 99 }).limit, 20);
    assert.equal(parseBody(searchBody, { query: 'q', limit: 0 }).limit, 1);
  });
});
