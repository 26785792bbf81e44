// The sharded full-text index on a real sql.js database: consecutive documents go into shards of
// a fixed size, every turn stays searchable, and a search ranks the newest matching turns (in its
// scope) across shards, reading older shards only while its window is not full. The index is
// derived state: a store recovering from its journal builds the same shards.

import { strict as assert } from 'node:assert';
import type { Database } from 'sql.js';
import { Engine, loadDatabase, registerFunctions, type Request } from '../../src/store/engine/engine';
import { forgetStatements, setMetaNumber } from '../../src/store/db';
import { layout } from '../../src/node/paths';
import { RANK_WINDOW, rankNewestMatches, searchTranscripts } from '../../src/store/queries';
import { compileSearchQuery } from '../../src/core/searchQuery';
import { applyRecord } from '../../src/store/records';
import { migrate } from '../../src/store/schema';
import { catchUpIndex, indexShards, unindexedTurns } from '../../src/store/searchIndex';
import { RARE_DOCS, rankFromRareWord } from '../../src/store/rareWordMatches';
import { writeSnapshot } from '../../src/store/engine/snapshot';
import { loadSqlJs } from '../../src/store/engine/sqljs';
import type { SearchHit, Turn } from '../../src/core/types';
import { executeAll } from '../helpers/engine';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';

const AT = '2026-01-01T00:00:00.000Z';

async function shardedDb(shardDocs: number): Promise<Database> {
  const SQL = await loadSqlJs();
  const db = new SQL.Database();
  registerFunctions(db);
  migrate(db);
  setMetaNumber(db, 'index_shard_docs', shardDocs);
  applyRecord(db, { t: 'agent', id: 'default', readPolicy: 'shared', at: AT });
  return db;
}

function addTurn(db: Database, key: string, text: string, n: number): void {
  applyRecord(db, { t: 'session', agentId: 'default', key, set: { harness: 'codex' }, at: AT });
  applyRecord(db, {
    t: 'turns',
    agentId: 'default',
    key,
    turns: [{ role: 'user', text, hash: `h${n}` }],
    cursor: { sourceTurns: n, sourceHash: `c${n}`, pending: [] },
    at: AT,
  });
}

function docsIn(db: Database, table: string): number {
  return Number(db.exec(`SELECT COUNT(*) FROM ${table}_docsize`)[0].values[0][0]);
}

describe('sharded transcript index (real sql.js)', () => {
  after(cleanupTempDirs);

  it('puts consecutive turns into shards of the configured size, and every turn stays searchable', async () => {
    const db = await shardedDb(4);
    for (let i = 1; i <= 30; i++) addTurn(db, `s${i % 3}`, `turn ${i} marker${i} common`, i);
    // Indexed in slices that cross shard boundaries.
    while (catchUpIndex(db, 3) > 0);
    assert.equal(unindexedTurns(db), 0);
    const shards = indexShards(db);
    assert.deepEqual(
      shards.map((s) => [s.firstDoc, docsIn(db, s.table)]),
      [
        [29, 2],
        [25, 4],
        [21, 4],
        [17, 4],
        [13, 4],
        [9, 4],
        [5, 4],
        [1, 4],
      ],
    );
    for (const i of [1, 4, 5, 17, 30]) {
      const hits = searchTranscripts(db, 'all', { query: `marker${i}` });
      assert.deepEqual(
        hits.map((h) => [h.sessionKey, h.excerpt.includes(`[[marker${i}]]`)]),
        [[`s${i % 3}`, true]],
        `marker${i}`,
      );
    }
    assert.equal(db.exec('PRAGMA integrity_check')[0].values[0][0], 'ok');
    db.close();
  });

  it('skips the shards that lack a required word without changing what a search finds or how it ranks', async () => {
    const db = await shardedDb(5);
    const vocabulary = ['river', 'stone', 'delta', 'ember', 'quartz', 'lumen', 'café', 'noir'];
    // Deterministic text: every turn has "common", other words come and go shard by shard.
    for (let i = 1; i <= 60; i++) {
      const words = vocabulary.filter((_, w) => (i * (w + 3)) % (w + 4) < 2);
      addTurn(db, `s${i % 6}`, `common ${words.join(' ')} tail${i % 11}`, i);
    }
    addTurn(db, 's-old', 'only here: zircon and common', 61);
    catchUpIndex(db);
    const queries = [
      'common river',
      'river stone',
      'quartz lumen delta',
      '"stone delta"',
      'ember -river',
      'lumen OR zircon common',
      'café noir',
      'tail3 quartz',
      'zircon common',
      'river zircon',
      'nothing here',
    ];
    for (const query of queries) {
      const compiled = compileSearchQuery(query);
      const skipping = rankNewestMatches(db, compiled.match!, ['1'], [], { requiredWords: compiled.requiredWords });
      const reading = rankNewestMatches(db, compiled.match!, ['1'], [], {});
      assert.deepEqual(skipping, reading, query);
    }
    assert.deepEqual(
      searchTranscripts(db, 'all', { query: 'zircon common' }).map((h) => h.sessionKey),
      ['s-old'],
    );
    assert.deepEqual(searchTranscripts(db, 'all', { query: 'river zircon' }), []);
    db.close();
  });

  it("ranks a shard from a rare word's documents exactly as FTS4 ranks it: the same turns, the same scores", async () => {
    const db = await shardedDb(40);
    // Common words in every turn, identifiers in a few: 'rare0'..'rare9' in 1–6 turns each, 'edge'
    // in exactly RARE_DOCS turns of the first shard (still rare) and 'over' in one more (not rare).
    let seed = 7;
    const next = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    const common = ['the', 'of', 'and', 'build', 'test', 'deploy', 'a'];
    for (let i = 1; i <= 160; i++) {
      const words = Array.from({ length: 30 + next(20) }, () => common[next(common.length)]);
      if (next(4) === 0) words.splice(next(words.length), 0, `rare${next(10)}`);
      if (i <= RARE_DOCS) words.push('edge');
      if (i <= RARE_DOCS + 1) words.push('over');
      if (i % 9 === 0) words.splice(3, 0, 'the', 'rare3', 'of', 'the', 'rare3'); // repeats, phrase overlaps
      // Text the tokenizer folds or splits: case, accents, underscores, punctuation.
      const text =
        words
          .join(' ')
          .replace(/rare1/g, 'RARE1')
          .replace(/deploy/g, 'déploy') + (i % 5 === 0 ? ' x_rare2, Café—bjørn!' : '');
      addTurn(db, `s${i % 7}`, text, i);
    }
    // A rare word that some of its turns hold outside the phrase asked for; overlapping occurrences.
    for (const [i, text] of [
      'zeta alpha and the',
      'the zeta and alpha',
      'zeta alpha zeta alpha the',
      'zeta of the',
      'the the the omega',
      'omega the the',
    ].entries()) {
      addTurn(db, `z${i % 2}`, text, 200 + i);
    }
    catchUpIndex(db);
    const queries = [
      'the rare3',
      '"of the rare3"',
      '"the rare3" of',
      'rare3 "the of"',
      'rare1 build',
      '"rare1 build"',
      'rare2 x',
      'rare2 cafe',
      '"zeta alpha" the',
      '"zeta alpha" and',
      'zeta the',
      '"the the" omega',
      '"the the the" omega',
      'edge the',
      'edge "and the"',
      'over the',
      'rare0 rare4',
      'rare5 deploy',
      'rare5 dploy',
      'the the rare6',
      'a a rare7',
      'rare8 nothing',
      'missing the',
    ];
    const scopes: Array<[string[], Array<string | number>]> = [
      [['1'], []],
      [['s.session_key = ?'], ['s3']],
      [['s.session_key != ?'], ['s0']],
    ];
    const compare = (query: string) => {
      const compiled = compileSearchQuery(query);
      assert.ok(compiled.phrases, query);
      for (const [filters, params] of scopes) {
        const byFts = rankNewestMatches(db, compiled.match!, filters, params, {});
        const byRareWord = rankNewestMatches(db, compiled.match!, filters, params, { phrases: compiled.phrases });
        assert.deepEqual(byRareWord, byFts, `${query} / ${filters.join(' ')}`);
      }
      return indexShards(db).some((shard, i) => rankFromRareWord(db, shard.table, i > 0, compiled.phrases!, ['1'], [], RANK_WINDOW) !== null);
    };
    let fast = 0;
    for (const query of queries) if (compare(query)) fast++;
    // The newest shard takes more turns: what was learnt about its rare words must not hide them.
    addTurn(db, 'z9', 'the zeta alpha again', 300);
    addTurn(db, 'z9', 'omega the the the', 301);
    catchUpIndex(db);
    for (const query of ['"zeta alpha" the', 'zeta the', '"the the" omega']) compare(query);
    // Most of these queries took the rare-word path in at least one shard; 'over the' never does.
    assert.ok(fast >= queries.length - 3, `${fast} of ${queries.length}`);
    assert.equal(rankFromRareWord(db, indexShards(db).at(-1)!.table, true, [['over'], ['the']], ['1'], [], RANK_WINDOW), null);
    assert.notEqual(rankFromRareWord(db, indexShards(db).at(-1)!.table, true, [['edge'], ['the']], ['1'], [], RANK_WINDOW), null);
    assert.ok(searchTranscripts(db, 'all', { query: '"of the rare3"' }).length > 0);
    db.close();
  });

  it('ranks only the newest matching turns once the window is full, yet finds old turns when filtered to them', async () => {
    const db = await shardedDb(8);
    const turns = RANK_WINDOW + 40;
    // One turn per session: the oldest 40 sessions fall outside the window of a word every turn has.
    for (let i = 1; i <= turns; i++) addTurn(db, `s${i}`, `heron ${i % 7 === 0 ? 'heron heron' : ''} estuary${i}`, 1);
    catchUpIndex(db);
    const everywhere = searchTranscripts(db, 'all', { query: 'heron', limit: 100 });
    assert.equal(everywhere.length, 100);
    for (const hit of everywhere) assert.ok(Number(hit.sessionKey.slice(1)) > 40, `${hit.sessionKey} is outside the newest ${RANK_WINDOW}`);
    // Denser matches rank first within the window.
    assert.equal(Number(everywhere[0].sessionKey.slice(1)) % 7, 0);
    // Scope filters apply before the window: an old session's turn is found through the newer shards.
    assert.deepEqual(
      searchTranscripts(db, 'all', { query: 'heron', sessionKey: 's3' }).map((h) => h.sessionKey),
      ['s3'],
    );
    // A word only the oldest turn has is found in the oldest shard.
    assert.deepEqual(
      searchTranscripts(db, 'all', { query: 'estuary1' }).map((h) => h.sessionKey),
      ['s1'],
    );
    db.close();
  });

  it('a store that replays its journal after a crash builds the same shards, and a snapshot carries them', async () => {
    const paths = layout(tempDir());
    // The shard size lives in the database: start the store from a snapshot that sets it to 4.
    const seed = await shardedDb(4);
    forgetStatements(seed);
    writeSnapshot(paths.snapshotDir, 0, seed.export());
    seed.close();
    const engine = await Engine.open(paths, { compactBytes: 1 << 30 });
    const sessions = new Map<string, Turn[]>();
    const writes: Request[] = Array.from({ length: 10 }, (_, i) => {
      const key = `s${i % 3}`;
      const turns = [...(sessions.get(key) ?? []), { role: 'user' as const, text: `turn ${i} marker${i}` }];
      sessions.set(key, turns);
      return { id: i + 1, kind: 'write', name: 'recordTranscript', args: { key, turns } };
    });
    const replies = await executeAll(engine, [...writes, { id: 99, kind: 'read', name: 'search', args: { scope: 'all', query: 'marker0' } }]);
    assert.ok(
      replies.every((r) => r.ok),
      JSON.stringify(replies.filter((r) => !r.ok)),
    );
    assert.deepEqual(
      (replies.find((r) => r.id === 99)!.value as SearchHit[]).map((h) => h.sessionKey),
      ['s0'],
    );

    // A crash: the engine is never closed; a new open replays the journal over the seed snapshot.
    const SQL = await loadSqlJs();
    const expectShards = (db: Database) => {
      assert.equal(unindexedTurns(db), 0);
      assert.deepEqual(
        indexShards(db).map((s) => [s.firstDoc, docsIn(db, s.table)]),
        [
          [9, 2],
          [5, 4],
          [1, 4],
        ],
      );
      for (let i = 0; i < 10; i++)
        assert.deepEqual(
          searchTranscripts(db, 'all', { query: `marker${i}` }).map((h) => h.sessionKey),
          [`s${i % 3}`],
          `marker${i}`,
        );
    };
    const replayed = loadDatabase(SQL, paths);
    assert.equal(replayed.report.replayedFrames, 10);
    catchUpIndex(replayed.db);
    expectShards(replayed.db);
    replayed.db.close();

    // A clean close writes a snapshot with the whole index: the next open replays nothing.
    await engine.close();
    const reopened = loadDatabase(SQL, paths);
    assert.equal(reopened.report.replayedFrames, 0);
    expectShards(reopened.db);
    reopened.db.close();
  });
});
