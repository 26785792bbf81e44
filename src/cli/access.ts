// How a CLI command reaches the data: through the running server when one holds the data
// directory (never behind its back), else by opening the store itself for the command's duration.

import type { TreeNode } from '../store/queries';
import type { SearchHit, SessionRecord } from '../core/types';
import { BatonError, type ErrorCode } from '../core/errors';
import { liveEndpoint, type EndpointInfo } from '../server/endpoint';
import type { Store } from '../store/store';
import { openStoreForCli } from './openStore';

export interface SessionList {
  sessions: SessionRecord[];
  total: number;
}

export interface Access {
  listSessions(opts: { project?: string; limit: number }): Promise<SessionList>;
  tree(opts: { project?: string }): Promise<TreeNode[]>;
  getSession(key: string): Promise<SessionRecord | null>;
  transcript(key: string): Promise<{ sessionKey: string; agentId: string; content: string }>;
  turns(key: string, from: number, limit: number): Promise<{ turns: Array<{ seq: number; role: string; text: string; at: string | null }> }>;
  search(opts: { query: string; sessionKey?: string; project?: string; limit: number }): Promise<Array<Pick<SearchHit, 'sessionKey' | 'harness' | 'project' | 'updatedAt' | 'excerpt' | 'rank'>>>;
  close(): Promise<void>;
}

class LocalAccess implements Access {
  constructor(private readonly store: Store) {}
  listSessions(opts: { project?: string; limit: number }) {
    return this.store.read('listSessions', { scope: 'all', ...opts });
  }
  tree(opts: { project?: string }) {
    return this.store.read('tree', { scope: 'all', ...opts });
  }
  getSession(key: string) {
    return this.store.read('getSession', { scope: 'all', key });
  }
  transcript(key: string) {
    return this.store.read('transcript', { scope: 'all', key });
  }
  turns(key: string, from: number, limit: number) {
    return this.store.read('turns', { scope: 'all', key, from, limit });
  }
  search(opts: { query: string; sessionKey?: string; project?: string; limit: number }) {
    return this.store.read('search', { scope: 'all', ...opts });
  }
  close() {
    return this.store.close();
  }
}

export class HttpClient {
  constructor(readonly endpoint: EndpointInfo, private readonly timeoutMs = 30_000) {}

  async call<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
    const res = await fetch(this.endpoint.url + path, {
      method,
      headers: { authorization: `Bearer ${this.endpoint.token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body !== undefined ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    const json = (await res.json().catch(() => ({}))) as { error?: string; code?: ErrorCode };
    if (!res.ok) throw new BatonError(json.code ?? 'internal', json.error ?? `HTTP ${res.status}`);
    return json as T;
  }
}

class RemoteAccess implements Access {
  constructor(private readonly http: HttpClient) {}
  async listSessions(opts: { project?: string; limit: number }) {
    const q = new URLSearchParams({ all: '1', limit: String(opts.limit), ...(opts.project ? { project: opts.project } : {}) });
    return this.http.call<SessionList>('GET', `/api/sessions?${q}`);
  }
  async tree(opts: { project?: string }) {
    return (await this.http.call<{ roots: TreeNode[] }>('GET', `/api/sessions/tree${opts.project ? `?project=${encodeURIComponent(opts.project)}` : ''}`)).roots;
  }
  async getSession(key: string) {
    try {
      return await this.http.call<SessionRecord>('GET', `/api/sessions/${encodeURIComponent(key)}`);
    } catch (err) {
      if (err instanceof BatonError && err.code === 'not_found') return null;
      throw err;
    }
  }
  transcript(key: string) {
    return this.http.call<{ sessionKey: string; agentId: string; content: string }>('GET', `/api/sessions/${encodeURIComponent(key)}/transcript`);
  }
  turns(key: string, from: number, limit: number) {
    return this.http.call<{ turns: Array<{ seq: number; role: string; text: string; at: string | null }> }>('GET', `/api/sessions/${encodeURIComponent(key)}/turns?from=${from}&limit=${Math.min(limit, 2000)}`);
  }
  async search(opts: { query: string; sessionKey?: string; project?: string; limit: number }) {
    return (await this.http.call<{ hits: Awaited<ReturnType<Access['search']>> }>('POST', '/api/sessions/search', { ...opts, limit: Math.min(opts.limit, 20) })).hits;
  }
  async close() {}
}

export async function openAccess(dataDir: string, holder: string): Promise<Access> {
  const endpoint = liveEndpoint(dataDir);
  if (endpoint) return new RemoteAccess(new HttpClient(endpoint));
  return new LocalAccess(await openStoreForCli({ dataDir, holder }));
}
