// Decides which turns of an incoming transcript are new, so a hook costs O(new text).
// The store keeps, per session, a cursor into the *source* (how many source turns were consumed
// and the chained hash of that prefix). When the source still starts with that prefix, only its
// tail is new. When it does not (the harness rewrote its file, or the caller switched between an
// inline transcript and a file), turns already stored are recognised by hash and skipped, so
// nothing is stored twice and nothing stored is ever removed.

import type { Turn } from './types';
import { hashText, turnHash } from './hash';

export interface HashedTurn extends Turn {
  hash: string;
}

export interface TranscriptCursor {
  sourceTurns: number;
  sourceHash: string;
  /** Hashes of turns taken from hook payloads (prompt, last reply) that the source has not shown yet. */
  pending: string[];
}

export interface DeltaInput {
  cursor: TranscriptCursor;
  incoming: Turn[];
  /** Turns known from the payload itself, used when the source file lags behind. */
  fromPayload: Turn[];
  /** The last stored turns (role and hash, newest last), back to at least the last user turn. */
  recentStored: Array<{ role: Turn['role']; hash: string }>;
  /** Whether a turn with this hash is already stored for the session (any position). */
  isStored(hash: string): boolean;
  /**
   * Set when `incoming` holds only the turns a source gained after the prefix the session's cursor
   * already describes (a file read from where the last read stopped); the caller has checked that
   * the cursor is this prefix's. `sourceChars` is that prefix's fingerprint length. `byHash`: the
   * source is being read again (rewritten, a piece at a time), so its turns are recognised by hash.
   */
  continuation?: { sourceChars: number; byHash?: boolean };
  /** The cursor takes this source even when it is shorter (a file read again from its start, to be continued). */
  adopt?: boolean;
}

export interface DeltaPlan {
  append: HashedTurn[];
  cursor: TranscriptCursor;
  /** The fingerprint length of the source the new cursor describes (to continue from it later); null when the cursor did not take this source. */
  sourceChars: number | null;
  /** Whether the turns were recognised by hash (the source did not continue the cursor). */
  byHash: boolean;
}

const MAX_PENDING = 16;
export const EMPTY_CURSOR: TranscriptCursor = { sourceTurns: 0, sourceHash: '', pending: [] };

export function withHash(turn: Turn): HashedTurn {
  return { ...turn, hash: turnHash(turn.role, turn.text) };
}

/**
 * Identifies the first `count` turns of a source without reading all their text: the count, the
 * total length and the hash of the last of them. A harness appends to its transcript, so this
 * recognises "the same source, grown" in O(new text); a rewrite that changes a length or the last
 * turn is caught and handled by the by-hash path. (Cursors written before this format never match
 * it, so they take the by-hash path once.)
 */
export function sourceFingerprint(turns: Turn[], count = turns.length): string {
  if (count === 0) return '';
  return fingerprintOf(count, fingerprintChars(turns, 0, count), turns[count - 1]);
}

/** The length a fingerprint counts for turns[from, to): text and role lengths. */
export function fingerprintChars(turns: Turn[], from = 0, to = turns.length): number {
  let chars = 0;
  for (let i = from; i < to; i++) chars += turns[i].text.length + turns[i].role.length;
  return chars;
}

function fingerprintOf(count: number, chars: number, last: Turn): string {
  return 'v2:' + hashText(`${count}:${chars}:${turnHash(last.role, last.text)}`);
}

export function planTranscriptDelta(input: DeltaInput): DeltaPlan {
  const { cursor } = input;
  let fresh: HashedTurn[];
  const next: TranscriptCursor = { ...cursor, pending: [...cursor.pending] };
  const source = input.incoming;
  let sourceChars: number | null = null;
  let byHash = false;
  const unseen = (turns: HashedTurn[]) => {
    const seen = new Set<string>();
    return turns.filter((turn) => {
      if (seen.has(turn.hash)) return false;
      if (input.isStored(turn.hash)) {
        // Seen in the source at last: a payload turn with this hash is no longer pending.
        const pendingAt = next.pending.indexOf(turn.hash);
        if (pendingAt >= 0) next.pending.splice(pendingAt, 1);
        return false;
      }
      seen.add(turn.hash);
      return true;
    });
  };

  if (input.continuation) {
    // The same steps as a source that "continues" below, without the prefix's turns at hand.
    byHash = input.continuation.byHash === true;
    fresh = byHash ? unseen(source.map(withHash)) : source.map(withHash);
    sourceChars = input.continuation.sourceChars + fingerprintChars(source);
    if (source.length > 0) {
      next.sourceTurns = cursor.sourceTurns + source.length;
      next.sourceHash = fingerprintOf(next.sourceTurns, sourceChars, source[source.length - 1]);
    }
  } else if (source.length > 0) {
    const continues = cursor.sourceTurns <= source.length && sourceFingerprint(source, cursor.sourceTurns) === cursor.sourceHash;
    if (continues) {
      fresh = source.slice(cursor.sourceTurns).map(withHash);
    } else {
      byHash = true;
      fresh = unseen(source.map(withHash));
    }
    // A shorter, already-stored source (a lagging copy) must not move the cursor backwards.
    if (continues || fresh.length > 0 || source.length >= cursor.sourceTurns || input.adopt) {
      next.sourceTurns = source.length;
      sourceChars = fingerprintChars(source);
      next.sourceHash = fingerprintOf(source.length, sourceChars, source[source.length - 1]);
    }
  } else {
    fresh = [];
    if (input.adopt) {
      // A file with no turns yet (in what was read of it) is still the source from now on; after
      // turns from an earlier source, what follows is recognised by hash.
      byHash = cursor.sourceTurns > 0;
      next.sourceTurns = 0;
      next.sourceHash = '';
      sourceChars = 0;
    }
  }

  // Turns the payload already gave us (and we stored) reappear once the file catches up: skip them once.
  const append: HashedTurn[] = [];
  for (const turn of fresh) {
    const pendingAt = next.pending.indexOf(turn.hash);
    if (pendingAt >= 0) {
      next.pending.splice(pendingAt, 1);
      continue;
    }
    append.push(turn);
  }

  const recent = [...input.recentStored, ...append.map((t) => ({ role: t.role, hash: t.hash }))];
  const payload = input.fromPayload.map(withHash);
  // A payload that holds a prompt and then its reply describes a finished exchange, so its prompt
  // is already present when the last stored prompt matches, answered or not.
  const firstUser = payload.findIndex((t) => t.role === 'user');
  const finishedExchange = firstUser >= 0 && payload.slice(firstUser).some((t) => t.role === 'assistant');
  for (const turn of payload) {
    if (!turn.text.trim() || alreadyInExchange(recent, turn, finishedExchange)) continue;
    append.push(turn);
    recent.push({ role: turn.role, hash: turn.hash });
    next.pending.push(turn.hash);
  }
  if (next.pending.length > MAX_PENDING) next.pending = next.pending.slice(-MAX_PENDING);
  return { append, cursor: next, sourceChars, byHash };
}

/**
 * Whether a payload turn is already in the current exchange (the turns from the last user turn on).
 * A lone prompt counts as present only while unanswered, so a user repeating "continue" is kept.
 */
function alreadyInExchange(recent: Array<{ role: Turn['role']; hash: string }>, turn: HashedTurn, finishedExchange: boolean): boolean {
  let lastUser = -1;
  for (let i = recent.length - 1; i >= 0; i--) {
    if (recent[i].role === 'user') {
      lastUser = i;
      break;
    }
  }
  if (turn.role === 'user') {
    if (lastUser < 0 || recent[lastUser].hash !== turn.hash) return false;
    return finishedExchange || !recent.slice(lastUser).some((t) => t.role === 'assistant');
  }
  return recent.slice(Math.max(lastUser, 0)).some((t) => t.hash === turn.hash);
}
