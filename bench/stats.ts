// Percentiles, a memory sampler, directory sizes and Markdown tables for the benchmark.

import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Diagnosis, NativeEngine, Summary } from './types';

/** Nearest-rank percentile of an unsorted sample (q in [0, 1]). */
export function percentile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank];
}

export function summarize(sample: ArrayLike<number>): Summary {
  const sorted = Float64Array.from(sample as ArrayLike<number>).sort();
  let sum = 0;
  for (let i = 0; i < sorted.length; i++) sum += sorted[i];
  return {
    n: sorted.length,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    max: sorted.length ? sorted[sorted.length - 1] : NaN,
    mean: sorted.length ? sum / sorted.length : NaN,
  };
}

/** A growable sample of latencies (ms). */
export class Sample {
  private data = new Float64Array(1024);
  length = 0;
  push(v: number): void {
    if (this.length === this.data.length) {
      const next = new Float64Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }
  values(): Float64Array {
    return this.data.subarray(0, this.length);
  }
  summary(): Summary {
    return summarize(this.values());
  }
}

/** Samples process RSS (all threads: the store worker and the compactor are in this process). */
export class RssSampler {
  peak = 0;
  private timer: NodeJS.Timeout | null = null;
  start(everyMs = 50): void {
    this.tick();
    this.timer = setInterval(() => this.tick(), everyMs);
  }
  tick(): void {
    const rss = process.memoryUsage.rss();
    if (rss > this.peak) this.peak = rss;
  }
  stop(): number {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.tick();
    return this.peak;
  }
}

/** High-water RSS from the kernel (getrusage), in bytes. */
export function maxRssBytes(): number {
  return process.resourceUsage().maxRSS * 1024;
}

export function dirBytes(dir: string): number {
  let total = 0;
  if (!fs.existsSync(dir)) return 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += dirBytes(full);
    else if (entry.isFile()) total += fs.statSync(full).size;
  }
  return total;
}

export const now = (): number => performance.now();

export function ms(v: number | undefined | null, digits?: number): string {
  if (v === undefined || v === null || Number.isNaN(v)) return '—';
  const d = digits ?? (v < 10 ? 2 : v < 100 ? 1 : 0);
  return v.toFixed(d);
}

export function mb(bytes: number | undefined | null): string {
  if (bytes === undefined || bytes === null || Number.isNaN(bytes)) return '—';
  const m = bytes / 1024 / 1024;
  return m >= 100 ? `${m.toFixed(0)} MB` : m >= 1 ? `${m.toFixed(1)} MB` : `${(bytes / 1024).toFixed(0)} KB`;
}

export function ratio(a: number | undefined | null, b: number | undefined | null): string {
  if (a === undefined || a === null || b === undefined || b === null || !Number.isFinite(a) || !Number.isFinite(b) || b === 0) return '—';
  const r = a / b;
  return `${r < 10 ? r.toFixed(2) : r.toFixed(1)}×`;
}

export function table(header: string[], rows: string[][]): string {
  const lines = [`| ${header.join(' | ')} |`, `|${header.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`];
  for (const row of rows) lines.push(`| ${row.join(' | ')} |`);
  return lines.join('\n');
}

/** What one engine run (one child process) reports back to the driver. */
/** Write latency by transcript length: the first and last five turns, and every 5-turn bucket. */
export function writeBuckets(byTurn: Sample[], turns: number): Pick<EngineResult, 'writeFirst5' | 'writeLast5' | 'writeByBucket'> {
  const bucket = (from: number, to: number) => summarize(byTurn.slice(from - 1, to).flatMap((sm) => Array.from(sm.values())));
  const writeByBucket = [];
  for (let from = 1; from <= turns; from += 5) writeByBucket.push(bucket(from, Math.min(from + 4, turns)));
  return { writeFirst5: bucket(1, Math.min(5, turns)), writeLast5: bucket(Math.max(1, turns - 4), turns), writeByBucket };
}

export interface EngineResult {
  engine: 'sqljs' | NativeEngine;
  sessions: number;
  turns: number;
  write: Summary;
  writeFirst5: Summary;
  writeLast5: Summary;
  /** Write latency per 5-turn bucket (turns 1–5, 6–10, …). */
  writeByBucket: Summary[];
  /** sql.js: writes issued while a background (auto) snapshot was running, and the others. */
  writeDuringCompaction?: Summary;
  writeNoCompaction?: Summary;
  search: { one: Summary; two: Summary; phrase: Summary };
  /** One-word search by word class: common (rank < 100), mid, rare (rank ≥ 1000), identifier. */
  searchOneByClass: Summary[];
  /** Mean number of hits returned per query, by kind (a sanity check that both engines find things). */
  searchHits: { one: number; two: number; phrase: number };
  tail: Summary;
  /** Snapshot wall time with nothing else running (native: WAL checkpoint(TRUNCATE)). */
  snapshot: Summary | null;
  /**
   * Operations issued back to back while a snapshot runs. `searchExtra`: each search's time beyond
   * the same query run again on the quiet store afterwards (what the snapshot added).
   */
  stall: { write: Summary; search: Summary; searchExtra: Summary; all: Summary; snapshotMs: number[] } | null;
  open: Summary;
  /** Inside the worker: loadDatabase (snapshot read + verify + journal replay), from OpenReport.openMs. */
  openInternalMs: number[];
  closeMs: number;
  peakRss: number;
  maxRss: number;
  textChars: number;
  diskBytes: number;
  deltaViolations: number;
  autoSnapshots: number;
  phaseSeconds: Record<string, number>;
  /** Process CPU time (all threads) per phase, ms. */
  cpuMs: Record<string, number>;
  /** Wall time the benchmark spent generating transcripts during the write phase (outside the timed calls), ms. */
  genMs: number;
  /** sql.js only: the pieces of open, search and write timed on a copy of the final snapshot. */
  diagnosis?: Diagnosis;
}

/** Wall and process CPU time (all threads: main, store worker, compactor) per benchmark phase. */
export class Phases {
  readonly seconds: Record<string, number> = {};
  readonly cpuMs: Record<string, number> = {};
  private t = 0;
  private c = process.cpuUsage();
  start(): void {
    this.t = now();
    this.c = process.cpuUsage();
  }
  end(name: string): void {
    this.seconds[name] = (now() - this.t) / 1000;
    const d = process.cpuUsage(this.c);
    this.cpuMs[name] = (d.user + d.system) / 1000;
  }
}
