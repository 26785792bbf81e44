// Reads a harness transcript named by a hook payload, but only when it is safe to. The file is
// opened once (never following a symlink in its last component, never blocking on a FIFO or a
// device), and everything is decided on that open descriptor: where it really lives (under an
// allowed root), what it is (a regular file) and how big it is (within the cap). Only the
// descriptor is read, so swapping the path between the check and the read changes nothing.
// See "Reading transcript files" in docs/security.md.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { BatonError } from '../core/errors';
import { completeLength, nextTail, type FileReadCursor, type TranscriptFileCursor } from '../core/fileCursor';
import { asObj, parseJsonLines, START_STATE, tryParse, type LineParseState, type TranscriptParser } from '../core/normalize';
import { lineParser, normalizeTranscript, transcriptFormat } from '../harnesses/registry';
import type { Turn } from '../core/types';

/**
 * The one answer for a path that is missing, outside the roots, a symlink swapped in, or otherwise
 * not openable: a caller cannot tell whether a file exists anywhere outside the allowed folders.
 */
export const UNREADABLE_TRANSCRIPT = 'transcriptPath is not a readable file under the allowed transcript folders';

const C = fs.constants;
/** Read only; the last component must not be a symlink; a FIFO or device must not block the open or become our terminal. */
const OPEN_FLAGS = C.O_RDONLY | (C.O_NOFOLLOW ?? 0) | (C.O_NONBLOCK ?? 0) | (C.O_NOCTTY ?? 0);
const CHUNK = 64 * 1024;

function unreadable(): BatonError {
  return new BatonError('invalid_request', UNREADABLE_TRANSCRIPT);
}

async function realRoots(roots: string[]): Promise<string[]> {
  const out = await Promise.all(roots.map((root) => fs.promises.realpath(root).catch(() => null)));
  return out.filter((r): r is string => r !== null);
}

function isUnder(real: string, roots: string[]): boolean {
  return roots.some((root) => real === root || real.startsWith(root.endsWith(path.sep) ? root : root + path.sep));
}

/**
 * Where the open descriptor really is, from the kernel (Linux: /proc/self/fd/N names the file the
 * descriptor refers to, with no symlinks in it). readlink, not realpath: realpath would walk that
 * name again through the file system, which is exactly the lookup a swap can change. null when
 * the system offers no such name.
 */
async function descriptorPath(fd: number): Promise<string | null> {
  if (process.platform !== 'linux') return null;
  try {
    return await fs.promises.readlink(`/proc/self/fd/${fd}`);
  } catch {
    return null;
  }
}

/**
 * Whether the open file lies under a root. With the kernel's name for the descriptor, that name
 * decides. Otherwise the path is resolved again now and must both lie under a root and name the
 * very file that is open (same device and inode): a swap after the open makes them differ.
 */
async function openedUnderRoot(fd: number, opened: fs.Stats, real: string, roots: string[]): Promise<boolean> {
  const named = await descriptorPath(fd);
  if (named !== null) {
    // Not a path at all (pipe:[…], anon_inode:…) or a file removed since: refused.
    if (!path.isAbsolute(named) || named.endsWith(' (deleted)')) return false;
    return isUnder(named, roots);
  }
  try {
    const again = await fs.promises.realpath(real);
    if (!isUnder(again, roots)) return false;
    const now = await fs.promises.stat(again);
    return now.dev === opened.dev && now.ino === opened.ino;
  } catch {
    return false;
  }
}

/** An open transcript: its identity, its size when opened, and reads by position (async, in chunks). */
export interface ByteWindow {
  identity: string;
  size: number;
  /** Up to `length` bytes from `offset` (fewer at the end of the file). */
  read(offset: number, length: number): Promise<Uint8Array>;
}

/**
 * Opens an allowed transcript file with every protection described above and hands it to `use`
 * while it is open. Refused (400) when the path is relative, does not lead to a file under an
 * allowed root, or is not a regular file.
 */
export async function withTranscriptFile<T>(requested: string, roots: string[], use: (file: ByteWindow & { path: string }) => Promise<T>): Promise<T> {
  if (!path.isAbsolute(requested)) throw new BatonError('invalid_request', 'transcriptPath must be an absolute path');
  const allowed = await realRoots(roots);
  // A first look by name, so that nothing outside the roots is even opened in the ordinary case.
  // It decides nothing by itself: the descriptor is checked again below.
  let real: string;
  try {
    real = await fs.promises.realpath(requested);
  } catch {
    throw unreadable();
  }
  if (!isUnder(real, allowed)) throw unreadable();
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(real, OPEN_FLAGS);
  } catch {
    // Gone, swapped for a symlink (ELOOP), not permitted, …: all the same to the caller.
    throw unreadable();
  }
  try {
    const stat = await handle.stat();
    if (!(await openedUnderRoot(handle.fd, stat, real, allowed))) throw unreadable();
    // From here on the file is known to be under a root, so saying what is wrong with it reveals nothing.
    if (!stat.isFile()) throw new BatonError('invalid_request', 'transcriptPath is not a regular file');
    return await use({ path: real, identity: `${stat.dev}:${stat.ino}`, size: stat.size, read: (offset, length) => readAt(handle, offset, length) });
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** Reads up to `length` bytes at `offset` in CHUNK pieces (each one async), stopping at the end of the file. */
async function readAt(handle: fs.promises.FileHandle, offset: number, length: number): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  let total = 0;
  while (total < length) {
    const buf = Buffer.allocUnsafe(Math.min(CHUNK, length - total));
    const { bytesRead } = await handle.read(buf, 0, buf.length, offset + total);
    if (bytesRead === 0) break;
    total += bytesRead;
    chunks.push(bytesRead === buf.length ? buf : buf.subarray(0, bytesRead));
  }
  return Buffer.concat(chunks, total);
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
