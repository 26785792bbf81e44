import { strict as assert } from 'node:assert';
import { turnHash } from '../../src/core/hash';
import {
  EMPTY_CURSOR,
  planTranscriptDelta,
  sourceFingerprint,
  withHash,
  type DeltaPlan,
  type HashedTurn,
  type TranscriptCursor,
} from '../../src/core/transcriptDelta';
import type { Turn } from '../../src/core/types';

const u = (text: string): Turn => ({ role: 'user', text });
const a = (text: string): Turn => ({ role: 'assistant', text });
const tool = (text: string): Turn => ({ role: 'tool', text });

/** A stored session as the store keeps it: hashed turns in order plus the source cursor. */
class SimulatedSession {
  turns: HashedTurn[] = [];
  cursor: TranscriptCursor = EMPTY_CURSOR;
  /** How many stored turns to hand the planner as recentStored (the store uses 16). */
  constructor(private readonly recentWindow = 16) {}

  record(incoming: Turn[], fromPayload: Turn[] = []): DeltaPlan {
    const before = this.turns.length;
    const plan = planTranscriptDelta({
      cursor: this.cursor,
      incoming,
      fromPayload,
      recentStored: this.turns.slice(-this.recentWindow).map((t) => ({ role: t.role, hash: t.hash })),
      isStored: (hash) => this.turns.some((t) => t.hash === hash),
    });
    this.turns.push(...plan.append);
    this.cursor = plan.cursor;
    assert.equal(this.turns.length, before + plan.append.length);
    return plan;
  }

  /** "u:text" / "a:text" shorthand of what is stored. */
  get shape(): string[] {
    return this.turns.map(short);
  }
}

const short = (t: Turn) => `${t.role[0]}:${t.text}`;
const shapes = (plan: DeltaPlan) => plan.append.map(short);

const chainOf = (turns: Turn[]): string => sourceFingerprint(turns);

const BASE: Turn[] = [u('fix the parser'), a('looking at parser.ts'), tool('read parser.ts'), a('fixed the off-by-one')];

describe('planTranscriptDelta', () => {
  it('withHash adds the role+text hash and keeps the turn', () => {
    const t = withHash({ role: 'user', text: 'hi', at: '2026-01-01T00:00:00Z' });
    assert.deepEqual(t, { role: 'user', text: 'hi', at: '2026-01-01T00:00:00Z', hash: turnHash('user', 'hi') });
    assert.notEqual(withHash(u('hi')).hash, withHash(a('hi')).hash);
  });

  it('first write appends every turn and moves the cursor to the end of the source', () => {
    const s = new SimulatedSession();
    const plan = s.record(BASE);
    assert.deepEqual(shapes(plan), ['u:fix the parser', 'a:looking at parser.ts', 't:read parser.ts', 'a:fixed the off-by-one']);
    assert.deepEqual(
      plan.append.map((t) => t.hash),
      BASE.map((t) => turnHash(t.role, t.text)),
    );
    assert.deepEqual(plan.cursor, { sourceTurns: 4, sourceHash: chainOf(BASE), pending: [] });
  });

  it('re-sending the same transcript appends nothing and keeps the cursor', () => {
    const s = new SimulatedSession();
    s.record(BASE);
    const cursor = s.cursor;
    const plan = s.record(BASE);
    assert.deepEqual(plan.append, []);
    assert.deepEqual(plan.cursor, cursor);
    assert.equal(s.turns.length, 4);
  });

  it('appending N new turns appends exactly those N', () => {
    const s = new SimulatedSession();
    s.record(BASE);
    const more = [u('now add a test'), a('added test/parser.test.ts'), tool('npm test: 12 passing')];
    const plan = s.record([...BASE, ...more]);
    assert.deepEqual(shapes(plan), ['u:now add a test', 'a:added test/parser.test.ts', 't:npm test: 12 passing']);
    assert.deepEqual(plan.cursor, { sourceTurns: 7, sourceHash: chainOf([...BASE, ...more]), pending: [] });
    assert.equal(s.turns.length, 7);
  });

  it('a turn repeated inside the new tail is kept both times (the continuing path does not dedupe)', () => {
    const s = new SimulatedSession();
    s.record(BASE);
    const plan = s.record([...BASE, u('continue'), a('ok'), u('continue'), a('ok')]);
    assert.deepEqual(shapes(plan), ['u:continue', 'a:ok', 'u:continue', 'a:ok']);
  });

  describe('payload turns and the pending mechanism', () => {
    it('a payload prompt missing from a lagging file is appended once, and not again when the file catches up', () => {
      const s = new SimulatedSession();
      s.record(BASE);
      const promptHash = turnHash('user', 'now add a test');

      // UserPromptSubmit: the file does not show the prompt yet.
      const p1 = s.record(BASE, [u('now add a test')]);
      assert.deepEqual(shapes(p1), ['u:now add a test']);
      assert.deepEqual(p1.cursor, { sourceTurns: 4, sourceHash: chainOf(BASE), pending: [promptHash] });

      // The same hook fires again before the file moves: not duplicated (the prompt is unanswered).
      const p2 = s.record(BASE, [u('now add a test')]);
      assert.deepEqual(p2.append, []);
      assert.deepEqual(p2.cursor.pending, [promptHash]);

      // The file catches up with the prompt and the answer: only the answer is new.
      const caughtUp = [...BASE, u('now add a test'), a('added a test')];
      const p3 = s.record(caughtUp);
      assert.deepEqual(shapes(p3), ['a:added a test']);
      assert.deepEqual(p3.cursor, { sourceTurns: 6, sourceHash: chainOf(caughtUp), pending: [] });

      assert.deepEqual(s.shape, [...BASE.map(short), 'u:now add a test', 'a:added a test']);
    });

    it('a payload last reply missing from a lagging file is appended once', () => {
      const s = new SimulatedSession();
      s.record([u('q1')]);
      const p1 = s.record([u('q1')], [a('r1')]);
      assert.deepEqual(shapes(p1), ['a:r1']);
      assert.deepEqual(p1.cursor.pending, [turnHash('assistant', 'r1')]);
      const p2 = s.record([u('q1'), a('r1')]);
      assert.deepEqual(p2.append, []);
      assert.deepEqual(p2.cursor.pending, []);
      assert.deepEqual(s.shape, ['u:q1', 'a:r1']);
    });

    it('a payload prompt the file already shows (unanswered) is not duplicated', () => {
      const s = new SimulatedSession();
      const plan = s.record([u('q1'), a('r1'), u('q2')], [u('q2')]);
      assert.deepEqual(shapes(plan), ['u:q1', 'a:r1', 'u:q2']);
      assert.deepEqual(plan.cursor.pending, []);
    });

    it('a user repeating the same prompt ("continue") in a new exchange is kept', () => {
      const s = new SimulatedSession();
      s.record([u('continue'), a('step 1 done')]);

      // The user says "continue" again; the file lags.
      const p1 = s.record([u('continue'), a('step 1 done')], [u('continue')]);
      assert.deepEqual(shapes(p1), ['u:continue']);

      // The file catches up: the second "continue" was already stored from the payload, only the reply is new.
      const p2 = s.record([u('continue'), a('step 1 done'), u('continue'), a('step 2 done')]);
      assert.deepEqual(shapes(p2), ['a:step 2 done']);
      assert.deepEqual(s.shape, ['u:continue', 'a:step 1 done', 'u:continue', 'a:step 2 done']);
      assert.deepEqual(s.cursor.pending, []);
    });

    it('a repeated prompt with no file at all is stored once per exchange', () => {
      const s = new SimulatedSession();
      s.record([], [u('continue')]);
      s.record([], [u('continue')]); // same exchange, still unanswered
      s.record([], [a('did it')]);
      s.record([], [a('did it')]); // already in the current exchange
      s.record([], [u('continue')]); // new exchange
      assert.deepEqual(s.shape, ['u:continue', 'a:did it', 'u:continue']);
    });

    it('lastAssistantMessage already in the current exchange is not duplicated', () => {
      const s = new SimulatedSession();
      s.record([u('q1'), a('r1'), u('q2'), tool('ran ls'), a('r2')]);
      const plan = s.record([u('q1'), a('r1'), u('q2'), tool('ran ls'), a('r2')], [a('r2')]);
      assert.deepEqual(plan.append, []);
      assert.deepEqual(plan.cursor.pending, []);
    });

    it('an assistant text from an earlier exchange is appended again in a new exchange', () => {
      const s = new SimulatedSession();
      s.record([u('q1'), a('done'), u('q2')]);
      const plan = s.record([u('q1'), a('done'), u('q2')], [a('done')]);
      assert.deepEqual(shapes(plan), ['a:done']);
    });

    it('payload turns with only whitespace are ignored', () => {
      const s = new SimulatedSession();
      s.record([u('q1')]);
      const plan = s.record([u('q1')], [a('   \n'), u('')]);
      assert.deepEqual(plan.append, []);
      assert.deepEqual(plan.cursor.pending, []);
    });

    it('keeps at most the 16 newest pending hashes', () => {
      const s = new SimulatedSession();
      for (let i = 0; i < 20; i++) s.record([], [u(`prompt ${i}`)]);
      assert.equal(s.turns.length, 20);
      assert.deepEqual(
        s.cursor.pending,
        Array.from({ length: 16 }, (_, i) => turnHash('user', `prompt ${i + 4}`)),
      );
    });
  });

  it('a shorter lagging source appends nothing and does not move the cursor back', () => {
    const s = new SimulatedSession();
    const full = [...BASE, u('more'), a('sure')];
    s.record(full);
    const cursor = s.cursor;
    const plan = s.record(BASE);
    assert.deepEqual(plan.append, []);
    assert.deepEqual(plan.cursor, cursor);
    assert.equal(plan.cursor.sourceTurns, 6);
    // The full source keeps continuing from where it was.
    const next = s.record([...full, u('last')]);
    assert.deepEqual(shapes(next), ['u:last']);
    assert.equal(next.cursor.sourceTurns, 7);
  });

  it('a rewritten source appends only turns not stored (by hash) and never removes anything', () => {
    const s = new SimulatedSession();
    s.record(BASE);
    const storedBefore = s.turns.map((t) => ({ ...t }));
    // The harness rewrote its file: one earlier turn changed, one dropped, and one new turn at the end.
    const rewritten = [u('fix the parser'), a('looking at parser.ts (edited)'), a('fixed the off-by-one'), u('thanks')];
    const plan = s.record(rewritten);
    assert.deepEqual(shapes(plan), ['a:looking at parser.ts (edited)', 'u:thanks']);
    assert.deepEqual(plan.cursor, { sourceTurns: 4, sourceHash: chainOf(rewritten), pending: [] });
    // Everything stored before is still there, in place.
    assert.deepEqual(s.turns.slice(0, 4), storedBefore);
    assert.equal(s.turns.length, 6);
    // The rewritten source now continues normally.
    const again = s.record([...rewritten, a('you are welcome')]);
    assert.deepEqual(shapes(again), ['a:you are welcome']);
  });

  it('a rewritten source holding a new turn twice appends it once', () => {
    const s = new SimulatedSession();
    s.record([u('a'), a('b')]);
    const plan = s.record([u('x'), a('new'), a('new')]);
    assert.deepEqual(shapes(plan), ['u:x', 'a:new']);
  });

  it('an empty incoming list with an empty payload appends nothing and keeps the cursor', () => {
    const s = new SimulatedSession();
    s.record(BASE, [u('pending prompt')]);
    const cursor = s.cursor;
    const plan = s.record([], []);
    assert.deepEqual(plan.append, []);
    assert.deepEqual(plan.cursor, cursor);
    assert.equal(plan.cursor.sourceTurns, 4);
  });

  it('an empty incoming list on a fresh session appends nothing', () => {
    const plan = planTranscriptDelta({ cursor: EMPTY_CURSOR, incoming: [], fromPayload: [], recentStored: [], isStored: () => false });
    assert.deepEqual(plan, { append: [], cursor: { sourceTurns: 0, sourceHash: '', pending: [] }, sourceChars: null, byHash: false });
  });

  it('a continuation (only the turns after the cursor) plans exactly what the whole source plans', () => {
    const source: Turn[] = [
      { role: 'user', text: 'first question' },
      { role: 'assistant', text: 'first answer' },
      { role: 'user', text: 'second question' },
      { role: 'assistant', text: 'second answer' },
    ];
    const base = { fromPayload: [{ role: 'user' as const, text: 'third question' }], recentStored: [], isStored: () => false };
    const first = planTranscriptDelta({ ...base, cursor: EMPTY_CURSOR, incoming: source.slice(0, 2) });
    const whole = planTranscriptDelta({ ...base, cursor: first.cursor, incoming: source });
    const tail = planTranscriptDelta({ ...base, cursor: first.cursor, incoming: source.slice(2), continuation: { sourceChars: first.sourceChars! } });
    assert.deepEqual(tail, whole);
    assert.equal(whole.byHash, false);
  });

  it('does not mutate the cursor it was given', () => {
    const cursor: TranscriptCursor = { sourceTurns: 0, sourceHash: '', pending: ['abc'] };
    const plan = planTranscriptDelta({ cursor, incoming: [u('x')], fromPayload: [a('y')], recentStored: [], isStored: () => false });
    assert.deepEqual(cursor, { sourceTurns: 0, sourceHash: '', pending: ['abc'] });
    assert.deepEqual(plan.cursor.pending, ['abc', turnHash('assistant', 'y')]);
    assert.deepEqual(EMPTY_CURSOR, { sourceTurns: 0, sourceHash: '', pending: [] });
  });

  it('switching between an inline transcript and a longer file stores nothing twice', () => {
    const s = new SimulatedSession();
    // Inline transcript with the last two turns only.
    s.record([u('q2'), a('r2')]);
    // The file has the whole history.
    const plan = s.record([u('q1'), a('r1'), u('q2'), a('r2'), u('q3')]);
    assert.deepEqual(shapes(plan), ['u:q1', 'a:r1', 'u:q3']);
    assert.equal(new Set(s.turns.map((t) => t.hash)).size, s.turns.length);
  });

  // When the payload gives both the prompt and the reply and the file already shows that exchange,
  // the prompt must not count as a new "answered" prompt: that once stored the whole exchange twice.
  it('a payload [prompt, reply] the file already shows is not stored again', () => {
    const s = new SimulatedSession();
    const plan = s.record([u('q'), a('r')], [u('q'), a('r')]);
    assert.deepEqual(shapes(plan), ['u:q', 'a:r']);
  });

  // A pending hash must be consumed on the rewritten-source path too. Consumed only on the continuing
  // path, a payload prompt skipped as "already stored" stayed pending and later swallowed a genuine
  // repeat of the same prompt from the file.
  it('a stale pending hash does not swallow a later repeat of the prompt', () => {
    const s = new SimulatedSession();
    s.record([u('hi'), a('hello')]);
    s.record([u('hi'), a('hello')], [u('continue')]);
    s.record([u('hi'), a('hello!'), u('continue'), a('ok')]); // rewritten source
    s.record([u('hi'), a('hello!'), u('continue'), a('ok'), u('continue'), a('done')]);
    assert.deepEqual(s.shape, ['u:hi', 'a:hello', 'u:continue', 'a:hello!', 'a:ok', 'u:continue', 'a:done']);
  });
});
