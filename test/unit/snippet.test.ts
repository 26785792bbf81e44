import { strict as assert } from 'node:assert';
import { buildSnippet, foldWord } from '../../src/core/snippet';

const mark = { open: '[', close: ']' };

describe('buildSnippet', () => {
  it('marks every hit of a short text and keeps it whole', () => {
    assert.equal(buildSnippet('User: the trunk ports are open', { terms: ['trunk', 'ports'], ...mark }), 'User: the [trunk] [ports] are open');
  });

  it('cuts a long text around the densest cluster of distinct terms, with ellipses', () => {
    const filler = (n: number, w: string) => Array.from({ length: n }, () => w).join(' ');
    const text = `${filler(50, 'alpha')} trunk ${filler(50, 'beta')} trunk ports gamma ${filler(50, 'delta')}`;
    const out = buildSnippet(text, { terms: ['trunk', 'ports'], ...mark, words: 10 });
    assert.match(out, /^…/);
    assert.match(out, /…$/);
    assert.match(out, /\[trunk\] \[ports\]/);
    assert.equal(out.replace(/…/g, '').trim().split(' ').length, 10);
  });

  it('matches as the unicode61 tokenizer does: case and diacritics folded', () => {
    assert.equal(foldWord('Café'), 'cafe');
    assert.equal(buildSnippet('Un CAFÉ noir', { terms: ['cafe'], ...mark }), 'Un [CAFÉ] noir');
  });

  it('extends only prefix terms to longer words', () => {
    assert.equal(buildSnippet('deploy deployment', { terms: ['deploy'], ...mark }), '[deploy] deployment');
    assert.equal(buildSnippet('deploy deployment', { terms: ['deploy'], prefixTerms: ['deploy'], ...mark }), '[deploy] [deployment]');
  });

  it('starts at the beginning when nothing matches, and clips blobs and punctuation runs', () => {
    assert.equal(buildSnippet('nothing here matches', { terms: ['zebra'], ...mark }), 'nothing here matches');
    const blob = 'x'.repeat(5000);
    const out = buildSnippet(`key ${blob} ${'='.repeat(500)} end`, { terms: ['key'], ...mark });
    assert.ok(out.length < 200, `excerpt of ${out.length} chars`);
    assert.match(out, /^\[key\] x+…/);
  });

  it('collapses whitespace and survives empty or word-less text', () => {
    assert.equal(buildSnippet('a\n\n  b\tc', { terms: ['b'], ...mark }), 'a [b] c');
    assert.equal(buildSnippet('', { terms: ['b'], ...mark }), '');
    assert.equal(buildSnippet(' --- ', { terms: ['b'], ...mark }), '---');
  });
});
