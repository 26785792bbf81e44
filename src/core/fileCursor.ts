// Where the last read of a harness's transcript file stopped, so the next hook reads only what
// the harness appended (docs/storage.md, "Transcript file cursors"). Pure: the bytes come from
// the server (its own read of a file under the roots) or from a hook that read its own file.

import { hashText } from './hash';
import type { LineParseState } from './normalize';

/** How many bytes before the consumed offset are kept to recognise the same file on the next read. */
export const TAIL_BYTES = 4096;

export interface TranscriptFileCursor {
  /** `dev:ino` of a file the server read, or `client` for bytes a hook sent. */
  identity: string;
  /** Bytes consumed: every complete line before it has been parsed. */
  offset: number;
  /** The up to TAIL_BYTES bytes before `offset`, base64: a rewrite of the file changes them. */
  tail: string;
  /** The harness format the file was detected as (a JSONL parser's name). */
  format: string;
  parse: LineParseState;
  /** The session's delta cursor right after this read; the file continues it only while it is unchanged. */
  sourceTurns: number;
  sourceHash: string;
  sourceChars: number;
  /** The file is being read again from its start (it was rewritten), a cap at a time: recognise its turns by hash until its end. */
  rehash?: boolean;
}

/** What a read of a file decides of its cursor; the store adds the session cursor it continues. */
export type FileReadCursor = Omit<TranscriptFileCursor, 'sourceTurns' | 'sourceHash' | 'sourceChars' | 'rehash'>;

/** The recognisable mark of a cursor's tail: what a hook compares with its own file's bytes. */
export function tailMark(tail: Uint8Array): string {
  return `${tail.length}:${hashText(latin1(tail))}`;
}

/** The tail after consuming `consumed` more bytes: the last TAIL_BYTES of old tail + consumed. */
export function nextTail(previous: Uint8Array, consumed: Uint8Array): Uint8Array {
  if (consumed.length >= TAIL_BYTES) return consumed.subarray(consumed.length - TAIL_BYTES);
  const keep = Math.min(previous.length, TAIL_BYTES - consumed.length);
  const out = new Uint8Array(keep + consumed.length);
  out.set(previous.subarray(previous.length - keep), 0);
  out.set(consumed, keep);
  return out;
}

/**
 * How many bytes of `bytes` are complete lines: through the last newline, or all of them when
 * what follows it is a whole JSON object already (a writer's last line before its newline).
 * A torn last line is left for the next read, never consumed.
 */
export function completeLength(bytes: Uint8Array, atEof: boolean): number {
  const lastNewline = bytes.lastIndexOf(0x0a);
  const end = lastNewline + 1;
  if (!atEof || end === bytes.length) return end;
  const rest = new TextDecoder().decode(bytes.subarray(end)).trim();
  if (rest.startsWith('{') && rest.endsWith('}')) {
    try {
      const value: unknown = JSON.parse(rest);
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) return bytes.length;
    } catch {
      /* torn: wait for the rest */
    }
  }
  return end;
}

function latin1(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 8192) out += String.fromCharCode(...bytes.subarray(i, i + 8192));
  return out;
}
