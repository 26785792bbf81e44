// The runtime-path claim a write route carries to the store (docs/inheritance.md, "Rules"). The
// dispatcher runs a route's handler inside `withClaimGuard`; every store request the handler makes
// meanwhile takes the guard along (store.ts), and the store worker applies the claim rule
// (claims.ts) in the same serialized step as the request: for a write, inside the write itself,
// so a claim another path takes between two steps of the route is honoured at the next write.

import { AsyncLocalStorage } from 'node:async_hooks';

/** Which session a route writes, from which runtime path: what the worker checks the claim against. */
export interface ClaimGuard {
  /** The agent the write acts for (ownership.ts): its row of the key is the one checked. */
  agentId: string;
  key: string;
  runtimePath: string;
  ttlMs?: number;
}

interface GuardScope {
  guard: ClaimGuard;
  /** False once the handler settled: work it left running is not the route's write any more. */
  open: boolean;
  /** Whether the route has sent a write: from then on only its writes are checked. */
  wrote: boolean;
}

const scopes = new AsyncLocalStorage<GuardScope>();

/**
 * Runs `fn` with `guard` attached to the store requests it makes. Without a guard, `fn` runs with
 * none, even when called from inside another route (an adapter's in-process call is its own route).
 */
export async function withClaimGuard<T>(guard: ClaimGuard | null, fn: () => Promise<T>): Promise<T> {
  if (!guard) return scopes.exit(fn);
  const scope: GuardScope = { guard, open: true, wrote: false };
  try {
    return await scopes.run(scope, fn);
  } finally {
    scope.open = false;
  }
}

/**
 * The guard a store request sent now carries, if any. Every write carries it. Reads carry it until
 * the route's first write, so a route refused before it wrote anything is refused at its first step
 * (even one that only reads); a read after a write is never refused for a write already made.
 */
export function claimGuardFor(kind: 'read' | 'write'): ClaimGuard | undefined {
  const scope = scopes.getStore();
  if (!scope?.open) return undefined;
  if (kind === 'write') {
    scope.wrote = true;
    return scope.guard;
  }
  return scope.wrote ? undefined : scope.guard;
}
