// Two probes for "a file a request names never holds the server": a FIFO watcher in a process of
// its own, which tells whether anything ever opened a FIFO for reading (a non-blocking open for
// writing succeeds only while a reader has it open, and releases a reader blocked in open(2)), and
// a meter of how long this process's event loop was held at most.

import { spawn, spawnSync } from 'node:child_process';
import { strict as assert } from 'node:assert';

const WATCHER = `
const fs = require('fs');
const { fifos, delayMs, payload } = JSON.parse(process.env.FIFO_WATCH);
let stop = false, connected = 0;
process.stdin.on('end', () => { stop = true; }).resume();
const flags = fs.constants.O_WRONLY | fs.constants.O_NONBLOCK;
(async () => {
  const started = Date.now();
  while (!stop && Date.now() - started < delayMs) await new Promise((r) => setTimeout(r, 10));
  while (!stop) {
    for (const fifo of fifos) {
      let fd;
      try { fd = fs.openSync(fifo, flags); } catch { continue; }
      connected++;
      try { if (payload) fs.writeSync(fd, payload); } catch {}
      fs.closeSync(fd);
    }
    await new Promise((r) => setTimeout(r, 2));
  }
  process.stdout.write(JSON.stringify({ connected }));
})();
`;

export function mkfifo(file: string): void {
  const made = spawnSync('mkfifo', [file]);
  assert.equal(made.status, 0, `mkfifo: ${made.stderr}`);
}

export interface FifoWatch {
  /** Stops watching; how many times a reader was found on one of the FIFOs. */
  stop(): Promise<number>;
}

/**
 * Watches FIFOs from another process: after `delayMs`, every 2 ms, tries to connect a writer to
 * each (writing `payload` when one connects). A server blocked reading one is released that way,
 * so a test on code that blocks ends (and fails) instead of hanging.
 */
export function watchFifos(fifos: string[], opts: { delayMs?: number; payload?: string } = {}): FifoWatch {
  const child = spawn(process.execPath, ['-e', WATCHER], {
    env: { ...process.env, FIFO_WATCH: JSON.stringify({ fifos, delayMs: opts.delayMs ?? 0, payload: opts.payload ?? '' }) },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return {
    async stop() {
      child.stdin.end();
      await exited;
      return (JSON.parse(out) as { connected: number }).connected;
    },
  };
}

export interface LoopMeter {
  /** Stops measuring; the longest the event loop went without running a 10 ms timer, in ms. */
  stop(): number;
}

/** Measures how long this process's event loop is held at most (the server runs in it). */
export function meterEventLoop(): LoopMeter {
  let last = Date.now();
  let longest = 0;
  const timer = setInterval(() => {
    const now = Date.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 10);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(longest, Date.now() - last);
    },
  };
}
