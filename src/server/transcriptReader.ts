// The main thread's side of the transcript worker (src/server/transcriptWorker.ts): a read of a
// transcript a hook payload names is handed to that thread, and only its result (the new turns
// and the cursor) comes back, so the main thread, which answers every request, never reads,
// checks or parses a file whose size a payload decides (docs/architecture.md, "Threads").
// One worker per process, started on the first read and shared by every server in it; it never
// keeps the process alive, and a worker that dies is started again by the next read.

import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { BatonError } from '../core/errors';
import type { TranscriptFileCursor } from '../core/fileCursor';
import type { NamedTranscriptRequest, TranscriptRead } from './transcriptSource';
import { crossError, uncrossError, type FromTranscriptWorker, type ToTranscriptWorker } from './transcriptMessages';

interface Pending {
  resolve: (read: TranscriptRead) => void;
  reject: (err: Error) => void;
  cursorFor: (realPath: string) => Promise<TranscriptFileCursor | null>;
}

let worker: Worker | null = null;
const pending = new Map<number, Pending>();
let nextId = 1;

function spawn(): Worker {
  // Bundled: dist/transcriptWorker.js beside the bundle that runs the server (cli.js, extension.js).
  // From source (tests, under tsx): the .ts entry, with tsx's require hook registered first.
  if (__filename.endsWith('.ts')) {
    const script = path.join(__dirname, 'transcriptWorker.ts');
    return new Worker(`require('tsx/cjs'); require(${JSON.stringify(script)});`, { eval: true });
  }
  return new Worker(path.join(__dirname, 'transcriptWorker.js'));
}

function failAll(w: Worker, err: Error): void {
  if (worker !== w) return;
  worker = null;
  for (const waiter of pending.values()) waiter.reject(new BatonError('unavailable', `the transcript reader stopped: ${err.message}`));
  pending.clear();
}

function running(): Worker {
  if (worker) return worker;
  const w = spawn();
  w.on('message', (msg: FromTranscriptWorker) => {
    const waiter = pending.get(msg.id);
    if (!waiter) return;
    if (msg.kind === 'cursor') {
      waiter.cursorFor(msg.realPath).then(
        (cursor) => w.postMessage({ kind: 'cursor', id: msg.id, cursor } satisfies ToTranscriptWorker),
        (err: unknown) => w.postMessage({ kind: 'cursor', id: msg.id, cursor: null, error: crossError(err) } satisfies ToTranscriptWorker),
      );
      return;
    }
    pending.delete(msg.id);
    if (pending.size === 0) w.unref();
    if (msg.error) waiter.reject(uncrossError(msg.error));
    else waiter.resolve(msg.value!);
  });
  w.on('error', (err) => failAll(w, err));
  w.on('exit', (code) => failAll(w, new Error(`exited (${code})`)));
  w.unref();
  worker = w;
  return w;
}

/**
 * Starts the worker ahead of the first read (a server calls it as it starts): the first hook that
 * names a file then waits for the read only, not for a thread to start and load the parsers.
 */
export function startTranscriptReader(): void {
  running();
}

/** The reader thread now, if one runs (for checks of what happens when it dies). */
export function transcriptReaderThread(): Worker | null {
  return worker;
}

/**
 * Reads a transcript a hook payload names on the transcript worker (readNamedTranscript in
 * transcriptSource.ts, with the same answers and refusals); `cursorFor` runs here, on the main
 * thread, when the worker knows the file's real path.
 */
export function readTranscriptOffThread(
  request: NamedTranscriptRequest,
  cursorFor: (realPath: string) => Promise<TranscriptFileCursor | null>,
): Promise<TranscriptRead> {
  const w = running();
  const id = nextId++;
  return new Promise<TranscriptRead>((resolve, reject) => {
    pending.set(id, { resolve, reject, cursorFor });
    // Kept alive while a read is in flight, like any request's own I/O.
    w.ref();
    w.postMessage({ kind: 'read', id, request } satisfies ToTranscriptWorker);
  });
}
