// Baselines: the same workload on native SQLite (better-sqlite3, FTS5), in process, WAL mode.
// - 'native': the "natural" native design: one row per transcript, and every hook call upserts the
//   whole transcript text (so FTS5 deletes and re-inserts the whole document); synchronous=FULL.
// - 'native-turns': Baton's own data model on native SQLite: a row per turn, an FTS5 row per turn,
//   a hook call inserts only the turns not stored yet; synchronous=FULL. What the targets would
//   cost with a native engine and no worker hop on this machine.
// - 'native-turns-nosync': the same with synchronous=OFF: nothing is durable, so its writes are a
//   floor under any database that indexes the turn as it stores it.

import Database from 'better-sqlite3';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { renderTranscript, renderTurn } from '../src/core/normalize';
import { compileSearchQuery } from '../src/core/searchQuery';
import type { Turn } from '../src/core/types';
import { dirBytes, maxRssBytes, now, Phases, RssSampler, Sample, writeBuckets, type EngineResult } from './stats';
import { buildQueries, HARNESS, mix, prng, Workload, type QueryKind } from './workload';
import type { Log, NativeEngine, RunConfig } from './types';

const KINDS: QueryKind[] = ['one', 'two', 'phrase'];
const yieldLoop = () => new Promise<void>((resolve) => setImmediate(resolve));
const collect = () => globalThis.gc?.();

const SESSIONS_TABLE = `
CREATE TABLE sessions (
  id          INTEGER PRIMARY KEY,
  session_key TEXT NOT NULL UNIQUE,
  harness     TEXT NOT NULL,
  project     TEXT,
  turn_count  INTEGER NOT NULL DEFAULT 0,
  char_count  INTEGER NOT NULL DEFAULT 0,
  created_at  TEXT NOT NULL,
  updated_at  TEXT NOT NULL
);
`;

const SCHEMA = `${SESSIONS_TABLE}
CREATE TABLE transcripts (
  session_id INTEGER PRIMARY KEY REFERENCES sessions(id),
  content    TEXT NOT NULL
);
CREATE VIRTUAL TABLE transcripts_fts USING fts5 (content, content='transcripts', content_rowid='session_id', tokenize='unicode61');
CREATE TRIGGER transcripts_ai AFTER INSERT ON transcripts BEGIN
  INSERT INTO transcripts_fts (rowid, content) VALUES (new.session_id, new.content);
END;
CREATE TRIGGER transcripts_ad AFTER DELETE ON transcripts BEGIN
  INSERT INTO transcripts_fts (transcripts_fts, rowid, content) VALUES ('delete', old.session_id, old.content);
END;
CREATE TRIGGER transcripts_au AFTER UPDATE ON transcripts BEGIN
  INSERT INTO transcripts_fts (transcripts_fts, rowid, content) VALUES ('delete', old.session_id, old.content);
  INSERT INTO transcripts_fts (rowid, content) VALUES (new.session_id, new.content);
END;
`;

const TURNS_SCHEMA = `${SESSIONS_TABLE}
CREATE TABLE turns (
  id         INTEGER PRIMARY KEY,
  session_id INTEGER NOT NULL REFERENCES sessions(id),
  seq        INTEGER NOT NULL,
  line       TEXT NOT NULL,
  UNIQUE (session_id, seq)
);
CREATE VIRTUAL TABLE turns_fts USING fts5 (line, content='turns', content_rowid='id', tokenize='unicode61');
CREATE TRIGGER turns_ai AFTER INSERT ON turns BEGIN
  INSERT INTO turns_fts (rowid, line) VALUES (new.id, new.line);
END;
`;

/** Turns ranked before the best one per session is kept, as the sql.js store's ranking window. */
const RANKED_TURNS = 200;

type SearchHit = { sessionKey: string; project: string | null; excerpt: string; rank: number };

/** What both native designs share: the connection, the write transaction, the stored-text total. */
abstract class NativeStore {
  readonly db: Database;
  protected abstract readonly recordTx: (key: string, harness: string, project: string, turns: Turn[]) => { turnCount: number };

  constructor(file: string, durable: boolean) {
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma(durable ? 'synchronous = FULL' : 'synchronous = OFF');
  }

  abstract search(query: string, limit?: number): SearchHit[];
  abstract tail(key: string, chars: number): string;

  record(key: string, harness: string, project: string, turns: Turn[]): { turnCount: number } {
    return this.recordTx(key, harness, project, turns);
  }

  textChars(): number {
    return Number(this.db.prepare<{ n: number | null }>('SELECT SUM(char_count) AS n FROM sessions').get()!.n ?? 0);
  }

  close(): void {
    this.db.close();
  }
}

function openNative(engine: NativeEngine, file: string, create: boolean): NativeStore {
  return engine === 'native' ? new TranscriptStore(file, create) : new TurnStore(file, create, engine === 'native-turns');
}

/**
 * Baton's data model on native SQLite: a row per turn (its rendered line, as the sql.js store
 * indexes it), FTS5 over the turns, and a hook call inserts only the turns past the stored count.
 * Search ranks the best RANKED_TURNS turns by FTS5's bm25, keeps the best turn per session and
 * cuts a snippet from each.
 */
class TurnStore extends NativeStore {
  protected readonly recordTx: (key: string, harness: string, project: string, turns: Turn[]) => { turnCount: number };
  private readonly rankStmt: Database.Statement<{ id: number; session_id: number; rank: number }>;
  private readonly snippetStmt: Database.Statement<{ excerpt: string }>;
  private readonly sessionStmt: Database.Statement<{ session_key: string; project: string | null }>;
  private readonly tailStmt: Database.Statement<{ line: string }>;

  constructor(file: string, create: boolean, durable: boolean) {
    super(file, durable);
    if (create) this.db.exec(TURNS_SCHEMA);
    const findSession = this.db.prepare<{ id: number; turn_count: number; char_count: number }>(
      'SELECT id, turn_count, char_count FROM sessions WHERE session_key = ?',
    );
    const insertSession = this.db.prepare<{ id: number }>(
      'INSERT INTO sessions (session_key, harness, project, created_at, updated_at) VALUES (?, ?, ?, ?, ?) RETURNING id',
    );
    const insertTurn = this.db.prepare('INSERT INTO turns (session_id, seq, line) VALUES (?, ?, ?)');
    const updateSession = this.db.prepare('UPDATE sessions SET turn_count = ?, char_count = ?, updated_at = ? WHERE id = ?');
    this.recordTx = this.db.transaction((key: string, harness: string, project: string, turns: Turn[]) => {
      const at = new Date().toISOString();
      const row = findSession.get(key) ?? { id: insertSession.get(key, harness, project, at, at)!.id, turn_count: 0, char_count: 0 };
      if (turns.length <= row.turn_count) return { turnCount: row.turn_count };
      let chars = row.char_count;
      for (let seq = row.turn_count; seq < turns.length; seq++) {
        const line = renderTurn(turns[seq]);
        insertTurn.run(row.id, seq, line);
        chars += line.length + (seq > 0 ? 1 : 0);
      }
      updateSession.run(turns.length, chars, at, row.id);
      return { turnCount: turns.length };
    });
    this.rankStmt = this.db.prepare(
      `SELECT turns_fts.rowid AS id, t.session_id AS session_id, turns_fts.rank AS rank
       FROM turns_fts JOIN turns t ON t.id = turns_fts.rowid WHERE turns_fts MATCH ? ORDER BY turns_fts.rank LIMIT ${RANKED_TURNS}`,
    );
    this.snippetStmt = this.db.prepare(`SELECT snippet(turns_fts, 0, '[[', ']]', '…', 24) AS excerpt FROM turns_fts WHERE turns_fts MATCH ? AND rowid = ?`);
    this.sessionStmt = this.db.prepare('SELECT session_key, project FROM sessions WHERE id = ?');
    this.tailStmt = this.db.prepare('SELECT line FROM turns WHERE session_id = (SELECT id FROM sessions WHERE session_key = ?) ORDER BY seq DESC LIMIT 4');
  }

  search(query: string, limit = 10): SearchHit[] {
    const compiled = compileSearchQuery(query);
    if (!compiled.match) return [];
    const best = new Map<number, { id: number; rank: number }>();
    for (const row of this.rankStmt.all(compiled.match)) if (!best.has(row.session_id)) best.set(row.session_id, row);
    return [...best.entries()].slice(0, limit).map(([sessionId, hit]) => {
      const session = this.sessionStmt.get(sessionId)!;
      const excerpt = this.snippetStmt.get(compiled.match, hit.id)?.excerpt ?? '';
      return { sessionKey: session.session_key, project: session.project, excerpt: excerpt.replace(/\s+/g, ' ').trim(), rank: hit.rank };
    });
  }

  tail(key: string, chars: number): string {
    return this.tailStmt
      .all(key)
      .map((r) => r.line)
      .reverse()
      .join('\n')
      .slice(-chars);
  }
}

class TranscriptStore extends NativeStore {
  protected readonly recordTx: (key: string, harness: string, project: string, turns: Turn[]) => { turnCount: number };
  private readonly searchStmt: Database.Statement<{ id: number; rank: number; excerpt: string }>;
  private readonly sessionStmt: Database.Statement<{ session_key: string; project: string | null; harness: string; updated_at: string }>;
  private readonly tailStmt: Database.Statement<{ tail: string }>;

  constructor(file: string, create: boolean) {
    super(file, true);
    if (create) this.db.exec(SCHEMA);
    const upsertSession = this.db.prepare<{ id: number }>(
      `INSERT INTO sessions (session_key, harness, project, turn_count, char_count, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (session_key) DO UPDATE SET turn_count = excluded.turn_count, char_count = excluded.char_count, updated_at = excluded.updated_at
       RETURNING id`,
    );
    const upsertTranscript = this.db.prepare(
      'INSERT INTO transcripts (session_id, content) VALUES (?, ?) ON CONFLICT (session_id) DO UPDATE SET content = excluded.content',
    );
    this.recordTx = this.db.transaction((key: string, harness: string, project: string, turns: Turn[]) => {
      const content = renderTranscript(turns);
      const at = new Date().toISOString();
      const { id } = upsertSession.get(key, harness, project, turns.length, content.length, at, at)!;
      upsertTranscript.run(id, content);
      return { turnCount: turns.length };
    });
    this.searchStmt = this.db.prepare(
      `SELECT rowid AS id, rank, snippet(transcripts_fts, 0, '[[', ']]', '…', 24) AS excerpt
       FROM transcripts_fts WHERE transcripts_fts MATCH ? ORDER BY rank LIMIT ?`,
    );
    this.sessionStmt = this.db.prepare('SELECT session_key, project, harness, updated_at FROM sessions WHERE id = ?');
    this.tailStmt = this.db.prepare('SELECT substr(t.content, -?) AS tail FROM transcripts t JOIN sessions s ON s.id = t.session_id WHERE s.session_key = ?');
  }

  search(query: string, limit = 10): SearchHit[] {
    const compiled = compileSearchQuery(query);
    if (!compiled.match) return [];
    return this.searchStmt.all(compiled.match, limit).map((hit) => {
      const session = this.sessionStmt.get(hit.id)!;
      return { sessionKey: session.session_key, project: session.project, excerpt: hit.excerpt.replace(/\s+/g, ' ').trim(), rank: hit.rank };
    });
  }

  tail(key: string, chars: number): string {
    return this.tailStmt.get(chars, key)?.tail ?? '';
  }
}

export async function runNative(cfg: RunConfig, log: Log): Promise<EngineResult> {
  const engine = cfg.engine as NativeEngine;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-bench-native-'));
  const file = path.join(dir, 'baton-native.db');
  const rss = new RssSampler();
  rss.start(50);
  const phases = new Phases();
  let genMs = 0;
  const w = new Workload({ seed: cfg.seed, sessions: cfg.sessions, turns: cfg.turns });
  const queries = buildQueries(w, cfg.queries);
  const keys = Array.from({ length: cfg.sessions }, (_, s) => w.sessionKey(s));
  const turnCount = new Array<number>(cfg.sessions).fill(0);
  try {
    let store = openNative(engine, file, true);
    const recordTurn = (s: number) => {
      const k = turnCount[s] + 1;
      const g0 = now();
      const turns = w.transcript(s, k);
      genMs += now() - g0;
      const t0 = now();
      const res = store.record(keys[s], HARNESS, w.project(s), turns);
      const dt = now() - t0;
      turnCount[s] = k;
      return { dt, ok: res.turnCount === k };
    };

    phases.start();
    const writes = new Sample();
    const byTurn = Array.from({ length: cfg.turns }, () => new Sample());
    let violations = 0;
    for (let k = 1; k <= cfg.turns; k++) {
      const roundStart = now();
      for (let s = 0; s < cfg.sessions; s++) {
        const { dt, ok } = recordTurn(s);
        writes.push(dt);
        byTurn[k - 1].push(dt);
        if (!ok) violations++;
        await yieldLoop();
      }
      if (k % 5 === 0 || k === 1 || k === cfg.turns) {
        const sm = byTurn[k - 1].summary();
        log(
          `turn ${k}/${cfg.turns}: round ${((now() - roundStart) / 1000).toFixed(1)} s, write p50 ${sm.p50.toFixed(2)} p99 ${sm.p99.toFixed(2)} max ${sm.max.toFixed(1)} ms, rss ${(rss.peak / 2 ** 20).toFixed(0)} MB`,
        );
      }
    }
    phases.end('writes');
    const genWritesMs = genMs;
    const textChars = store.textChars();
    log(`writes done in ${phases.seconds.writes.toFixed(0)} s; text ${(textChars / 2 ** 20).toFixed(0)} MB`);

    collect();
    phases.start();
    const search = {} as Record<QueryKind, Sample>;
    const hits = {} as Record<QueryKind, number>;
    const oneByClass = [new Sample(), new Sample(), new Sample(), new Sample()];
    for (const kind of KINDS) {
      for (const q of queries[kind].slice(0, 3)) store.search(q, 10);
      search[kind] = new Sample();
      hits[kind] = 0;
      for (let i = 0; i < queries[kind].length; i++) {
        const t0 = now();
        const found = store.search(queries[kind][i], 10);
        const dt = now() - t0;
        search[kind].push(dt);
        if (kind === 'one') oneByClass[i % 4].push(dt);
        hits[kind] += found.length;
        await yieldLoop();
      }
      hits[kind] /= queries[kind].length;
    }
    phases.end('search');

    phases.start();
    const tail = new Sample();
    const pick = prng(mix(cfg.seed, 5));
    for (let i = 0; i < cfg.queries; i++) {
      const key = keys[Math.floor(pick() * cfg.sessions)];
      const t0 = now();
      store.tail(key, 3000);
      tail.push(now() - t0);
      await yieldLoop();
    }
    phases.end('tail');

    // The closest native analogue of a snapshot: checkpoint the WAL into the database file.
    let cursor = 0;
    phases.start();
    const snapshot = new Sample();
    for (let r = 0; r < cfg.snapshotRounds; r++) {
      for (let i = 0; i < 10; i++) recordTurn(cursor++ % cfg.sessions);
      const t0 = now();
      store.db.pragma('wal_checkpoint(TRUNCATE)');
      snapshot.push(now() - t0);
    }
    phases.end('snapshot');

    phases.start();
    let t0 = now();
    store.close();
    const closeMs = now() - t0;
    const open = new Sample();
    for (let i = 0; i < cfg.opens; i++) {
      collect();
      t0 = now();
      store = openNative(engine, file, false);
      store.textChars();
      open.push(now() - t0);
      store.close();
    }
    phases.end('open');
    const diskBytes = dirBytes(dir);
    const peakRss = rss.stop();

    return {
      engine,
      sessions: cfg.sessions,
      turns: cfg.turns,
      write: writes.summary(),
      ...writeBuckets(byTurn, cfg.turns),
      search: { one: search.one.summary(), two: search.two.summary(), phrase: search.phrase.summary() },
      searchOneByClass: oneByClass.map((sm) => sm.summary()),
      searchHits: { one: hits.one, two: hits.two, phrase: hits.phrase },
      tail: tail.summary(),
      snapshot: snapshot.summary(),
      stall: null,
      open: open.summary(),
      openInternalMs: [],
      closeMs,
      peakRss,
      maxRss: maxRssBytes(),
      textChars,
      diskBytes,
      deltaViolations: violations,
      autoSnapshots: 0,
      phaseSeconds: phases.seconds,
      cpuMs: phases.cpuMs,
      genMs: genWritesMs,
    };
  } finally {
    rss.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
