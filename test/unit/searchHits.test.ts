// Search hits are written by one formatter; each surface's format gives the very lines it printed
// when each kept its own copy.

import { strict as assert } from 'node:assert';
import { formatHit, formatHits, hitFacts, HIT_FORMATS, markedExcerpt, type HitLike } from '../../src/core/searchHits';

const NOW = Date.parse('2026-03-01T12:00:00.000Z');

const titled: HitLike = {
  sessionKey: 'parent',
  title: 'Deploy plan',
  harness: 'claude-code',
  project: '/repo',
  updatedAt: '2026-03-01T11:55:00.000Z',
  turnSeq: 3,
  excerpt: 'uses blue-green with [[CANARY]]-88',
};
const bare: HitLike = { ...titled, sessionKey: 'other', title: null, project: null, turnSeq: 1, excerpt: 'a [[canary]] and a [[heron]]' };

describe('search hits (core/searchHits.ts)', () => {
  it('terminal (baton search): key, harness, time and project in columns, the excerpt indented below', () => {
    assert.equal(
      formatHits([titled, bare], HIT_FORMATS.terminal, NOW),
      'parent  claude-code  2026-03-01T11:55:00.000Z  /repo\n  uses blue-green with [[CANARY]]-88\n' +
        'other  claude-code  2026-03-01T11:55:00.000Z\n  a [[canary]] and a [[heron]]',
    );
  });

  it('the MCP and language-model tools: one line each, the title quoted after the key', () => {
    assert.equal(
      formatHit(titled, HIT_FORMATS.mcpTool, NOW),
      '- parent "Deploy plan" (claude-code, /repo, 2026-03-01T11:55:00.000Z): uses blue-green with [[CANARY]]-88',
    );
    assert.equal(formatHit(bare, HIT_FORMATS.mcpTool, NOW), '- other (claude-code, 2026-03-01T11:55:00.000Z): a [[canary]] and a [[heron]]');
    assert.equal(
      formatHit(titled, HIT_FORMATS.lmTool, NOW),
      'session parent "Deploy plan" (claude-code, updated 2026-03-01T11:55:00.000Z, turn 3): uses blue-green with [[CANARY]]-88',
    );
    assert.equal(
      formatHit(bare, HIT_FORMATS.lmTool, NOW),
      'session other (claude-code, updated 2026-03-01T11:55:00.000Z, turn 1): a [[canary]] and a [[heron]]',
    );
  });

  it('the chat participant: markdown with a linked key and bold hits, and a bare list for the model', () => {
    const link = (h: HitLike) => `[${h.sessionKey}](command:open?${h.turnSeq})`;
    assert.equal(
      formatHit(titled, { ...HIT_FORMATS.chat, key: link }, NOW),
      '- [parent](command:open?3) — “Deploy plan”, claude-code, 5m ago\n  > uses blue-green with **CANARY**-88',
    );
    assert.equal(formatHit(bare, { ...HIT_FORMATS.chat, key: link }, NOW), '- [other](command:open?1) — claude-code, 5m ago\n  > a **canary** and a **heron**');
    assert.equal(
      formatHits([titled, bare], HIT_FORMATS.chatContext, NOW),
      '- parent: uses blue-green with [[CANARY]]-88\n- other: a [[canary]] and a [[heron]]',
    );
  });

  it('plain text (the quick pick): guillemets for the marks, facts without the unknown ones', () => {
    assert.equal(markedExcerpt(bare.excerpt, 'guillemets'), 'a «canary» and a «heron»');
    assert.equal(markedExcerpt(bare.excerpt), bare.excerpt);
    assert.deepEqual(hitFacts(titled, ['harness', 'age', 'project'], NOW), ['claude-code', '5m ago', '/repo']);
    assert.deepEqual(hitFacts(bare, ['harness', 'age', 'project'], NOW), ['claude-code', '5m ago']);
  });
});
