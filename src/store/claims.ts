// The runtime-path claim rule (docs/inheritance.md, "Rules"), its one copy: a write naming a
// runtime path to a session another path holds a live claim on is a 409. It runs in the store
// worker, on the worker's clock, for the lifecycle commands (inside the write they guard) and for
// the other write routes (the `claimFree` read the dispatcher asks before the handler).

import { BatonError } from '../core/errors';
import { CLAIM_TTL_MS, claimExpiresAt } from '../core/sessionKey';

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
