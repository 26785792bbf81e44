// Who may talk to the endpoint: only this machine's own processes, never a web page.
// Host must name the loopback endpoint itself (defeats DNS rebinding); any Origin, or a
// cross-site fetch, is refused (no CORS, ever); every route but health needs a bearer token.

import * as crypto from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { BatonError } from '../core/errors';
import type { Scope } from '../store/queries';
import { DEFAULT_AGENT } from '../store/ownership';

export type Permission = 'remember' | 'recall' | 'admin';

export interface Caller {
  tokenId: string;
  /** The agent this caller writes as; for the admin token a body agentId may choose it. */
  agentId: string | null;
  permissions: Set<Permission>;
  admin: boolean;
}

export function allowedHosts(port: number): Set<string> {
  return new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
}

export function checkOrigin(req: IncomingMessage, port: number): void {
  const host = (req.headers.host ?? '').toLowerCase();
  if (!allowedHosts(port).has(host)) throw new BatonError('forbidden', `Host "${req.headers.host ?? ''}" is not this endpoint`);
  if (req.headers.origin !== undefined) throw new BatonError('forbidden', 'requests from web pages (Origin) are not accepted');
  const site = req.headers['sec-fetch-site'];
  if (site === 'cross-site' || site === 'same-site') throw new BatonError('forbidden', 'cross-site requests are not accepted');
}

export function hashSecret(secret: string): string {
  return crypto.createHash('sha256').update(secret, 'utf8').digest('hex');
}

export function newSecret(): string {
  return crypto.randomBytes(32).toString('base64url');
}

export function bearerOf(req: IncomingMessage): string | null {
  const header = req.headers.authorization;
  if (!header) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m ? m[1] : null;
}

/** Constant-time comparison of a presented secret against the admin secret (via equal-length digests). */
export function sameSecret(presented: string, expectedHash: string): boolean {
  const a = Buffer.from(hashSecret(presented), 'hex');
  const b = Buffer.from(expectedHash, 'hex');
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

export function requirePermission(caller: Caller, permission: Permission): void {
  if (caller.admin || caller.permissions.has(permission)) return;
  throw new BatonError('forbidden', `this token lacks the "${permission}" permission`);
}

/**
 * The agent a write acts for (and the only agent whose rows it touches, docs/security.md): the
 * token's own agent, or for the admin token the body's agentId, else the default agent.
 */
export function writeAgent(caller: Caller, requested: string | undefined): string {
  if (caller.agentId) {
    if (requested && requested !== caller.agentId) throw new BatonError('forbidden', `this token writes as agent "${caller.agentId}", not "${requested}"`);
    return caller.agentId;
  }
  return requested ?? DEFAULT_AGENT;
}

export function readScope(caller: Caller): Scope {
  return caller.agentId ? { agentId: caller.agentId } : 'all';
}
