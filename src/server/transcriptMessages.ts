// What the server's main thread and the transcript reader thread (transcriptWorker.ts) say to each
// other (docs/architecture.md, "Threads"): plain data only, since each message is copied between
// the threads.

import { BatonError, errorClassOf, type ErrorCode } from '../core/errors';
import type { TranscriptFileCursor } from '../core/fileCursor';
import type { NamedTranscriptRequest, TranscriptRead } from './transcriptSource';

/**
 * An error between the threads: a BatonError keeps its code and message (what the caller is told);
 * anything else crosses as its class only, and the caller gets the server's plain "internal error"
 * (server/http.ts), as it would have without the thread: no message of a file or parser reaches it.
 */
export type CrossedError = { code: ErrorCode; message: string } | { internal: string };

export function crossError(err: unknown): CrossedError {
  return err instanceof BatonError ? { code: err.code, message: err.message } : { internal: errorClassOf(err) };
}

export function uncrossError(error: CrossedError): Error {
  return 'internal' in error ? new Error(`transcript reader: ${error.internal}`) : new BatonError(error.code, error.message);
}

/** Main thread to worker: a read to do, or the session's cursor a read asked for. */
export type ToTranscriptWorker =
  { kind: 'read'; id: number; request: NamedTranscriptRequest } | { kind: 'cursor'; id: number; cursor: TranscriptFileCursor | null; error?: CrossedError };

/** Worker to main thread: a read needs the session's cursor for the file's real path, or is done. */
export type FromTranscriptWorker =
  { kind: 'cursor'; id: number; realPath: string } | { kind: 'done'; id: number; value?: TranscriptRead; error?: CrossedError };
