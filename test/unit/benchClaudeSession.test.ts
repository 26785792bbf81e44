// The transcript benchmark is only as good as its sessions: what bench/claudeSession.ts writes must
// be read by Baton as the Claude Code transcript it imitates, with its tool results kept.

import * as assert from 'node:assert/strict';
import { ClaudeSessionWriter } from '../../bench/claudeSession';
import { normalizeTranscript } from '../../src/harnesses/registry';

describe('bench: generated Claude Code sessions', () => {
  const generate = (seed: number, exchanges: number) => {
    const writer = new ClaudeSessionWriter('5f0c2a9e-8d1b-4c3e-9a7f-000000000001', '/home/dev/bench', seed);
    let raw = '';
    for (let i = 0; i < exchanges; i++) raw += writer.exchange();
    raw += writer.agentCall();
    return { raw, writer };
  };

  it('parses as Claude Code JSONL into prompts, answers, tool calls and tool results', () => {
    const { raw } = generate(7, 20);
    const lines = raw.trimEnd().split('\n');
    const records = lines.map((l) => JSON.parse(l) as { uuid: string; parentUuid: string | null; sessionId: string; timestamp: string });
    // One chain: every line names the line before it as its parent.
    records.forEach((r, i) => assert.equal(r.parentUuid, i === 0 ? null : records[i - 1].uuid));
    assert.equal(new Set(records.map((r) => r.uuid)).size, records.length);
    assert.ok(records.every((r) => r.sessionId === '5f0c2a9e-8d1b-4c3e-9a7f-000000000001' && !Number.isNaN(Date.parse(r.timestamp))));

    const turns = normalizeTranscript(raw, { harness: 'claude-code' });
    const roles = new Set(turns.map((t) => t.role));
    assert.deepEqual([...roles].sort(), ['assistant', 'tool', 'user']);
    assert.equal(turns.filter((t) => t.role === 'user').length, 20);
    // Tool results are a few KB; at least one tool turn carries a result that large.
    assert.ok(turns.some((t) => t.role === 'tool' && t.text.length > 1500));
    assert.ok(turns.some((t) => t.role === 'tool' && t.text.includes('Agent')));
  });

  it('is the same for the same seed and different for another', () => {
    assert.equal(generate(7, 3).raw, generate(7, 3).raw);
    assert.notEqual(generate(7, 3).raw, generate(8, 3).raw);
  });

  it('queries words the sessions contain', () => {
    const { raw, writer } = generate(7, 40);
    const words = new Set(
      normalizeTranscript(raw, { harness: 'claude-code' })
        .flatMap((t) => t.text.split(/[^\p{L}\p{N}]+/u))
        .filter(Boolean),
    );
    for (const query of writer.queryWords(1, 10)) for (const word of query.split(' ')) assert.ok(words.has(word), `"${word}" is a word of the session`);
  });
});
