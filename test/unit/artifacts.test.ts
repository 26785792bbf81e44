// File names of session artifacts (src/core/artifacts.ts): plain names stay readable, anything
// else becomes a token that cannot name another folder and that two values never share.

import { strict as assert } from 'node:assert';
import { artifactFileName, fileToken, transcriptJsonl } from '../../src/core/artifacts';

describe('session artifact names', () => {
  it('keeps plain names and escapes everything else into one safe path segment', () => {
    assert.equal(fileToken('default'), 'default');
    assert.equal(fileToken('claude-code'), 'claude-code');
    assert.equal(fileToken('main_3.v2'), 'main_3.v2');
    const hostile = ['.', '..', '../..', 'a/b', 'a\\b', '/abs', '', ' ', 'x--y', '.hidden', '-dash', 'é', 'a'.repeat(65), 'nul\u0000byte', 'C:evil'];
    for (const value of hostile) {
      const token = fileToken(value);
      assert.match(token, /^[A-Za-z0-9_][A-Za-z0-9_-]*-[0-9a-f]{14}$/, `${JSON.stringify(value)} -> ${token}`);
      assert.ok(!token.includes('--'), token);
    }
  });

  it('never gives two values the same token, even when one looks like the other escaped', () => {
    const values = ['a/b', 'a_b', 'a b', 'a..b', 'A/B', '6f1c2d3e-aaaa-bbbb-cccc-0123456789ab', 'k', 'k/'];
    values.push(fileToken('a/b'), fileToken('k/'));
    const tokens = values.map(fileToken);
    assert.equal(new Set(tokens).size, values.length, tokens.join(' '));
  });

  it('names immutable artifacts by capture time, session and kind, and writes one JSON line per turn', () => {
    assert.equal(artifactFileName('2026-11-27T03:19:50.123Z', 's1', 'summary'), '2026-11-27T03-19-50-123Z--s1--summary.md');
    const text = transcriptJsonl('k', [
      { seq: 1, role: 'user', text: 'line one\nline two', at: null },
      { seq: 2, role: 'assistant', text: 'ok', at: '2026-01-01T00:00:00Z' },
    ]);
    const lines = text.split('\n');
    assert.equal(lines.length, 3);
    assert.equal(lines[2], '');
    assert.deepEqual(JSON.parse(lines[0]), { session_key: 'k', seq: 1, role: 'user', text: 'line one\nline two', at: null });
  });
});
