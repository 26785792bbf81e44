// The files hook health is read from (core/hookHealth.ts builds the report): DIR/hook-health.json,
// where the server notes per harness and event when a hook call last succeeded, and the tail of
// DIR/hooks.log, where the hook command and the OpenCode plugin note what failed. The server's
// recorder writes the JSON file atomically, at once for an event it has not seen yet and at most
// every few seconds otherwise, so a hook on every prompt costs no disk write each.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { hookHealthReport, type HookFirings, type HookHarnessInfo, type HookHealthReport } from '../core/hookHealth';
import { writeFileAtomic } from './fsync';

export function hookHealthFile(dataDir: string): string {
  return path.join(dataDir, 'hook-health.json');
}

export function hooksLogFile(dataDir: string): string {
  return path.join(dataDir, 'hooks.log');
}

/** What the server recorded; empty when nothing was (or the file is unreadable: it is only a report). */
export function readHookFirings(dataDir: string): HookFirings {
  try {
    const parsed = JSON.parse(fs.readFileSync(hookHealthFile(dataDir), 'utf8')) as Partial<HookFirings>;
    const harnesses: HookFirings['harnesses'] = {};
    for (const [id, events] of Object.entries(parsed.harnesses ?? {})) {
      if (!events || typeof events !== 'object') continue;
      harnesses[id] = Object.fromEntries(Object.entries(events).filter(([, at]) => typeof at === 'string'));
    }
    return { harnesses };
  } catch {
    return { harnesses: {} };
  }
}

/** The last lines of hooks.log (its last `maxBytes`; a first partial line is dropped), oldest first. */
export function readHooksLogTail(dataDir: string, maxBytes = 256 * 1024): string[] {
  let fd: number;
  try {
    fd = fs.openSync(hooksLogFile(dataDir), 'r');
  } catch {
    return [];
  }
  try {
    const size = fs.fstatSync(fd).size;
    const start = Math.max(0, size - maxBytes);
    const buf = Buffer.alloc(size - start);
    const n = fs.readSync(fd, buf, 0, buf.length, start);
    const lines = buf.subarray(0, n).toString('utf8').split('\n');
    if (start > 0) lines.shift();
    return lines.filter((l) => l.trim() !== '');
  } finally {
    fs.closeSync(fd);
  }
}

/** A harness id or event name as the file may hold it (they come from a request header). */
const NAME = /^[A-Za-z][A-Za-z0-9._-]{0,39}$/;
/** Events kept per harness: a caller inventing names cannot grow the file without bound. */
const MAX_EVENTS = 40;

/** The server's side: notes successes in memory and writes them to hook-health.json. */
export class HookHealthRecorder {
  private readonly firings: HookFirings;
  private timer: NodeJS.Timeout | null = null;
  private lastWrite = 0;

  constructor(
    private readonly dataDir: string,
    private readonly minIntervalMs = 5_000,
  ) {
    this.firings = readHookFirings(dataDir);
  }

  record(harness: string, event: string, at = new Date()): void {
    if (!NAME.test(harness) || !NAME.test(event)) return;
    const events = (this.firings.harnesses[harness] ??= {});
    const isNew = !(event in events);
    if (isNew && Object.keys(events).length >= MAX_EVENTS) return;
    events[event] = at.toISOString();
    if (isNew || Date.now() - this.lastWrite >= this.minIntervalMs) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), this.minIntervalMs).unref();
  }

  /** Writes what a timer still holds back (at close). */
  flushPending(): void {
    if (this.timer) this.flush();
  }

  /** Writes what is noted now. Never throws: it is only a report. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.lastWrite = Date.now();
    try {
      writeFileAtomic(hookHealthFile(this.dataDir), JSON.stringify(this.firings, null, 2) + '\n');
    } catch {
      /* a report must not fail a hook call */
    }
  }

  snapshot(): HookFirings {
    return JSON.parse(JSON.stringify(this.firings)) as HookFirings;
  }
}

/** The hook health report of a data directory, for the harnesses given (the registry's). */
export function readHookHealthReport(dataDir: string, harnesses: readonly HookHarnessInfo[], maxFailures = 20): HookHealthReport {
  return hookHealthReport(harnesses, readHookFirings(dataDir), readHooksLogTail(dataDir), { dataDir, maxFailures });
}
