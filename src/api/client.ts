// The one typed client of Baton's HTTP API: `call('sessionStart', { body })` names a route of the
// table, and the reply is typed by the route's response schema. Used by the CLI, the VS Code
// extension, the importer, the run manager and chat. How a call travels is the transport's
// business: over HTTP to the running server (httpTransport), or in-process through the very same
// handlers when no server runs (src/server/localApi.ts), so both run the same rules. The schemas
// are imported as types only: a bundle that carries this client carries no zod.

import { BatonError, type ErrorCode } from '../core/errors';
import { pathOf, ROUTES, type RouteId } from './routes';
import type { BodyIn, QueryIn, ResponseOf } from './schemas';

export interface ApiEndpoint {
  url: string;
  token: string;
}

export interface CallInput<K extends RouteId> {
  params?: Record<string, string>;
  body?: BodyIn<K>;
  query?: QueryIn<K>;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** When no signal is given. */
  timeoutMs?: number;
}

/** Carries one call to the API; throws BatonError with the server's code and message on failure. */
export interface Transport {
  send(id: RouteId, input: { params: Record<string, string>; query: Record<string, string>; body: unknown }, options: CallOptions): Promise<unknown>;
}

export class ApiClient {
  constructor(private readonly transport: Transport) {}

  async call<K extends RouteId>(id: K, input: CallInput<K> = {}, options: CallOptions = {}): Promise<ResponseOf<K>> {
    const query: Record<string, string> = {};
    for (const [name, value] of Object.entries((input.query ?? {}) as Record<string, unknown>))
      if (value !== undefined && value !== null) query[name] = String(value);
    return (await this.transport.send(id, { params: input.params ?? {}, query, body: input.body }, options)) as ResponseOf<K>;
  }

  /** A call whose 404 means "no such thing": null instead of an error. */
  async callOrNull<K extends RouteId>(id: K, input: CallInput<K> = {}, options: CallOptions = {}): Promise<ResponseOf<K> | null> {
    try {
      return await this.call(id, input, options);
    } catch (err) {
      if (err instanceof BatonError && err.code === 'not_found') return null;
      throw err;
    }
  }
}

/** An API client with how it travels and how to let go of what it holds (a store opened for it). */
export interface ApiAccess {
  api: ApiClient;
  /** To the running server, or in-process over the store (or a read-only view of it). */
  via: 'server' | 'store';
  close(): Promise<void>;
}

/** Calls over HTTP to a running server, with the bearer token of its endpoint. */
export function httpTransport(endpoint: ApiEndpoint, defaultTimeoutMs = 15_000): Transport {
  return {
    async send(id, input, options) {
      const route = ROUTES[id];
      const query = new URLSearchParams(input.query).toString();
      const body = route.method === 'POST' ? JSON.stringify(input.body ?? {}) : undefined;
      const res = await fetch(endpoint.url + pathOf(id, input.params) + (query ? `?${query}` : ''), {
        method: route.method,
        headers: { authorization: `Bearer ${endpoint.token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        body,
        signal: options.signal ?? AbortSignal.timeout(options.timeoutMs ?? defaultTimeoutMs),
      });
      const json = (await res.json().catch(() => ({}))) as { error?: string; code?: ErrorCode };
      if (!res.ok) throw new BatonError(json.code ?? (res.status === 413 ? 'payload_too_large' : 'internal'), json.error ?? `HTTP ${res.status}`);
      return json;
    },
  };
}

/**
 * Calls that travel as one POST each, by a function of the caller's runtime (the hook command and
 * the OpenCode plugin: node/endpointCall.ts `postJson`, within their deadline). Hooks only post.
 */
export function postTransport(post: (path: string, body: unknown) => Promise<unknown>): Transport {
  return {
    send(id, input) {
      if (ROUTES[id].method !== 'POST') return Promise.reject(new BatonError('invalid_request', `${ROUTES[id].path}: a hook only posts`));
      return post(pathOf(id, input.params), input.body ?? {});
    },
  };
}
