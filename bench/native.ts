// Baseline: the same workload on native SQLite (better-sqlite3, FTS5), in the "natural" native
// design: one row per transcript, and every hook call upserts the whole transcript text (so the
// FTS5 index deletes and re-inserts the whole document). WAL mode, synchronous=FULL.

import Database from 'better-sqlite3';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { renderTranscript } from '../src/core/normalize';
import { compileSearchQuery } from '../src/core/searchQuery';
import type { Turn } from '../src/core/types';
import type { Log, RunConfig } from './sqljs';
import { dirBytes, maxRssBytes, now, Phases, RssSampler, Sample, writeBuckets, type EngineResult } from './stats';
import { buildQueries, HARNESS, mix, prng, Workload, type QueryKind } from './workload';

const KINDS: QueryKind[] = ['one', 'two', 'phrase'];
const yieldLoop = () => new Promise<void>((resolve) => setImmediate(resolve));
const collect = () => globalThis.gc?.();

const SCHEMA = `
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

class NativeStore {
  readonly db: Database;
  private readonly recordTx: (key: string, harness: string, project: string, turns: Turn[]) => { turnCount: number };
  private readonly searchStmt: Database.Statement<{ id: number; rank: number; excerpt: string }>;
  private readonly sessionStmt: Database.Statement<{ session_key: string; project: string | null; harness: string; updated_at: string }>;
  private readonly tailStmt: Database.Statement<{ tail: string }>;

  constructor(file: string, create: boolean) {
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = FULL');
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

  record(key: string, harness: string, project: string, turns: Turn[]): { turnCount: number } {
    return this.recordTx(key, harness, project, turns);
  }

  search(query: string, limit = 10) {
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

  textChars(): number {
    return Number((this.db.prepare<{ n: number | null }>('SELECT SUM(char_count) AS n FROM sessions').get()!.n ?? 0));
  }

  close(): void {
    this.db.close();
  }
}

export async function runNative(cfg: RunConfig, log: Log): Promise<EngineResult> {
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
    let store = new NativeStore(file, true);
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
        log(`turn ${k}/${cfg.turns}: round ${((now() - roundStart) / 1000).toFixed(1)} s, write p50 ${sm.p50.toFixed(2)} p99 ${sm.p99.toFixed(2)} max ${sm.max.toFixed(1)} ms, rss ${(rss.peak / 2 ** 20).toFixed(0)} MB`);
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
      store = new NativeStore(file, false);
      store.textChars();
      open.push(now() - t0);
      store.close();
    }
    phases.end('open');
    const diskBytes = dirBytes(dir);
    const peakRss = rss.stop();

    return {
      engine: 'native',
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
