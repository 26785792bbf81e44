// Who may talk to the endpoint: only this machine's own processes, never a web page.
// Host must name the loopback endpoint itself (defeats DNS rebinding); any Origin, or a
// cross-site fetch, is refused (no CORS, ever); every route but health needs a bearer token.
// The same rules hold for the REST routes and /mcp (docs/security.md, "Request rules").

import * as crypto from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { BatonError } from '../core/errors';
import type { Scope } from '../core/agents';
import { DEFAULT_AGENT } from '../core/agents';
import type { Permission } from '../api/routes';

export type { Permission } from '../api/routes';

export interface Caller {
  tokenId: string;
  /** The agent this caller writes as; for the admin token a body agentId may choose it. */
  agentId: string | null;
  permissions: Set<Permission>;
  admin: boolean;
}

/** The Host values that name this endpoint, lower-case (Host is compared case-insensitively). */
export function allowedHosts(port: number): Set<string> {
  return new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
}

/**
 * Headers that must appear at most once. Node keeps only the first of a repeated Host or
 * Authorization and joins others, so a second copy would be read differently by a proxy or
 * a second parser than by us: refused instead of guessed at.
 */
const SINGLE_HEADERS = new Set(['host', 'authorization', 'content-type', 'content-length', 'sec-fetch-site', 'origin']);

/** Sec-Fetch-Site values that mean "not from another site's page": the browser's own navigation, or this origin. */
const LOCAL_FETCH_SITES = new Set(['same-origin', 'none']);

/**
 * The request target as a URL on this endpoint. Only origin-form targets ("/path?query") are
 * served: an absolute URI ("http://other.example/api/..."), "*", or a target a URL parser would
 * read as another authority ("//host/...", "/\\host/...") is a 400, whatever the Host header says.
 */
export function requestTarget(req: IncomingMessage, port: number): URL {
  const target = req.url ?? '';
  const base = `http://127.0.0.1:${port}`;
  if (!target.startsWith('/')) throw new BatonError('invalid_request', 'the request target must be a path on this endpoint (origin-form), not an absolute URI');
  let url: URL;
  try {
    url = new URL(target, base);
  } catch {
    throw new BatonError('invalid_request', 'the request target is not a valid path');
  }
  if (url.origin !== base) throw new BatonError('invalid_request', 'the request target must be a path on this endpoint (origin-form), not an absolute URI');
  return url;
}

/** The request-shape and origin rules, for every route (REST and /mcp alike). Messages never echo header values. */
export function checkOrigin(req: IncomingMessage, port: number): void {
  const seen = new Set<string>();
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i].toLowerCase();
    if (!SINGLE_HEADERS.has(name)) continue;
    if (seen.has(name)) throw new BatonError('invalid_request', `the ${name} header must appear only once`);
    seen.add(name);
  }
  requestTarget(req, port);
  const host = (req.headers.host ?? '').toLowerCase();
  if (!allowedHosts(port).has(host))
    throw new BatonError('forbidden', 'the Host header does not name this endpoint (127.0.0.1, localhost or [::1] with its port)');
  if (req.headers.origin !== undefined) throw new BatonError('forbidden', 'requests from web pages (Origin) are not accepted');
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && !LOCAL_FETCH_SITES.has(site.trim().toLowerCase()))
    throw new BatonError('forbidden', 'cross-site requests are not accepted (Sec-Fetch-Site)');
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
  // A token that may write may post hooks too (the tokens made for `--http` before `hooks` existed).
  if (permission === 'hooks' && caller.permissions.has('remember')) return;
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
