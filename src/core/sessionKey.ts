// Session keys and claims: plain helpers with no dependencies, so the hook bundle can carry them.

/** Session keys may arrive as `session:<key>` (the sessions & hooks API's form); the store keeps `<key>`. */
export function stripSessionPrefix(key: string): string {
  return key.startsWith('session:') ? key.slice('session:'.length) : key;
}

/** How long a runtime-path claim lasts without activity. */
export const CLAIM_TTL_MS = 4 * 60 * 60 * 1000;

export function claimExpiresAt(claimedAt: string | null, ttlMs = CLAIM_TTL_MS): string | null {
  return claimedAt ? new Date(Date.parse(claimedAt) + ttlMs).toISOString() : null;
}
