// Reads a harness transcript named by a hook payload, but only when it is safe to: through the
// one reader of files a request names (src/node/payloadFiles.ts), which resolves the name once
// under an allowed root, opens it once (no symlink in its last component, never blocking on a
// FIFO or a device) and decides everything on that open descriptor. Only the descriptor is read,
// so swapping the path between the check and the read changes nothing.
// See "Reading files a request names" in docs/security.md.

import * as path from 'node:path';
import { BatonError } from '../core/errors';
import { completeLength, nextTail, type FileReadCursor, type TranscriptFileCursor } from '../core/fileCursor';
import { asObj, parseJsonLines, START_STATE, tryParse, type LineParseState, type TranscriptParser } from '../core/normalize';
import { lineParser, normalizeTranscript, transcriptFormat } from '../harnesses/registry';
import { FileRefused, withPayloadFile, type OpenedFile } from '../node/payloadFiles';
import type { Turn } from '../core/types';

/**
 * The one answer for a path that is missing, outside the roots, a symlink swapped in, or otherwise
 * not openable: a caller cannot tell whether a file exists anywhere outside the allowed folders.
 */
export const UNREADABLE_TRANSCRIPT = 'transcriptPath is not a readable file under the allowed transcript folders';

/** A transcript read (open and every chunk) must be done within this. */
const TRANSCRIPT_READ_MS = 30_000;

/** An open transcript: its identity, its size when opened, and reads by position (async, in chunks). */
export type ByteWindow = Omit<OpenedFile, 'path'>;

/** What the caller is told: only a file already proven to be under a root gets a specific answer. */
function refusal(err: unknown): unknown {
  if (!(err instanceof FileRefused)) return err;
  if (err.reason === 'not-a-file') return new BatonError('invalid_request', 'transcriptPath is not a regular file');
  if (err.reason === 'timed-out') return new BatonError('invalid_request', 'transcriptPath could not be read in time');
  return new BatonError('invalid_request', UNREADABLE_TRANSCRIPT);
}

/**
 * Opens an allowed transcript file with every protection of the reader and hands it to `use`
 * while it is open. Refused (400) when the path is relative, does not lead to a file under an
 * allowed root, or is not a regular file.
 */
export async function withTranscriptFile<T>(requested: string, roots: string[], use: (file: ByteWindow & { path: string }) => Promise<T>): Promise<T> {
  if (!path.isAbsolute(requested)) throw new BatonError('invalid_request', 'transcriptPath must be an absolute path');
  let opened = false;
  try {
    return await withPayloadFile(requested, { roots, timeoutMs: TRANSCRIPT_READ_MS }, (file) => {
      opened = true;
      return use(file);
    });
  } catch (err) {
    // A refusal of the file itself; what `use` throws (a parse error, a store error) passes as it is,
    // except a chunk read that ran out of time.
    if (!opened || err instanceof FileRefused) throw refusal(err);
    throw err;
  }
}

/** What one read of a transcript gave: turns, and where the read stopped for the next one. */
export interface TranscriptRead {
  /** The real path: the file cursor's key. */
  path: string;
  turns: Turn[];
  /** Set when `turns` are only what the file gained since `from` (an incremental read). */
  continuation?: Pick<TranscriptFileCursor, 'sourceTurns' | 'sourceHash' | 'sourceChars' | 'rehash'>;
  /** Where this read stopped; null for a format that is not read line by line (the next read is whole again). */
  cursor: FileReadCursor | null;
  /** Whether the read reached the end of the file (else the cap stopped it). */
  complete: boolean;
}

/** Text parsed per slice; the event loop runs between slices, so a large append never blocks it for long. */
const PARSE_SLICE = 512 * 1024;

/**
 * Reads what a transcript gained since `from` (or all of it when `from` is null), at most
 * `maxBytes` per call: only complete lines are consumed, the rest waits for the next call.
 * 'restart' when the new lines would change turns parsed before (read it again in full).
 * A file in a format that is not line based is read whole, within the cap.
 */
export async function readTranscriptLines(
  file: ByteWindow & { path: string },
  from: TranscriptFileCursor | null,
  harness: string,
  maxBytes: number,
): Promise<TranscriptRead | 'restart'> {
  const read = await readLinesFrom(file, from, harness, maxBytes, {});
  if (!('restart' in read)) return read;
  if (from) return 'restart';
  // A read from the start learned something about the whole file late (Claude Code: a main
  // thread after sub-agent lines): once more, knowing it from the first line.
  const again = await readLinesFrom(file, null, harness, maxBytes, read.restart);
  return 'restart' in again ? 'restart' : again;
}

async function readLinesFrom(
  file: ByteWindow & { path: string },
  from: TranscriptFileCursor | null,
  harness: string,
  maxBytes: number,
  knownFlags: Record<string, boolean>,
): Promise<TranscriptRead | { restart: Record<string, boolean> }> {
  const start = from?.offset ?? 0;
  const bytes = await file.read(start, Math.min(maxBytes, Math.max(0, file.size - start)));
  const atEof = start + bytes.length >= file.size;
  let format = from?.format;
  if (!format) {
    const text = Buffer.from(bytes).toString('utf8');
    format = transcriptFormat(text, { harness });
    if (!lineParser(format)) {
      // A message list or plain text: meaningful only whole, so the cap applies to the file.
      if (!atEof) throw new BatonError('invalid_request', `transcriptPath is ${file.size} bytes; the limit is ${maxBytes}`);
      return { path: file.path, turns: normalizeTranscript(text, { harness }), cursor: null, complete: true };
    }
  }
  const parser = lineParser(format)!;
  let consumed = completeLength(bytes, atEof);
  // One line longer than the cap could never be read whole: it is skipped so the session goes on.
  if (consumed === 0 && bytes.length >= maxBytes) consumed = bytes.length;
  // Stopped by the cap: end before a line that starts afresh, so no turn is split between two reads.
  else if (!atEof) consumed = freshStartBefore(bytes, consumed, parser);
  const lines = bytes.subarray(0, consumed);
  let state: LineParseState = from?.parse ?? { ...START_STATE, flags: knownFlags };
  const turns: Turn[] = [];
  for (let at = 0; at < lines.length;) {
    let end = Math.min(lines.length, at + PARSE_SLICE);
    if (end < lines.length) end = lines.lastIndexOf(0x0a, end - 1) + 1 || lines.indexOf(0x0a, end) + 1 || lines.length;
    const text = Buffer.from(lines.subarray(at, end)).toString('utf8').replace(/\r\n?/g, '\n');
    const parsed = parser.parseFrom(parseJsonLines(text), state);
    if ('restart' in parsed) return parsed;
    for (const turn of parsed.turns) turns.push(turn);
    state = parsed.state;
    at = end;
    if (at < lines.length) await new Promise((resolve) => setImmediate(resolve));
  }
  const previousTail = from ? Buffer.from(from.tail, 'base64') : new Uint8Array(0);
  const cursor = {
    identity: file.identity,
    offset: start + consumed,
    tail: Buffer.from(nextTail(previousTail, lines)).toString('base64'),
    format,
    parse: state,
  };
  return {
    path: file.path,
    turns,
    cursor,
    complete: atEof && consumed === bytes.length,
    ...(from ? { continuation: { sourceTurns: from.sourceTurns, sourceHash: from.sourceHash, sourceChars: from.sourceChars, rehash: from.rehash } } : {}),
  };
}

/** The start of the last of the (up to 10,000) last complete lines before `end` that starts afresh; `end` when none does. */
function freshStartBefore(bytes: Uint8Array, end: number, parser: TranscriptParser): number {
  let lineEnd = end - 1; // the newline ending the last complete line
  for (let looked = 0; looked < 10_000 && lineEnd > 0; looked++) {
    const start = bytes.lastIndexOf(0x0a, lineEnd - 1) + 1;
    if (start === 0) return end; // never cut back to nothing: the read must move on
    const record = asObj(tryParse(Buffer.from(bytes.subarray(start, lineEnd)).toString('utf8')));
    if (record && parser.startsFresh(record)) return start;
    lineEnd = start - 1;
  }
  return end;
}

/** Whether a file is still the one a cursor read: same identity, not shorter, and the same bytes before the offset. */
export async function continuesFrom(file: ByteWindow, cursor: TranscriptFileCursor): Promise<boolean> {
  if (cursor.identity !== file.identity || file.size < cursor.offset) return false;
  const tail = Buffer.from(cursor.tail, 'base64');
  if (tail.length > cursor.offset) return false;
  const now = await file.read(cursor.offset - tail.length, tail.length);
  return Buffer.compare(Buffer.from(now), tail) === 0;
}

/** What a read of a named transcript needs; everything in it crosses to the transcript worker as it is. */
export interface NamedTranscriptRequest {
  transcriptPath: string;
  roots: string[];
  harness: string;
  maxBytes: number;
  /** Read from the start, whatever the session's cursor says. */
  full: boolean;
}

/**
 * Reads a transcript a hook payload names: from where the session's last read stopped when the
 * file is still that one (`cursorFor` gives that cursor by the file's real path), once again in
 * full when it was rewritten (docs/storage.md, "Transcript file cursors").
 */
export function readNamedTranscript(
  request: NamedTranscriptRequest,
  cursorFor: (realPath: string) => Promise<TranscriptFileCursor | null>,
): Promise<TranscriptRead> {
  const { harness, maxBytes } = request;
  return withTranscriptFile(request.transcriptPath, request.roots, async (file) => {
    const from = request.full ? null : await cursorFor(file.path);
    const resumed = from && (await continuesFrom(file, from)) ? await readTranscriptLines(file, from, harness, maxBytes) : 'restart';
    if (resumed !== 'restart') return resumed;
    const whole = await readTranscriptLines(file, null, harness, maxBytes);
    if (whole === 'restart') throw new BatonError('internal', 'a transcript read from its start could not be parsed consistently');
    return whole;
  });
}
