// Spend per session (docs/storage.md, "Spend"): the usage turns carry is stored once per request,
// and each session's own and rolled-up tallies are kept in the same write. A parent's total is the
// sum of its own and its children's totals at every depth, including after a child moves to
// another parent, a parent recorded after its children, a reopened store and a replayed journal.

import { strict as assert } from 'node:assert';
import { Store } from '../../src/store/store';
import type { Turn } from '../../src/core/types';
import type { Spend, TurnUsage } from '../../src/core/spend';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';
import { MIGRATIONS } from '../../src/store/schema';
import { loadSqlJs } from '../../src/store/engine/sqljs';
import { registerFunctions } from '../../src/store/engine/engine';
import { writeSnapshot } from '../../src/store/engine/snapshot';
import { forgetStatements } from '../../src/store/db';
import { layout } from '../../src/node/paths';

const user = (text: string): Turn => ({ role: 'user', text });
let requests = 0;
function reply(text: string, over: Partial<TurnUsage> = {}): Turn {
  requests += 1;
  return {
    role: 'assistant',
    text,
    usage: {
      key: `msg_${requests}`,
      model: 'claude-sonnet-4-5-20250929',
      inputTokens: 10 * requests,
      outputTokens: 100 + requests,
      cacheReadTokens: 1000,
      cacheWriteTokens: 7,
      costUsd: null,
      ...over,
    },
  };
}

const tokens = (s: Spend | null) => (s ? [s.inputTokens, s.outputTokens, s.cacheReadTokens, s.cacheWriteTokens, s.requests] : null);
const sumOf = (...spends: Array<Spend | null>) =>
  spends.reduce<number[] | null>((acc, s) => {
    const t = tokens(s);
    if (!t) return acc;
    return acc ? acc.map((v, i) => v + t[i]) : t;
  }, null);

describe('spend per session (real store on disk)', function () {
  this.timeout(60_000);
  let dir: string;
  let store: Store;

  beforeEach(async () => {
    dir = tempDir();
    store = await Store.open({ dataDir: dir, compactBytes: 1 << 30 });
  });
  afterEach(async () => {
    await store.close();
  });
  after(cleanupTempDirs);

  const spendOf = async (key: string) => (await store.read('getSession', { scope: 'all', key }))!.spend;
  const start = (key: string, parent?: string) =>
    store.write('upsertSession', { key, harness: 'claude-code', ...(parent ? { parentSessionKey: parent, lineageSource: 'explicit' } : {}) });

  it('counts a request once however often its turns are read, and reports nothing (null) for a session without usage', async () => {
    await start('plain');
    await store.write('recordTranscript', { key: 'plain', turns: [user('hi'), { role: 'assistant', text: 'hello' }] });
    assert.deepEqual(await spendOf('plain'), { own: null, total: null });

    const first = reply('one');
    // One message split over two turns (text, then a tool call) carries the same usage twice.
    const toolPart: Turn = { role: 'tool', text: 'Read({"file":"a"})', usage: first.usage };
    const turns = [user('go'), first, toolPart];
    await store.write('recordTranscript', { key: 'a', harness: 'claude-code', turns });
    await store.write('recordTranscript', { key: 'a', turns }); // the same file read again
    const own = (await spendOf('a')).own!;
    assert.deepEqual(tokens(own), [first.usage!.inputTokens, first.usage!.outputTokens, 1000, 7, 1]);
    assert.deepEqual(own.models, ['claude-sonnet-4-5-20250929']);
    assert.equal(own.costBasis, 'estimated');
    const expected = (first.usage!.inputTokens * 3 + first.usage!.outputTokens * 15 + 1000 * 0.3 + 7 * 3.75) / 1e6;
    assert.ok(Math.abs(own.costUsd! - expected) <= 1e-6, `${own.costUsd} vs ${expected}`);
  });

  it("takes the larger output count when a message's lines disagree (a stream's later line counts all of it)", async () => {
    const early = reply('part one', { outputTokens: 40 });
    const late: Turn = { role: 'tool', text: 'Bash({"command":"ls"})', usage: { ...early.usage!, outputTokens: 90 } };
    await store.write('recordTranscript', { key: 'split', harness: 'claude-code', turns: [user('go'), early, late] });
    const own = (await spendOf('split')).own!;
    assert.equal(own.requests, 1);
    assert.equal(own.outputTokens, 90);
  });

  it('keeps a reported cost as reported, and leaves an unknown model without a price', async () => {
    await store.write('recordTranscript', { key: 'oc', harness: 'opencode', turns: [reply('x', { model: 'some-new-model', costUsd: 0.0123 })] });
    let own = (await spendOf('oc')).own!;
    assert.equal(own.costUsd, 0.0123);
    assert.equal(own.costBasis, 'reported');
    await store.write('recordTranscript', { key: 'unk', harness: 'opencode', turns: [reply('y', { model: 'some-new-model' })] });
    own = (await spendOf('unk')).own!;
    assert.equal(own.costUsd, null);
    assert.equal(own.costBasis, null);
    assert.equal(own.costComplete, false);
    assert.ok(own.inputTokens > 0);
  });

  it("rolls every descendant's spend up to each ancestor, and moves it when a child changes parent", async () => {
    await start('root');
    await start('other');
    await start('child', 'root');
    await start('grandchild', 'child');
    await store.write('recordTranscript', { key: 'root', turns: [user('r'), reply('r1')] });
    await store.write('recordTranscript', { key: 'other', turns: [user('o'), reply('o1')] });
    await store.write('recordTranscript', { key: 'child', turns: [user('c'), reply('c1'), reply('c2')] });
    await store.write('recordTranscript', { key: 'grandchild', turns: [user('g'), reply('g1', { model: 'gpt-5-codex' })] });

    const check = async () => {
      const [root, other, child, grand] = await Promise.all(['root', 'other', 'child', 'grandchild'].map(spendOf));
      assert.deepEqual(tokens(grand.total), tokens(grand.own));
      assert.deepEqual(tokens(child.total), sumOf(child.own, grand.total));
      const parentOfChild = (await store.read('getSession', { scope: 'all', key: 'child' }))!.parentSessionKey;
      if (parentOfChild === 'root') {
        assert.deepEqual(tokens(root.total), sumOf(root.own, child.total));
        assert.deepEqual(tokens(other.total), tokens(other.own));
      } else {
        assert.deepEqual(tokens(other.total), sumOf(other.own, child.total));
        assert.deepEqual(tokens(root.total), tokens(root.own));
      }
      return { root, other, child };
    };
    const before = await check();
    assert.deepEqual(before.root.total!.models.sort(), ['claude-sonnet-4-5-20250929', 'gpt-5-codex']);

    // The child moves to another parent (a session end naming its spawner does this).
    await store.write('updateSession', { key: 'child', set: { parentSessionKey: 'other', lineageSource: 'explicit' } });
    await check();
    // A grandchild's new request reaches the new ancestors only.
    await store.write('recordTranscript', { key: 'grandchild', turns: [user('g'), reply('g1b'), user('more'), reply('g2')] });
    await check();

    // Replaying the journal on a reopen rebuilds the same tallies.
    const kept = await Promise.all(['root', 'other', 'child', 'grandchild'].map(spendOf));
    await store.close();
    store = await Store.open({ dataDir: dir, compactBytes: 1 << 30 });
    assert.deepEqual(await Promise.all(['root', 'other', 'child', 'grandchild'].map(spendOf)), kept);
  });

  it('a parent recorded after its children starts with their spend', async () => {
    await start('late-child', 'late-parent');
    await store.write('recordTranscript', { key: 'late-child', turns: [user('c'), reply('c1')] });
    await start('late-parent');
    const [parent, child] = await Promise.all([spendOf('late-parent'), spendOf('late-child')]);
    assert.equal(parent.own, null);
    assert.deepEqual(tokens(parent.total), tokens(child.total));
  });

  it('a store from before spend (version 12) opens with migration 13: its sessions report nothing, then count what comes', async () => {
    await store.close();
    const SQL = await loadSqlJs();
    const old = new SQL.Database();
    registerFunctions(old);
    for (const migration of MIGRATIONS.filter((m) => m.version <= 12)) {
      old.exec(migration.sql);
      migration.after?.(old);
    }
    old.exec('PRAGMA user_version = 12');
    old.run("INSERT INTO agents (id, read_policy, created_at) VALUES ('default', 'shared', '2026-01-01T00:00:00.000Z')");
    for (const [key, parent] of [
      ['old-root', null],
      ['old-child', 'old-root'],
    ])
      old.run(
        "INSERT INTO sessions (agent_id, session_key, harness, parent_session_key, created_at, updated_at) VALUES ('default', ?, 'claude-code', ?, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')",
        [key, parent],
      );
    dir = tempDir();
    forgetStatements(old);
    writeSnapshot(layout(dir).snapshotDir, 0, old.export());
    old.close();

    store = await Store.open({ dataDir: dir, compactBytes: 1 << 30 });
    assert.ok(store.report.migrations.includes(13), `migrations applied: ${store.report.migrations.join(', ')}`);
    assert.deepEqual(await spendOf('old-root'), { own: null, total: null });
    await store.write('recordTranscript', { key: 'old-child', turns: [user('c'), reply('c1')] });
    const [root, child] = await Promise.all([spendOf('old-root'), spendOf('old-child')]);
    assert.equal(root.own, null);
    assert.deepEqual(tokens(root.total), tokens(child.own));
  });
});
