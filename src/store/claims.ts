// The runtime-path claim rule (docs/inheritance.md, "Rules"), its one copy: a write naming a
// runtime path to a session another path holds a live claim on is a 409. It runs in the store
// worker, on the worker's clock: the lifecycle commands apply it inside the write they guard, and
// every other write route's requests carry a claim guard (claimGuard.ts) that the worker applies
// in the same serialized step as each request (`checkClaimGuard`).

import type { Database } from 'sql.js';
import { BatonError } from '../core/errors';
import { CLAIM_TTL_MS, claimExpiresAt, stripSessionPrefix } from '../core/sessionKey';
import type { ClaimGuard } from './claimGuard';
import { writableSessionRow } from './ownership';

/** What the rule reads of a session row. */
export interface ClaimHolder {
  session_key: string;
  runtime_path: string | null;
  claimed_at: string | null;
}

/** Throws 409 when a runtime path other than `runtimePath` holds a claim on the session that is live at `now` (ISO time). */
export function assertClaimFree(row: ClaimHolder, runtimePath: string | undefined, now: string, ttlMs = CLAIM_TTL_MS): void {
  if (!runtimePath || !row.runtime_path || row.runtime_path === runtimePath) return;
  const expires = claimExpiresAt(row.claimed_at, ttlMs);
  if (expires && expires > now) {
    throw new BatonError('conflict', `session ${row.session_key} is claimed by the ${row.runtime_path} runtime path until ${expires}`);
  }
}

/**
 * The rule for a request that carries a route's claim guard: the session the route writes (the
 * guard's agent's row of the key), when it exists, must not be claimed by another path at `now`.
 * The engine calls it right before the request, in the same step (an opaque guard to it).
 */
export function checkClaimGuard(db: Database, guard: ClaimGuard, now: string): void {
  const row = writableSessionRow(db, guard.agentId, stripSessionPrefix(guard.key));
  if (row) assertClaimFree(row, guard.runtimePath, now, guard.ttlMs);
}
