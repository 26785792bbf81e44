// Worker entry: owns the sql.js database. Messages queue up and are executed in batches, so many
// concurrent writes share one journal fsync (group commit).

import { parentPort, workerData } from 'node:worker_threads';
import type { CompactorData, CompactorMessage, OverlaidMessage } from './compactorWorker';
import { COMPACTION_PACE, Engine, type CompactionJob, type Request } from './engine';
import { layout } from '../../node/paths';
import { DataLossError } from './recovery';
import { UnusableBaseError } from './snapshot';
import { spawnWorker } from './workerScript';

interface Init {
  dataDir: string;
  compactBytes: number;
  acceptLoss: boolean;
  limitBytes: number;
}

type Incoming = Request | { kind: 'close' } | { kind: 'compact'; id: number } | { kind: 'status'; id: number };

const init = workerData as Init;
const port = parentPort!;
const paths = layout(init.dataDir);
const queue: Incoming[] = [];
let engine: Engine | null = null;
let scheduled = false;
let closing = false;

function runCompactor(job: CompactionJob): Promise<string> {
  // Only a patched snapshot needs a window shared with this thread.
  const window = new SharedArrayBuffer(job.kind === 'patch' ? COMPACTION_PACE.chunkBytes : 0);
  const data: CompactorData =
    job.kind === 'patch'
      ? { dataDir: init.dataDir, kind: 'patch', seq: job.seq, base: job.base, size: job.size, window }
      : { dataDir: init.dataDir, kind: 'replay', seq: job.seq };
  return new Promise((resolve, reject) => {
    const worker = spawnWorker('compactorWorker', data);
    let settled = false;
    worker.on('message', (msg: CompactorMessage) => {
      if (msg.type === 'want' && job.kind === 'patch') {
        // Runs between batches, never inside one: copies at most a window of pages (about 1 ms).
        try {
          job.overlay(msg.fromPage, msg.toPage, new Uint8Array(window));
        } catch (err) {
          // A snapshot that cannot be completed fails; the store thread goes on.
          settled = true;
          void worker.terminate();
          reject(err as Error);
          return;
        }
        worker.postMessage({ type: 'overlaid' } satisfies OverlaidMessage);
      } else if (msg.type === 'done') {
        settled = true;
        if (msg.ok) resolve(msg.file);
        else reject(msg.unusableBase ? new UnusableBaseError(msg.error) : new Error(msg.error));
      }
    });
    worker.once('error', (err) => {
      settled = true;
      reject(err);
    });
    worker.once('exit', (code) => {
      if (!settled) reject(new Error(`compactor exited with ${code} before writing its snapshot`));
    });
  });
}

/**
 * Runs messages in their order: consecutive reads and writes as one engine batch (group commit).
 * Resolves once every reply is sent.
 */
function runInOrder(batch: Incoming[]): Promise<unknown> {
  const sent: Array<Promise<void>> = [];
  const requests: Request[] = [];
  const runRequests = () => {
    if (requests.length === 0) return;
    sent.push(engine!.execute(requests.splice(0, requests.length), (reply) => port.postMessage({ type: 'reply', ...reply })));
  };
  for (const msg of batch) {
    if (msg.kind === 'read' || msg.kind === 'write') {
      requests.push(msg);
      continue;
    }
    runRequests();
    if (msg.kind === 'status') port.postMessage({ type: 'reply', id: msg.id, ok: true, value: { ...engine!.status, report: engine!.report } });
    else if (msg.kind === 'compact') {
      const id = msg.id;
      engine!.compact().then(() => port.postMessage({ type: 'reply', id, ok: true, value: engine!.status }));
    } else if (msg.kind === 'close' && !closing) {
      closing = true;
      engine!.close().then(
        () => port.postMessage({ type: 'closed' }),
        (err: Error) => port.postMessage({ type: 'closed', error: err.message }),
      );
    }
  }
  runRequests();
  return Promise.all(sent);
}

/**
 * Writes first, then one read at a time. A hook's write waits for at most the read already running,
 * never for a queue of searches; reads that were queued see the newer state, which is allowed since
 * they were in flight together. At close everything runs in arrival order so no read goes unanswered.
 */
function drain(): void {
  scheduled = false;
  if (!engine) return;
  const batch = queue.splice(0, queue.length);
  if (batch.some((m) => m.kind === 'close')) {
    void runInOrder(batch);
    return;
  }
  scheduleIdleIndexing(IDLE_DELAY_MS);
  const reads = batch.filter((m) => m.kind === 'read');
  const sent = [runInOrder(batch.filter((m) => m.kind !== 'read'))];
  if (reads.length > 0) sent.push(runInOrder([reads.shift()!]));
  // Once the replies are out (the journal flush runs meanwhile), a slice of indexing delays only
  // the next batch, and only when the index is behind.
  void Promise.all(sent).then(() => {
    if (!closing) engine!.indexSlice(BUSY_BACKLOG_TURNS, SLICE_TURNS);
  });
  if (reads.length > 0) {
    // Messages that arrived meanwhile are delivered before setImmediate runs, so writes jump ahead.
    queue.unshift(...reads);
    if (!scheduled) {
      scheduled = true;
      setImmediate(drain);
    }
  }
}

/** Quiet time before indexing starts, so a burst of hooks is answered first. */
const IDLE_DELAY_MS = 5;
/**
 * Turns per indexing slice, with its share of segment merging: about 0.8 ms (p99 2.8, max 18 at
 * 40,000 turns), the longest a hook arriving meanwhile waits. Slices of 8 cost a third less CPU in
 * all but paused hooks for 2 ms (p99 6, max 87).
 */
const SLICE_TURNS = 2;
/** Under load: the most turns left unindexed, i.e. what a search may have to catch up. */
const BUSY_BACKLOG_TURNS = 8;
let idleTimer: NodeJS.Timeout | null = null;

/** Brings the full-text index up to date in small slices while nothing else is queued. */
function scheduleIdleIndexing(delayMs: number): void {
  if (idleTimer || closing || !engine) return;
  idleTimer = setTimeout(() => {
    idleTimer = null;
    if (closing || !engine || queue.length > 0 || scheduled) return; // drain re-schedules
    if (engine.indexSlice(0, SLICE_TURNS)) scheduleIdleIndexing(0);
  }, delayMs);
}

port.on('message', (msg: Incoming) => {
  queue.push(msg);
  if (!scheduled) {
    scheduled = true;
    setImmediate(drain);
  }
});

Engine.open(paths, {
  compactBytes: init.compactBytes,
  onChange: (keys) => port.postMessage({ type: 'change', keys }),
  onLog: (level, message) => port.postMessage({ type: 'log', level, message }),
  startCompaction: runCompactor,
  acceptLoss: init.acceptLoss,
  limitBytes: init.limitBytes,
}).then(
  (opened) => {
    engine = opened;
    port.postMessage({ type: 'ready', report: opened.report, storage: opened.status.storage });
    if (queue.length > 0 && !scheduled) {
      scheduled = true;
      setImmediate(drain);
    }
  },
  (err: Error) => port.postMessage({ type: 'failed', error: err.message, stack: err.stack, missing: err instanceof DataLossError ? err.missing : undefined }),
);
