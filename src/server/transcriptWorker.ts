// Entry of dist/transcriptWorker.js: the thread that opens, reads, checks and parses the
// transcripts hook payloads name, so none of that work, which grows with the file, runs on the
// server's main thread (docs/architecture.md, "Threads"). It holds the harness parsers and no
// store: the session's cursor is asked of the main thread, which asks the store.

import { parentPort } from 'node:worker_threads';
import type { TranscriptFileCursor } from '../core/fileCursor';
import { readNamedTranscript } from './transcriptSource';
import { crossError, uncrossError, type ToTranscriptWorker } from './transcriptMessages';

const port = parentPort!;
/** Reads waiting for the main thread's answer to "what is this session's cursor for this file". */
const cursorWaiters = new Map<number, { resolve: (cursor: TranscriptFileCursor | null) => void; reject: (err: Error) => void }>();

port.on('message', (msg: ToTranscriptWorker) => {
  if (msg.kind === 'cursor') {
    const waiter = cursorWaiters.get(msg.id);
    cursorWaiters.delete(msg.id);
    if (msg.error) waiter?.reject(uncrossError(msg.error));
    else waiter?.resolve(msg.cursor);
    return;
  }
  const { id } = msg;
  const cursorFor = (realPath: string) =>
    new Promise<TranscriptFileCursor | null>((resolve, reject) => {
      cursorWaiters.set(id, { resolve, reject });
      port.postMessage({ kind: 'cursor', id, realPath });
    });
  readNamedTranscript(msg.request, cursorFor).then(
    (value) => port.postMessage({ kind: 'done', id, value }),
    (err: unknown) => {
      cursorWaiters.delete(id);
      port.postMessage({ kind: 'done', id, error: crossError(err) });
    },
  );
});
