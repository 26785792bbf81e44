// Choosing the parent's turns for a child's task (src/core/turnSelection.ts, src/core/inherit.ts;
// docs/inheritance.md, "Choosing the parent's turns for the task"): pure functions, no store.

import { strict as assert } from 'node:assert';
import { renderTurn } from '../../src/core/normalize';
import { assembleInheritBlock, cutTail, TASK_CONTEXT_LABEL, type InheritSources } from '../../src/core/inherit';
import { excerptAround, gapMarker, selectTurns, type ParentTurn } from '../../src/core/turnSelection';

const EARLY_FACT = 'The JWT clock skew tolerance is 30 seconds, set in src/auth/verify.ts; tokens from the mobile app arrive up to 20 s early.';

/** A parent of 40 turns: an early turn states the fact, then long unrelated work on the CSV export. */
function parentTurns(): ParentTurn[] {
  const turns: ParentTurn[] = [
    { seq: 1, role: 'user', text: 'Users get logged out at random after the last deploy. Look at the auth service.' },
    { seq: 2, role: 'assistant', text: 'Reading src/auth/verify.ts and the session middleware.' },
    { seq: 3, role: 'assistant', text: EARLY_FACT },
  ];
  for (let seq = 4; seq <= 40; seq++) {
    turns.push({
      seq,
      role: seq % 2 ? 'assistant' : 'user',
      text: `Step ${seq} of the invoice CSV export: column ${seq} is formatted with the locale's decimal separator and padded to width ${seq + 8}.`,
    });
  }
  return turns;
}

/** What the store gives the block: the tail string as transcriptTail renders it, and the same turns. */
function sources(turns: ParentTurn[], tailChars: number, extra: Partial<InheritSources> = {}): InheritSources {
  const whole = turns.map((t) => renderTurn({ role: t.role, text: t.text })).join('\n');
  return {
    parentKey: 'parent-1',
    title: 'Fix random logouts, then the CSV export',
    harness: 'claude-code',
    checkpoint: null,
    tail: whole.length > tailChars ? whole.slice(whole.length - tailChars) : whole,
    tailTruncated: whole.length > tailChars,
    constraints: [{ entity: 'rules', content: 'Never log raw tokens.', source: 'user', importance: 0.9, recency: 1 }],
    focalEntities: [],
    turns,
    turnsOmitted: 0,
    ...extra,
  };
}

const SETTINGS = { inheritContext: true, tailChars: 1500, maxTokens: 2000 };

describe('turn selection: the parent turns a child with a task inherits', () => {
  it('gives the child the early turn its task needs, which the newest part alone cuts', () => {
    const turns = parentTurns();
    const withoutTask = assembleInheritBlock(sources(turns, 1500), SETTINGS)!;
    assert.ok(!withoutTask.text.includes('clock skew'), 'the recency tail does not reach turn 3');
    const withTask = assembleInheritBlock(sources(turns, 1500, { task: 'Investigate the JWT clock skew that logs mobile users out' }), SETTINGS)!;
    assert.ok(withTask.text.includes(EARLY_FACT), withTask.text);
    assert.ok(withTask.text.includes(TASK_CONTEXT_LABEL));
    assert.ok(withTask.selection!.relevant.includes(3));
    // The newest turn is still there: relevance is added to recency, not put in its place.
    assert.ok(withTask.text.includes('Step 40 of the invoice CSV export'));
  });

  it('breaks a tie of relevance in favour of the newer turn', () => {
    const turns: ParentTurn[] = [];
    for (let seq = 1; seq <= 30; seq++) turns.push({ seq, role: 'assistant', text: `Unrelated note number ${seq} about padding widths in the export.` });
    // Turns 5 and 18 say the same about the task; there is room for one of them only.
    turns[4] = { seq: 5, role: 'tool', text: 'migration 0042 failed: duplicate key on invoices.number' };
    turns[17] = { seq: 18, role: 'tool', text: 'migration 0042 failed: duplicate key on invoices.number' };
    const picked = selectTurns(turns, 'why did migration 0042 fail', 150, { rule: { recentShare: 0, excerptChars: 600 } })!;
    assert.deepEqual(picked.relevant, [18]);
    assert.ok(!picked.seqs.includes(5));
  });

  it('without a task (or a task of stop words only) keeps the block byte for byte as the newest part of the parent', () => {
    const turns = parentTurns();
    const today = assembleInheritBlock({ ...sources(turns, 1500), turns: undefined, turnsOmitted: undefined }, SETTINGS)!;
    assert.equal(assembleInheritBlock(sources(turns, 1500), SETTINGS)!.text, today.text);
    assert.equal(assembleInheritBlock(sources(turns, 1500, { task: 'ok, do it please' }), SETTINGS)!.text, today.text);
    assert.equal(today.sections.recentContext, cutTail(sources(turns, 1500).tail, today.sections.recentContext!.length + 20));
    assert.equal(today.selection, null);
  });

  it('a parent of one short turn still hands it to a child whose task does not name it', () => {
    const turns: ParentTurn[] = [{ seq: 1, role: 'user', text: 'Parent context PARENT-MARK-77' }];
    const block = assembleInheritBlock(sources(turns, 3000, { task: 'List the TODOs' }), SETTINGS)!;
    assert.ok(block.text.includes('User: Parent context PARENT-MARK-77'), String(block?.text));
  });

  it('stays within the room it is given, and the block within its budget', () => {
    const turns = parentTurns();
    for (const max of [90, 200, 500, 999, 1500, 4000]) {
      const picked = selectTurns(turns, 'JWT clock skew on mobile', max);
      if (picked) assert.ok(picked.text.length <= max, `${picked.text.length} > ${max}`);
    }
    for (const maxTokens of [150, 300, 600, 2000]) {
      const block = assembleInheritBlock(sources(turns, 3000, { task: 'JWT clock skew on mobile' }), { ...SETTINGS, tailChars: 3000, maxTokens })!;
      assert.ok(block.estimatedTokens <= maxTokens, `${block.estimatedTokens} > ${maxTokens}`);
    }
  });

  it('shows the turns in transcript order with a marker for each gap', () => {
    const picked = selectTurns(parentTurns(), 'JWT clock skew on mobile', 900)!;
    const lines = picked.text.split('\n');
    assert.equal(lines[0], gapMarker(2));
    assert.ok(lines[1].startsWith('Assistant: The JWT clock skew'));
    assert.match(lines[2], /^\[… \d+ turns left out …\]$/);
    assert.deepEqual(
      picked.seqs,
      [...picked.seqs].sort((a, b) => a - b),
    );
    assert.equal(picked.seqs[picked.seqs.length - 1], 40);
    // Turns before the pool (a bounded read) count in the first gap.
    assert.equal(selectTurns(parentTurns(), 'JWT clock skew on mobile', 900, { omittedBefore: 10 })!.text.split('\n')[0], gapMarker(12));
  });

  it('cuts a long relevant turn around its matching words', () => {
    const log = [...Array(80).keys()].map((i) => `ok   test/export/case${i}.test.ts`).join('\n');
    const text = `${log}\nFAIL test/auth/refresh.test.ts: refresh token rotated twice under concurrent requests\n${log}`;
    const turns: ParentTurn[] = [
      { seq: 1, role: 'tool', text },
      ...[2, 3, 4].map((seq) => ({ seq, role: 'assistant' as const, text: `Formatting column ${seq} of the export.` })),
    ];
    const picked = selectTurns(turns, 'the refresh token rotation failure', 800)!;
    const shown = picked.text.split('\n').filter((line) => line.includes('refresh token rotated'));
    assert.equal(shown.length, 1);
    assert.ok(picked.text.includes('[…] '), picked.text);
    assert.ok(picked.text.length <= 800);
    assert.ok(excerptAround(renderTurn({ role: 'tool', text }), ['refresh', 'token'], 300).length <= 300);
  });

  it('stamps the block with the parent turn it was taken at, the same bytes for the same inputs', () => {
    const src = sources(parentTurns(), 1500, { task: 'JWT clock skew', lastTurn: { seq: 42, at: '2026-11-28T10:15:00.000Z' } });
    const block = assembleInheritBlock(src, SETTINGS)!;
    assert.equal(block.text.split('\n')[3], 'Taken at turn 42 of the parent (2026-11-28T10:15:00.000Z)');
    assert.equal(assembleInheritBlock(structuredClone(src), SETTINGS)!.text, block.text);
    const routing = assembleInheritBlock(src, { ...SETTINGS, profile: 'routing' })!;
    assert.ok(routing.text.includes('Taken at turn 42 of the parent'));
  });
});
