// The store's behaviour through its real worker and real sql.js on a temp directory.

import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import { listJournalFiles, readJournalFile } from '../../src/store/engine/journal';
import { layout } from '../../src/node/paths';
import type { StoreRecord } from '../../src/store/records';
import { Store } from '../../src/store/store';
import { listSnapshots, readSnapshot } from '../../src/store/engine/snapshot';
import { loadSqlJs } from '../../src/store/engine/sqljs';
import { unindexedTurns } from '../../src/store/searchIndex';
import type { Turn } from '../../src/core/types';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';

const user = (text: string): Turn => ({ role: 'user', text });
const assistant = (text: string): Turn => ({ role: 'assistant', text });

function journalFrames(dir: string) {
  return listJournalFiles(layout(dir).journalDir).flatMap((f) => readJournalFile<StoreRecord>(f.path).frames);
}

describe('store (real sql.js worker on disk)', function () {
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

  describe('transcripts as deltas', () => {
    it('appends only new turns, stores nothing for a re-sent transcript, keeps created_at and refreshes updated_at', async () => {
      const first = await store.write('recordTranscript', { key: 'k', harness: 'claude-code', project: '/p', turns: [user('hello'), assistant('hi there')] });
      assert.deepEqual(first, { appended: 2, turnCount: 2, charCount: 'User: hello\n'.length + 'Assistant: hi there\n'.length });
      const created = (await store.read('getSession', { scope: 'all', key: 'k' }))!;
      const framesBefore = journalFrames(dir).length;
      await new Promise((r) => setTimeout(r, 5));

      const again = await store.write('recordTranscript', { key: 'k', turns: [user('hello'), assistant('hi there')] });
      assert.equal(again.appended, 0);
      assert.equal(journalFrames(dir).length, framesBefore, 're-sending a stored transcript must write nothing');

      const more = await store.write('recordTranscript', { key: 'k', turns: [user('hello'), assistant('hi there'), user('next question')] });
      assert.equal(more.appended, 1);
      const after = (await store.read('getSession', { scope: 'all', key: 'k' }))!;
      assert.equal(after.createdAt, created.createdAt);
      assert.ok(after.updatedAt > created.updatedAt, 'updated_at is refreshed');
      assert.equal((await store.read('transcript', { scope: 'all', key: 'session:k' })).content, 'User: hello\nAssistant: hi there\nUser: next question');
    });

    it("finds the newest of several agents' sessions with one key, and an isolated agent's only for that agent", async () => {
      const tick = () => new Promise((r) => setTimeout(r, 5));
      await store.write('ensureAgent', { agentId: 'carol', readPolicy: 'isolated' });
      await store.write('recordTranscript', { agentId: 'alice', key: 'shared-key', turns: [user('from alice')] });
      await tick();
      await store.write('recordTranscript', { agentId: 'bob', key: 'shared-key', turns: [user('from bob')] });
      await tick();
      await store.write('recordTranscript', { agentId: 'carol', key: 'shared-key', turns: [user('from carol')] });
      const owner = async (scope: 'all' | { agentId: string }) => (await store.read('getSession', { scope, key: 'shared-key' }))?.agentId;
      assert.equal(await owner('all'), 'carol');
      assert.equal(await owner({ agentId: 'dave' }), 'bob', "carol's isolated session is invisible to others; bob's is the newest shared one");
      assert.equal(await owner({ agentId: 'carol' }), 'carol');
      await tick();
      await store.write('recordTranscript', { agentId: 'alice', key: 'shared-key', turns: [user('from alice'), assistant('alice again')] });
      assert.equal(await owner({ agentId: 'dave' }), 'alice', 'a write makes that session the newest');
      assert.equal((await store.read('transcript', { scope: { agentId: 'dave' }, key: 'shared-key' })).content, 'User: from alice\nAssistant: alice again');
    });

    it('never shrinks: a shorter or rewritten source keeps every stored turn and adds only unseen ones', async () => {
      await store.write('recordTranscript', { key: 'k', turns: [user('a'), assistant('b'), user('c')] });
      const shorter = await store.write('recordTranscript', { key: 'k', turns: [user('a')] });
      assert.equal(shorter.appended, 0);
      const rewritten = await store.write('recordTranscript', { key: 'k', turns: [user('a'), assistant('B!'), user('c'), assistant('d')] });
      assert.equal(rewritten.appended, 2);
      assert.equal((await store.read('transcript', { scope: 'all', key: 'k' })).content, 'User: a\nAssistant: b\nUser: c\nAssistant: B!\nAssistant: d');
    });

    it('uses the payload prompt when the file lags, and does not store it twice when the file catches up', async () => {
      await store.write('recordTranscript', { key: 'k', turns: [user('first'), assistant('one')], fromPayload: [user('second')] });
      await store.write('recordTranscript', {
        key: 'k',
        turns: [user('first'), assistant('one'), user('second'), assistant('two')],
        fromPayload: [assistant('two')],
      });
      assert.equal((await store.read('transcript', { scope: 'all', key: 'k' })).content, 'User: first\nAssistant: one\nUser: second\nAssistant: two');
    });

    it('costs the same to append at turn 1 and at turn 1,000: same journal frame size, only the newest segment rewritten', async () => {
      const turns: Turn[] = [];
      for (let i = 1; i <= 1000; i++) {
        turns.push(i % 2 ? user(`question number ${i} ` + 'x'.repeat(180)) : assistant(`answer number ${i} ` + 'y'.repeat(180)));
        await store.write('recordTranscript', { key: 'long', turns });
      }
      const frames = journalFrames(dir).filter((f) => f.records.some((r) => r.t === 'turns'));
      assert.equal(frames.length, 1000);
      const size = (f: (typeof frames)[number]) => JSON.stringify(f.records.filter((r) => r.t === 'turns')).length;
      const early = size(frames[2]);
      const late = size(frames[999]);
      assert.ok(Math.abs(late - early) <= 16, `journal frame at turn 1000 (${late} B) should match turn 3 (${early} B)`);
      for (const frame of frames) {
        const rec = frame.records.find((r) => r.t === 'turns')!;
        assert.equal(rec.t === 'turns' && rec.turns.length, 1, 'each call journals exactly its one new turn');
      }
      // Segments are bounded: ~200 KB of text spread over ~13 segments of at most 16 KB.
      const page = await store.read('turns', { scope: 'all', key: 'long', from: 995, limit: 10 });
      assert.deepEqual(
        page.turns.map((t) => t.seq),
        [995, 996, 997, 998, 999, 1000],
      );
      assert.match(page.turns[5].text, /^answer number 1000 y+$/);
      const stats = await store.read('stats', {});
      assert.ok(stats.segments >= 12 && stats.segments <= 14, `segments: ${stats.segments}`);
    });

    it('keeps every turn of one write that fills and seals several segments (a long transcript seen for the first time)', async () => {
      const turns = Array.from({ length: 40 }, (_, i) => (i % 2 ? assistant : user)(`part ${i + 1} 🚀 marker${i + 1}q ` + `line${i} `.repeat(300)));
      const written = await store.write('recordTranscript', { key: 'bulk', harness: 'claude-code', turns });
      assert.equal(written.appended, 40);
      const expected = turns.map((t) => `${t.role === 'user' ? 'User' : 'Assistant'}: ${t.text}`).join('\n');
      assert.equal((await store.read('transcript', { scope: 'all', key: 'bulk' })).content, expected);
      const page = await store.read('turns', { scope: 'all', key: 'bulk', from: 1, limit: 100 });
      assert.deepEqual(
        page.turns.map((t) => t.text),
        turns.map((t) => t.text),
      );
      for (const i of [1, 8, 9, 40]) assert.equal((await store.read('search', { scope: 'all', query: `marker${i}q` }))[0]?.turnSeq, i, `marker${i}q`);
      await store.close();
      store = await Store.open({ dataDir: dir, compactBytes: 1 << 30 });
      assert.equal((await store.read('transcript', { scope: 'all', key: 'bulk' })).content, expected, 'the same after a snapshot and reopen');
    });

    it('seals full segments deflated, and reads them back exactly: content, turns, tail, search excerpts, unicode offsets', async () => {
      const turns: Turn[] = [];
      for (let i = 1; i <= 60; i++) {
        // Multi-byte and astral characters: the turn offsets are UTF-16, the sealed bytes UTF-8.
        const text = `turn ${i} ünïcødé 日本語 🚀 beacon${i}x ` + `filler${i} `.repeat(200);
        turns.push(i % 2 ? user(text) : assistant(text));
        await store.write('recordTranscript', { key: 'sealed', harness: 'claude-code', project: '/p', turns: [...turns] });
      }
      const expected = turns.map((t) => `${t.role === 'user' ? 'User' : 'Assistant'}: ${t.text}`).join('\n');
      assert.equal((await store.read('transcript', { scope: 'all', key: 'sealed' })).content, expected);
      const page = await store.read('turns', { scope: 'all', key: 'sealed', from: 1, limit: 100 });
      assert.deepEqual(
        page.turns.map((t) => t.text),
        turns.map((t) => t.text),
      );
      assert.equal(await store.read('tail', { scope: 'all', key: 'sealed', chars: 5000 }), expected.slice(-5000));
      for (const i of [1, 7, 30, 60]) {
        const hits = await store.read('search', { scope: 'all', query: `beacon${i}x` });
        assert.equal(hits.length, 1);
        assert.equal(hits[0].turnSeq, i);
        assert.match(hits[0].excerpt, new RegExp(`日本語 🚀 \\[\\[beacon${i}x\\]\\] filler${i}`));
      }

      await store.close();
      const SQL = await loadSqlJs();
      const db = new SQL.Database(readSnapshot(listSnapshots(layout(dir).snapshotDir)[0].path).image);
      const kinds = db.exec('SELECT typeof(text), COUNT(*), SUM(length(CAST(text AS BLOB))) FROM transcript_segments GROUP BY 1 ORDER BY 1')[0].values;
      db.close();
      const sealed = kinds.find((k) => k[0] === 'blob');
      const open = kinds.find((k) => k[0] === 'text');
      assert.ok(sealed && Number(sealed[1]) >= 5, `sealed segments: ${JSON.stringify(kinds)}`);
      assert.equal(open?.[1], 1, 'only the newest segment stays plain text');
      const plainBytes = Buffer.byteLength(expected);
      assert.ok(Number(sealed[2]) < plainBytes / 3, `sealed ${sealed[2]} bytes of ${plainBytes}`); // repetitive text deflates well
    });
  });

  describe('reads', () => {
    it('indexes turns off the write path, yet a search right after a write finds it and a snapshot carries the whole index', async () => {
      for (let i = 0; i < 40; i++)
        await store.write('recordTranscript', {
          key: `s${i % 4}`,
          turns: Array.from({ length: Math.floor(i / 4) + 1 }, (_, k) => user(`turn ${k} of s${i % 4} word${k}x${i % 4}`)),
        });
      const hits = await store.read('search', { scope: 'all', query: 'word9x3' });
      assert.deepEqual(
        hits.map((h) => h.sessionKey),
        ['s3'],
      );
      assert.equal(hits[0].turnSeq, 10);
      await store.snapshot();
      const newest = listSnapshots(layout(dir).snapshotDir)[0];
      const SQL = await loadSqlJs();
      const db = new SQL.Database(readSnapshot(newest.path).image);
      try {
        assert.equal(unindexedTurns(db), 0);
        const shards = db.exec('SELECT id FROM index_shards')[0].values.map((r) => Number(r[0]));
        const indexed = shards.reduce((sum, id) => sum + Number(db.exec(`SELECT COUNT(*) FROM transcript_fts_${id}_docsize`)[0].values[0][0]), 0);
        assert.equal(indexed, db.exec('SELECT COUNT(*) FROM transcript_turns')[0].values[0][0]);
      } finally {
        db.close();
      }
    });

    it('answers a write queued behind many searches before the searches, and the searches see it', async () => {
      await store.write('recordTranscript', { key: 'k', turns: [user('heron colony survey')] });
      const order: string[] = [];
      const searches = Array.from({ length: 20 }, (_, i) =>
        store.read('search', { scope: 'all', query: 'heron' }).then((hits) => {
          order.push(`search${i}`);
          return hits;
        }),
      );
      const write = store.write('recordTranscript', { key: 'k2', turns: [user('heron eggs counted')] }).then(() => order.push('write'));
      const results = await Promise.all(searches);
      await write;
      assert.ok(order.indexOf('write') < order.indexOf('search19'), order.join(' '));
      // Searches run after the write (they were in flight together) and so find both sessions.
      assert.equal(results[19].length, 2);
    });

    it('returns the tail since the last checkpoint, and the turn pages', async () => {
      await store.write('recordTranscript', { key: 'k', turns: [user('one'), assistant('two'), user('three'), assistant('four')] });
      assert.equal(await store.read('tail', { scope: 'all', key: 'k', chars: 15 }), 'ree\nAssistant: four'.slice(-15));
      await store.write('addCheckpoint', { key: 'k', digest: 'covered the first two', focalEntities: ['db'] });
      await store.write('recordTranscript', { key: 'k', turns: [user('one'), assistant('two'), user('three'), assistant('four'), user('five')] });
      assert.equal(await store.read('tail', { scope: 'all', key: 'k', chars: 3000, afterSeq: 4 }), 'User: five');
      const checkpoint = await store.read('latestCheckpoint', { scope: 'all', key: 'k' });
      assert.equal(checkpoint?.extractionCursor, 4);
      assert.deepEqual(checkpoint?.focalEntities, ['db']);
    });

    it('builds the lineage forest to any depth and counts children', async () => {
      await store.write('upsertSession', { key: 'root', harness: 'claude-code' });
      await store.write('upsertSession', { key: 'child', harness: 'claude-code', parentSessionKey: 'root' });
      await store.write('upsertSession', { key: 'grandchild', harness: 'claude-code', parentSessionKey: 'child' });
      await store.write('upsertSession', { key: 'orphan', harness: 'codex', parentSessionKey: 'missing' });
      const roots = await store.read('tree', { scope: 'all' });
      const root = roots.find((r) => r.key === 'root')!;
      assert.equal(root.children[0].key, 'child');
      assert.equal(root.children[0].children[0].key, 'grandchild');
      assert.equal(root.childCount, 1);
      assert.ok(
        roots.some((r) => r.key === 'orphan'),
        'a session whose parent is unknown stays visible as a root',
      );
      const rootsOnly = await store.read('listSessions', { scope: 'all', rootsOnly: true });
      assert.deepEqual(rootsOnly.sessions.map((s) => s.key).sort(), ['orphan', 'root']);
    });

    it('rejects a failing command without a partial write', async () => {
      await assert.rejects(store.write('updateSession', { key: 'nope', set: { title: 'x' } }), /not found/);
      await assert.rejects(
        store.write('upsertSession', { key: 'bad', harness: 'x', status: 'weird' as never }),
        (err: Error & { code?: string }) => err.code === 'invalid_request',
      );
      assert.equal(await store.read('getSession', { scope: 'all', key: 'bad' }), null);
      assert.equal(journalFrames(dir).length, 0);
    });
  });

  describe('search (FTS4, BM25 from matchinfo)', () => {
    beforeEach(async () => {
      await store.write('ensureAgent', { agentId: 'alice', readPolicy: 'isolated' });
      await store.write('recordTranscript', {
        agentId: 'default',
        key: 'a',
        project: '/p1',
        turns: [user('configure the Juniper trunk ports'), assistant('VLAN audit of trunk ports done')],
      });
      await store.write('recordTranscript', {
        agentId: 'default',
        key: 'b',
        project: '/p2',
        turns: [user('dark mode with CSS variables'), assistant('theme tokens set, trunk mentioned once')],
      });
      await store.write('recordTranscript', { agentId: 'alice', key: 'c', project: '/p1', turns: [user('private Juniper notes of alice')] });
    });

    it('ranks the better match first and marks hits in the excerpt', async () => {
      const hits = await store.read('search', { scope: 'all', query: 'trunk ports' });
      assert.equal(hits[0].sessionKey, 'a');
      assert.match(hits[0].excerpt, /\[\[trunk\]\] \[\[ports\]\]/);
      assert.ok(hits[0].rank < 0);
    });

    it('scopes by agent (isolated agents are invisible to others), session and project', async () => {
      const asDefault = await store.read('search', { scope: { agentId: 'default' }, query: 'juniper' });
      assert.deepEqual(
        asDefault.map((h) => h.sessionKey),
        ['a'],
      );
      const asAlice = await store.read('search', { scope: { agentId: 'alice' }, query: 'juniper' });
      assert.deepEqual(asAlice.map((h) => h.sessionKey).sort(), ['c'], 'an isolated agent reads only its own sessions (docs/inheritance.md)');
      assert.deepEqual(
        (await store.read('search', { scope: 'all', query: 'trunk', sessionKey: 'session:b' })).map((h) => h.sessionKey),
        ['b'],
      );
      assert.deepEqual(
        (await store.read('search', { scope: 'all', query: 'trunk', project: '/p2' })).map((h) => h.sessionKey),
        ['b'],
      );
      assert.deepEqual(
        (await store.read('search', { scope: 'all', query: 'trunk', excludeSessionKey: 'a' })).map((h) => h.sessionKey),
        ['b'],
      );
    });

    it('accepts any text as a query without it reaching SQLite as syntax', async () => {
      const hostile = [
        '"unterminated',
        '-',
        ':',
        '*',
        'OR',
        'NOT',
        'NEAR',
        '()',
        '(trunk',
        'trunk)',
        'AND OR NOT',
        'trunk NEAR/2 ports',
        "'; DROP TABLE sessions; --",
        'session:a',
        '🎉 ünïcödé 中文',
        '"',
        '""',
        '^trunk',
        'x'.repeat(10_000),
        'trunk '.repeat(2000),
        '',
        '   ',
        '-trunk',
        'NOT trunk',
      ];
      for (const query of hostile) {
        const hits = await store.read('search', { scope: 'all', query });
        assert.ok(Array.isArray(hits), `query ${JSON.stringify(query.slice(0, 40))}`);
      }
      assert.deepEqual(await store.read('search', { scope: 'all', query: '' }), []);
      assert.deepEqual(await store.read('search', { scope: 'all', query: '-trunk' }), []);
      assert.deepEqual(
        (await store.read('search', { scope: 'all', query: '"trunk ports" -css' })).map((h) => h.sessionKey),
        ['a'],
      );
      assert.deepEqual((await store.read('search', { scope: 'all', query: 'jun*' })).map((h) => h.sessionKey).sort(), ['a', 'c']);
      assert.deepEqual((await store.read('search', { scope: 'all', query: 'css OR juniper' })).length, 3);
      assert.equal((await store.read('integrity', {}))[0], 'ok');
      assert.ok(fs.existsSync(dir));
    });
  });
});
