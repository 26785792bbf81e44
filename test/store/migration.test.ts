// Migrations on a real sql.js database: a version-1 store (segments indexed through triggers)
// comes up to the newest schema (per-turn indexing, then a sharded index) with every turn searchable
// and nothing lost; a version-9 store on disk gains the runs-by-runner index when it is opened.

import { strict as assert } from 'node:assert';
import { MIGRATIONS, migrate, schemaVersion, SCHEMA_VERSION } from '../../src/store/schema';
import { loadSqlJs } from '../../src/store/engine/sqljs';
import type { Database } from 'sql.js';
import { loadDatabase, registerFunctions } from '../../src/store/engine/engine';
import { applyRecord } from '../../src/store/records';
import { listRuns, readTurns, searchTranscripts, transcriptContent } from '../../src/store/queries';
import { indexShards } from '../../src/store/searchIndex';
import { writeSnapshot } from '../../src/store/engine/snapshot';
import { forgetStatements } from '../../src/store/db';
import { layout } from '../../src/node/paths';
import { tempDir } from '../helpers/tmp';

describe('schema migrations (real sql.js)', () => {
  it('moves a version-1 store to per-turn indexing: turns keep their text and all become searchable', async () => {
    const SQL = await loadSqlJs();
    const db = new SQL.Database();
    registerFunctions(db);
    db.exec(MIGRATIONS[0].sql);
    db.exec('PRAGMA user_version = 1');
    const at = '2026-01-01T00:00:00.000Z';
    db.run("INSERT INTO agents (id, read_policy, created_at) VALUES ('default', 'shared', ?)", [at]);
    db.run(
      "INSERT INTO sessions (agent_id, session_key, harness, created_at, updated_at, turn_count, char_count) VALUES ('default', 'old', 'codex', ?, ?, 3, 0)",
      [at, at],
    );
    // Version 1 wrote segments of rendered turns and pointed each turn at its span.
    const lines = ['User: where are the heron colonies', 'Assistant: near the café by the estuary 🚀 rockets', 'User: thanks'];
    const text = lines.map((l) => l + '\n').join('');
    db.run('INSERT INTO transcript_segments (session_id, ordinal, first_seq, text) VALUES (1, 0, 1, ?)', [text]);
    let start = 0;
    lines.forEach((line, i) => {
      db.run('INSERT INTO transcript_turns (session_id, seq, role, hash, segment_id, start, length) VALUES (1, ?, ?, ?, 1, ?, ?)', [
        i + 1,
        i === 1 ? 'assistant' : 'user',
        `h${i}`,
        start,
        line.length,
      ]);
      start += line.length + 1;
    });

    assert.deepEqual(
      migrate(db),
      MIGRATIONS.filter((m) => m.version > 1).map((m) => m.version),
    );
    assert.equal(schemaVersion(db), SCHEMA_VERSION);
    assert.deepEqual(
      db.exec('SELECT doc_id FROM transcript_turns ORDER BY seq')[0].values.map((r) => r[0]),
      [1, 2, 3],
    );
    const hits = searchTranscripts(db, 'all', { query: 'cafe estuary' });
    assert.equal(hits.length, 1);
    assert.equal(hits[0].turnSeq, 2);
    assert.match(hits[0].excerpt, /\[\[café\]\] by the \[\[estuary\]\]/);

    // New turns continue the document ids and are searchable at once.
    applyRecord(db, {
      t: 'turns',
      agentId: 'default',
      key: 'old',
      turns: [{ role: 'assistant', text: 'the herons nest in alders', hash: 'h3' }],
      cursor: { sourceTurns: 4, sourceHash: 'x', pending: [] },
      at,
    });
    assert.equal(searchTranscripts(db, 'all', { query: 'alders' })[0].turnSeq, 4);
    // Appended to the old segment in place: its text and every turn's span stay exact (🚀 is two UTF-16 units).
    assert.equal(transcriptContent(db, 1), [...lines, 'Assistant: the herons nest in alders'].join('\n'));
    assert.deepEqual(
      readTurns(db, 1, 1, 10).map((t) => t.text),
      ['where are the heron colonies', 'near the café by the estuary 🚀 rockets', 'thanks', 'the herons nest in alders'],
    );
    assert.equal(searchTranscripts(db, 'all', { query: 'heron' })[0].turnSeq, 1);
    // The index that was one table is the first shard of the sharded index.
    assert.deepEqual(
      indexShards(db).map((s) => [s.table, s.firstDoc]),
      [['transcript_fts_1', 1]],
    );
    assert.equal(db.exec('PRAGMA integrity_check')[0].values[0][0], 'ok');
    db.close();
  });

  it('a version-9 store on disk opens with runs indexed by runner and creation time, and run listings answer as before', async () => {
    const SQL = await loadSqlJs();
    // The store as version 9 left it: every migration up to 9, some runs, saved as its snapshot.
    const old = new SQL.Database();
    registerFunctions(old);
    for (const migration of MIGRATIONS.filter((m) => m.version <= 9)) {
      old.exec(migration.sql);
      migration.after?.(old);
    }
    old.exec('PRAGMA user_version = 9');
    old.run("INSERT INTO agents (id, read_policy, created_at) VALUES ('default', 'shared', '2026-01-01T00:00:00.000Z')");
    const runners = ['holder', 'external', 'holder', 'vscode-lm', 'holder'];
    runners.forEach((runner, i) => {
      const at = `2026-01-0${i + 1}T00:00:00.000Z`;
      old.run(
        "INSERT INTO subagent_runs (id, agent_id, runner, status, parent_session_key, created_at, updated_at) VALUES (?, 'default', ?, 'completed', 'p', ?, ?)",
        [`run-${i}`, runner, at, at],
      );
    });
    const indexesOf = (db: Database) =>
      db.exec("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'subagent_runs' ORDER BY name")[0].values.map((r) => r[0]);
    assert.ok(!indexesOf(old).includes('subagent_runs_by_runner'));
    const paths = layout(tempDir());
    forgetStatements(old);
    writeSnapshot(paths.snapshotDir, 0, old.export());
    old.close();

    // Opened the way the store opens a data directory: the newest snapshot, then its migrations.
    const { db, report } = loadDatabase(SQL, paths);
    assert.deepEqual(
      report.migrations,
      MIGRATIONS.filter((m) => m.version > 9).map((m) => m.version),
    );
    assert.equal(schemaVersion(db), SCHEMA_VERSION);
    assert.ok(indexesOf(db).includes('subagent_runs_by_runner'));
    assert.deepEqual(
      listRuns(db, 'all', { runner: 'holder' }).map((r) => r.id),
      ['run-4', 'run-2', 'run-0'],
    );
    assert.deepEqual(
      listRuns(db, 'all', { runner: 'external' }).map((r) => r.id),
      ['run-1'],
    );
    assert.equal(listRuns(db, 'all', {}).length, 5);
    // The listing by runner reads through the new index.
    const plan = db
      .exec('EXPLAIN QUERY PLAN SELECT r.* FROM subagent_runs r WHERE r.runner = ? ORDER BY r.created_at DESC LIMIT 10', ['holder'])[0]
      .values.map((r) => String(r[r.length - 1]))
      .join('\n');
    assert.match(plan, /subagent_runs_by_runner/);
    assert.equal(db.exec('PRAGMA integrity_check')[0].values[0][0], 'ok');
    db.close();
  });
});
