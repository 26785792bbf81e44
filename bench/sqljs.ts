// The sql.js store under the benchmark workload, driven exactly as Baton drives it: through the
// `Store` client (worker thread, group-committed journal with fdatasync, background snapshots).

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Store } from '../src/store/store';
import { diagnoseSqljs } from './diagnose';
import { dirBytes, maxRssBytes, now, Phases, RssSampler, Sample, writeBuckets, type EngineResult } from './stats';
import { buildQueries, HARNESS, mix, prng, Workload, type QueryKind } from './workload';
import type { Diagnosis, Log, RunConfig } from './types';

const KINDS: QueryKind[] = ['one', 'two', 'phrase'];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const collect = () => globalThis.gc?.();

export async function runSqljs(cfg: RunConfig, log: Log): Promise<EngineResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-bench-sqljs-'));
  const rss = new RssSampler();
  rss.start(50);
  const phases = new Phases();
  let genMs = 0;
  const w = new Workload({ seed: cfg.seed, sessions: cfg.sessions, turns: cfg.turns });
  const queries = buildQueries(w, cfg.queries);
  const keys = Array.from({ length: cfg.sessions }, (_, s) => w.sessionKey(s));
  const turnCount = new Array<number>(cfg.sessions).fill(0);
  let snapshotsWritten = 0;
  const watch = (store: Store) => {
    store.on('log', (level: string, message: string) => {
      if (/snapshot written/.test(message)) {
        snapshotsWritten++;
        log(`store: ${message}`);
      } else if (level !== 'info') log(`store ${level}: ${message}`);
    });
    store.on('error', (err: Error) => log(`store error: ${err.message}`));
  };

  try {
    let store = await Store.open({ dataDir: dir, holder: 'baton bench' });
    watch(store);

    const recordTurn = async (s: number) => {
      const k = turnCount[s] + 1;
      const g0 = now();
      const turns = w.transcript(s, k);
      genMs += now() - g0;
      const t0 = now();
      const res = await store.write('recordTranscript', { key: keys[s], harness: HARNESS, project: w.project(s), turns });
      const dt = now() - t0;
      turnCount[s] = k;
      return { dt, ok: res.appended === 1 && res.turnCount === k };
    };

    // 1. Growing sessions, round robin: turn k of every session, then k + 1.
    phases.start();
    const writes = new Sample();
    const byTurn = Array.from({ length: cfg.turns }, () => new Sample());
    // Split by whether a background snapshot (auto compaction) was running, polled every 50 writes.
    const writesCompacting = new Sample();
    const writesQuiet = new Sample();
    let compacting = false;
    let violations = 0;
    for (let k = 1; k <= cfg.turns; k++) {
      const roundStart = now();
      for (let s = 0; s < cfg.sessions; s++) {
        if (s % 50 === 0) compacting = (await store.status()).compacting;
        const { dt, ok } = await recordTurn(s);
        writes.push(dt);
        byTurn[k - 1].push(dt);
        (compacting ? writesCompacting : writesQuiet).push(dt);
        if (!ok) violations++;
      }
      if (k % 5 === 0 || k === 1 || k === cfg.turns) {
        const sm = byTurn[k - 1].summary();
        log(
          `turn ${k}/${cfg.turns}: round ${((now() - roundStart) / 1000).toFixed(1)} s, write p50 ${sm.p50.toFixed(2)} p99 ${sm.p99.toFixed(2)} max ${sm.max.toFixed(1)} ms, rss ${(rss.peak / 2 ** 20).toFixed(0)} MB${compacting ? ', background snapshot running' : ''}`,
        );
      }
    }
    phases.end('writes');
    const genWritesMs = genMs;
    const autoSnapshots = snapshotsWritten;
    const stats = await store.read('stats', {});
    const textChars = stats.textChars;
    log(
      `writes done in ${phases.seconds.writes.toFixed(0)} s; ${stats.sessions} sessions, ${stats.turns} turns, ${stats.segments} segments, text ${(textChars / 2 ** 20).toFixed(0)} MB, db ${((stats.pages * stats.pageSize) / 2 ** 20).toFixed(0)} MB, ${autoSnapshots} auto snapshots`,
    );

    // 2. Searches: warm up with a few, then 200 of each kind.
    collect();
    phases.start();
    const search = {} as Record<QueryKind, Sample>;
    const hits = {} as Record<QueryKind, number>;
    const oneByClass = [new Sample(), new Sample(), new Sample(), new Sample()];
    for (const kind of KINDS) {
      for (const q of queries[kind].slice(0, 3)) await store.read('search', { scope: 'all', query: q, limit: 10 });
      search[kind] = new Sample();
      hits[kind] = 0;
      for (let i = 0; i < queries[kind].length; i++) {
        const t0 = now();
        const found = await store.read('search', { scope: 'all', query: queries[kind][i], limit: 10 });
        const dt = now() - t0;
        search[kind].push(dt);
        if (kind === 'one') oneByClass[i % 4].push(dt);
        hits[kind] += found.length;
      }
      hits[kind] /= queries[kind].length;
    }
    phases.end('search');

    // 3. Tail reads of random sessions.
    phases.start();
    const tail = new Sample();
    const pick = prng(mix(cfg.seed, 5));
    for (let i = 0; i < cfg.queries; i++) {
      const key = keys[Math.floor(pick() * cfg.sessions)];
      const t0 = now();
      await store.read('tail', { scope: 'all', key, chars: 3000 });
      tail.push(now() - t0);
    }
    phases.end('tail');

    // Sessions keep growing past the workload for the snapshot phases.
    let cursor = 0;
    const nextSession = () => cursor++ % cfg.sessions;
    const idle = async () => {
      while ((await store.status()).compacting) await sleep(100);
    };

    // 4. Snapshots on an otherwise quiet store.
    phases.start();
    const snapshot = new Sample();
    for (let r = 0; r < cfg.snapshotRounds; r++) {
      await idle();
      for (let i = 0; i < 10; i++) await recordTurn(nextSession());
      collect();
      const t0 = now();
      await store.snapshot();
      snapshot.push(now() - t0);
      log(`snapshot ${r + 1}: ${snapshot.values()[r].toFixed(0)} ms`);
    }
    phases.end('snapshot');

    // 5. Writes and searches back to back while a snapshot is being taken.
    phases.start();
    const stallWrite = new Sample();
    const stallSearch = new Sample();
    const stallAll = new Sample();
    // A search costs what its query costs (a phrase of common words reads long doclists with or
    // without a snapshot): what a snapshot adds is measured against the same query run again on
    // the quiet store right after the snapshot.
    const stallSearchExtra = new Sample();
    const snapshotMs: number[] = [];
    const allQueries = [...queries.one, ...queries.two, ...queries.phrase];
    let qi = 0;
    for (let r = 0; r < cfg.stallRounds; r++) {
      await idle();
      for (let i = 0; i < 10; i++) await recordTurn(nextSession());
      let done = false;
      const during: Array<{ query: string; dt: number }> = [];
      const t0 = now();
      const snap = store.snapshot().then(() => {
        done = true;
        snapshotMs.push(now() - t0);
      });
      for (let i = 0; !done; i++) {
        if (i % 2 === 0) {
          const { dt } = await recordTurn(nextSession());
          stallWrite.push(dt);
          stallAll.push(dt);
        } else {
          const q = allQueries[qi++ % allQueries.length];
          const s0 = now();
          await store.read('search', { scope: 'all', query: q, limit: 10 });
          const dt = now() - s0;
          stallSearch.push(dt);
          stallAll.push(dt);
          during.push({ query: q, dt });
        }
      }
      await snap;
      for (const { query, dt } of during) {
        const s0 = now();
        await store.read('search', { scope: 'all', query, limit: 10 });
        stallSearchExtra.push(Math.max(0, dt - (now() - s0)));
      }
      log(`snapshot under load ${r + 1}: ${snapshotMs[r].toFixed(0)} ms, ${stallAll.length} ops so far, worst ${stallAll.summary().max.toFixed(1)} ms`);
    }
    phases.end('stall');

    // 6. Close (writes a final snapshot), then cold opens of the same directory.
    phases.start();
    let t0 = now();
    await store.close();
    const closeMs = now() - t0;
    const open = new Sample();
    const openInternalMs: number[] = [];
    for (let i = 0; i < cfg.opens; i++) {
      collect();
      t0 = now();
      store = await Store.open({ dataDir: dir, holder: 'baton bench' });
      open.push(now() - t0);
      openInternalMs.push(store.report.openMs);
      await store.close();
    }
    phases.end('open');
    const diskBytes = dirBytes(dir);
    const peakRss = rss.stop();
    const maxRss = maxRssBytes();

    // 7. Breakdown of the costs on a private copy of the final snapshot (after the memory figures).
    let diagnosis: Diagnosis | undefined;
    if (process.env.BENCH_DIAGNOSE !== '0') {
      phases.start();
      diagnosis = await diagnoseSqljs(path.join(dir, 'snapshots'), w, queries, keys, log);
      phases.end('diagnose');
    }

    return {
      engine: 'sqljs',
      sessions: cfg.sessions,
      turns: cfg.turns,
      write: writes.summary(),
      ...writeBuckets(byTurn, cfg.turns),
      writeDuringCompaction: writesCompacting.summary(),
      writeNoCompaction: writesQuiet.summary(),
      search: { one: search.one.summary(), two: search.two.summary(), phrase: search.phrase.summary() },
      searchOneByClass: oneByClass.map((sm) => sm.summary()),
      searchHits: { one: hits.one, two: hits.two, phrase: hits.phrase },
      tail: tail.summary(),
      snapshot: snapshot.summary(),
      stall: { write: stallWrite.summary(), search: stallSearch.summary(), searchExtra: stallSearchExtra.summary(), all: stallAll.summary(), snapshotMs },
      open: open.summary(),
      openInternalMs,
      closeMs,
      peakRss,
      maxRss,
      textChars,
      diskBytes,
      deltaViolations: violations,
      autoSnapshots,
      phaseSeconds: phases.seconds,
      cpuMs: phases.cpuMs,
      genMs: genWritesMs,
      diagnosis,
    };
  } finally {
    rss.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
