// The parent's turns a child's task chooses from (src/store/queries.ts inheritSources and
// turnPool; docs/inheritance.md, "Choosing the parent's turns for the task"): read through the
// real store worker on disk, in the same read as the rest of the block's sources.

import { strict as assert } from 'node:assert';
import { Store } from '../../src/store/store';
import { DEFAULT_AGENT } from '../../src/core/agents';
import type { Turn } from '../../src/core/types';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';

const turns = (from: number, count: number): Turn[] =>
  Array.from({ length: count }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', text: `turn ${from + i}: ${'x'.repeat(90)}` }) as Turn);

describe('the parent turns of an inherited block, read from the store', function () {
  this.timeout(60_000);
  let store: Store;
  const writer = { agentId: DEFAULT_AGENT, admin: true };

  beforeEach(async () => {
    store = await Store.open({ dataDir: tempDir(), compactBytes: 1 << 30 });
    await store.write('recordTranscript', { key: 'p', harness: 'claude-code', project: '/p', turns: turns(1, 30) });
    await store.write('addCheckpoint', { key: 'p', digest: 'The first thirty turns.' });
    await store.write('recordTranscript', { key: 'p', turns: [...turns(1, 30), ...turns(31, 30)] });
  });
  afterEach(async () => store.close());
  after(cleanupTempDirs);

  it('reads the newest turns since the checkpoint within the turn bound, and counts those it left out', async () => {
    const src = (await store.read('inheritSources', { writer, parentKey: 'p', tailChars: 3000, turnPool: { maxTurns: 10, maxChars: 100_000 } }))!;
    assert.deepEqual(
      src.turns!.map((t) => t.seq),
      Array.from({ length: 10 }, (_, i) => 51 + i),
    );
    assert.ok(src.turns![0].text.startsWith('turn 51: '));
    assert.equal(src.turnsOmitted, 20, 'turns 31 to 50: after the checkpoint, before the pool');
    const session = (await store.read('getSession', { scope: 'all', key: 'p' }))!;
    assert.deepEqual(src.lastTurn, { seq: 60, at: session.updatedAt });
  });

  it('stops at the character bound, keeping the newest turns whole, and the end of a lone longer turn', async () => {
    const src = (await store.read('inheritSources', { writer, parentKey: 'p', tailChars: 3000, turnPool: { maxTurns: 200, maxChars: 980 } }))!;
    assert.deepEqual(
      src.turns!.map((t) => t.seq),
      [52, 53, 54, 55, 56, 57, 58, 59, 60],
    );
    assert.ok(src.turns!.reduce((n, t) => n + t.text.length, 0) <= 980);
    assert.equal(src.turnsOmitted, 21);
    const tiny = (await store.read('inheritSources', { writer, parentKey: 'p', tailChars: 3000, turnPool: { maxTurns: 200, maxChars: 40 } }))!;
    assert.equal(tiny.turns!.length, 1);
    assert.equal(tiny.turns![0].text, turns(60, 1)[0].text.slice(-40));
  });

  it('reads no turns without a task (no pool), and the same tail as before', async () => {
    const src = (await store.read('inheritSources', { writer, parentKey: 'p', tailChars: 3000 }))!;
    assert.equal(src.turns, undefined);
    assert.ok(src.tail.endsWith(`Assistant: turn 60: ${'x'.repeat(90)}`));
    assert.equal(src.lastTurn!.seq, 60);
  });
});
