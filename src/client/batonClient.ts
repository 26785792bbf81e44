// A typed client of the Baton endpoint, for the VS Code surfaces (every window, leader or follower,
// talks to the one endpoint the same way) and other local tools. Node only: fetch plus an SSE reader.

import * as http from 'node:http';
import { BatonError, type ErrorCode } from '../core/errors';
import type { SearchHit, SessionRecord, SessionStatus, SubagentRun } from '../core/types';
import type { EndpointInfo } from '../server/endpoint';

export interface SessionView extends Omit<SessionRecord, 'charCount'> {
  expiresAt: string | null;
}

export interface TreeView extends SessionRecord {
  children: TreeView[];
}

export interface InheritedView {
  sessionKey: string;
  block: string;
  empty: boolean;
  sections: { header: string; checkpoint: string | null; recentContext: string | null; focalEntities: string[]; constraints: string[] } | null;
  chars: number;
  estimatedTokens: number;
  settings: { inheritContext: boolean; tailChars: number };
  parentUpdatedAt: string;
}

export interface TurnView {
  seq: number;
  role: 'user' | 'assistant' | 'tool' | 'system';
  text: string;
  at: string | null;
}

export type HitView = Pick<SearchHit, 'sessionKey' | 'project' | 'updatedAt' | 'excerpt' | 'rank' | 'harness' | 'parentSessionKey' | 'turnSeq'>;

export interface ListQuery {
  roots?: boolean;
  parent?: string;
  project?: string;
  all?: boolean;
  status?: SessionStatus;
  limit?: number;
}

export class BatonClient {
  constructor(readonly endpoint: EndpointInfo) {}

  get url(): string {
    return this.endpoint.url;
  }

  private async call<T>(method: string, route: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    const res = await fetch(this.endpoint.url + route, {
      method,
      headers: { authorization: `Bearer ${this.endpoint.token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body !== undefined ? JSON.stringify(body) : undefined,
      signal: signal ?? AbortSignal.timeout(15_000),
    });
    const json = (await res.json().catch(() => ({}))) as { error?: string; code?: ErrorCode };
    if (!res.ok) throw new BatonError(json.code ?? 'internal', json.error ?? `HTTP ${res.status}`);
    return json as T;
  }

  health(): Promise<{ status: string }> {
    return this.call('GET', '/api/health');
  }

  async listSessions(q: ListQuery = {}): Promise<{ sessions: SessionView[]; total: number }> {
    const params = new URLSearchParams();
    if (q.roots) params.set('roots', '1');
    if (q.parent) params.set('parent', q.parent);
    if (q.project) params.set('project', q.project);
    if (q.all || (!q.roots && !q.parent)) params.set('all', '1');
    params.set('limit', String(q.limit ?? 500));
    return this.call('GET', `/api/sessions?${params}`);
  }

  /** How many sessions are live (active), or stored in all. */
  async count(which: 'live' | 'all'): Promise<number> {
    const r = await this.call<{ total: number }>('GET', `/api/sessions?limit=1${which === 'all' ? '&all=1' : ''}`);
    return r.total;
  }

  async tree(project?: string): Promise<TreeView[]> {
    return (await this.call<{ roots: TreeView[] }>('GET', `/api/sessions/tree${project ? `?project=${encodeURIComponent(project)}` : ''}`)).roots;
  }

  getSession(key: string): Promise<SessionView | null> {
    return this.getOrNull<SessionView>(`/api/sessions/${encodeURIComponent(key)}`);
  }

  /** A GET whose 404 means "no such thing": null instead of an error. */
  private async getOrNull<T>(route: string): Promise<T | null> {
    try {
      return await this.call<T>('GET', route);
    } catch (err) {
      if (err instanceof BatonError && err.code === 'not_found') return null;
      throw err;
    }
  }

  turns(key: string, from = 1, limit = 200): Promise<{ sessionKey: string; total: number; turns: TurnView[] }> {
    return this.call('GET', `/api/sessions/${encodeURIComponent(key)}/turns?from=${from}&limit=${limit}`);
  }

  inherited(key: string): Promise<InheritedView> {
    return this.call('GET', `/api/sessions/${encodeURIComponent(key)}/inherited`);
  }

  async search(query: string, opts: { sessionKey?: string; limit?: number; signal?: AbortSignal } = {}): Promise<HitView[]> {
    const r = await this.call<{ hits: HitView[] }>('POST', '/api/sessions/search', { query, sessionKey: opts.sessionKey, limit: opts.limit ?? 20 }, opts.signal);
    return r.hits;
  }

  /** `agentId`: whose session of the key (keys are per agent); the default agent's when omitted. */
  setBypass(key: string, enabled: boolean, agentId?: string): Promise<{ key: string; bypassed: boolean }> {
    return this.call('POST', `/api/sessions/${encodeURIComponent(key)}/bypass`, { enabled, agentId });
  }

  endSession(session: { key: string; harness: string; agentId?: string }, reason = 'ended from VS Code'): Promise<unknown> {
    return this.call('POST', '/api/hooks/session-end', { harness: session.harness, sessionKey: session.key, agentId: session.agentId, reason });
  }

  /** Any POST route of the API (hooks, runs); typed by the caller. */
  post<T = Record<string, unknown>>(route: string, body: unknown): Promise<T> {
    return this.call<T>('POST', route, body);
  }

  saveRun(run: Record<string, unknown>): Promise<SubagentRun> {
    return this.call('POST', '/api/runs', run);
  }

  getRun(id: string): Promise<SubagentRun | null> {
    return this.getOrNull<SubagentRun>(`/api/runs/${encodeURIComponent(id)}`);
  }

  async listRuns(filter: { runner?: string; status?: string; since?: string; specId?: string; parent?: string; limit?: number } = {}): Promise<SubagentRun[]> {
    const params = new URLSearchParams(Object.entries(filter).filter(([, v]) => v !== undefined).map(([k, v]) => [k, String(v)]));
    return (await this.call<{ runs: SubagentRun[] }>('GET', `/api/runs?${params}`)).runs;
  }

  /** Finished callback runs of a parent not delivered yet; marked delivered by the same call. */
  async takeDeliveries(parentSessionKey: string): Promise<SubagentRun[]> {
    return (await this.call<{ runs: SubagentRun[] }>('POST', '/api/runs/deliver', { parentSessionKey })).runs;
  }

  /** Follows /api/events; reconnects until closed. `onChange` gets the changed session keys. */
  subscribe(onChange: (keys: string[]) => void, onState?: (connected: boolean) => void): { close(): void } {
    let closed = false;
    let req: http.ClientRequest | null = null;
    let retry: NodeJS.Timeout | null = null;
    const connect = () => {
      if (closed) return;
      req = http.get(
        { host: '127.0.0.1', port: this.endpoint.port, path: '/api/events', headers: { authorization: `Bearer ${this.endpoint.token}`, accept: 'text/event-stream' } },
        (res) => {
          if (res.statusCode !== 200) {
            res.resume();
            return schedule();
          }
          onState?.(true);
          let buffer = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            buffer += chunk;
            let end: number;
            while ((end = buffer.indexOf('\n\n')) >= 0) {
              const frame = buffer.slice(0, end);
              buffer = buffer.slice(end + 2);
              const data = frame
                .split('\n')
                .filter((l) => l.startsWith('data: '))
                .map((l) => l.slice(6))
                .join('\n');
              if (!data) continue;
              try {
                onChange((JSON.parse(data) as { keys: string[] }).keys);
              } catch {
                /* a malformed frame is skipped */
              }
            }
          });
          res.on('end', schedule);
          res.on('error', schedule);
        },
      );
      req.on('error', schedule);
    };
    const schedule = () => {
      onState?.(false);
      if (closed || retry) return;
      retry = setTimeout(() => {
        retry = null;
        connect();
      }, 1000);
    };
    connect();
    return {
      close: () => {
        closed = true;
        if (retry) clearTimeout(retry);
        req?.destroy();
      },
    };
  }
}
