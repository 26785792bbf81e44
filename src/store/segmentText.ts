// Transcript segments at rest. A session's newest segment is plain text, rewritten as turns
// arrive; once it is full it is sealed: stored deflated, as a BLOB, and never rewritten again.
// Sealed text takes about half the room (measured on the benchmark's English-like text; code and
// tool output shrink more), which is half the memory, since the database file lives in memory, and
// half of every snapshot. Reading a sealed 16 KB segment back costs about 0.1 ms.

import * as zlib from 'node:zlib';

/** What a segment's `text` column holds: plain text (open, or written before sealing existed) or sealed bytes. */
export type StoredSegment = string | Uint8Array;

/** Level 1: at this size the ratio barely differs from level 6, and sealing runs on a hook's write. */
const LEVEL = 1;

export function sealSegment(text: string): Uint8Array {
  return zlib.deflateRawSync(Buffer.from(text, 'utf8'), { level: LEVEL });
}

export function segmentText(stored: StoredSegment): string {
  return typeof stored === 'string' ? stored : zlib.inflateRawSync(stored).toString('utf8');
}
