// A typed client of the Baton endpoint, for the VS Code surfaces (every window, leader or follower,
// talks to the one endpoint the same way) and other local tools. Node only: calls over fetch
// (api/client.ts httpTransport), the events stream through the endpoint's one caller (node/endpointCall.ts).

import { ApiClient, httpTransport, type CallInput } from '../api/client';
import type { ResponseOf } from '../api/schemas';
import { followEvents, type EndpointInfo } from '../node/endpointCall';

export type SessionView = ResponseOf<'getSession'>;
export type TreeView = ResponseOf<'sessionTree'>['roots'][number];
export type InheritedView = ResponseOf<'inherited'>;
export type TurnView = ResponseOf<'turns'>['turns'][number];
export type HitView = ResponseOf<'search'>['hits'][number];
export type RunView = ResponseOf<'getRun'>;
export type ConstraintListView = ResponseOf<'listConstraints'>['constraints'][number];
/** Which child the inherited preview is for: a harness agent type, or one profile whatever the type. */
/** The kind of child a preview is for: its agent type or profile, and its task (docs/inheritance.md). */
export type InheritedChild = { agentType?: string; profile?: InheritedView['profile']['name']; task?: string };

export interface ListQuery {
  roots?: boolean;
  parent?: string;
  /** With `parent`: whose session of that key (keys are per agent). */
  agentId?: string;
  project?: string;
  all?: boolean;
  limit?: number;
}

/** The API client with the conveniences the VS Code surfaces share; `call` reaches every route. */
export class BatonClient extends ApiClient {
  constructor(readonly endpoint: EndpointInfo) {
    super(httpTransport(endpoint));
  }

  get url(): string {
    return this.endpoint.url;
  }

  health() {
    return this.call('health');
  }

  listSessions(q: ListQuery = {}) {
    const all = q.all || (!q.roots && !q.parent);
    return this.call('listSessions', {
      query: {
        roots: q.roots ? '1' : undefined,
        parent: q.parent,
        agentId: q.agentId,
        project: q.project,
        all: all ? '1' : undefined,
        limit: String(q.limit ?? 500),
      },
    });
  }

  /** How many sessions are live (active), or stored in all. */
  async count(which: 'live' | 'all'): Promise<number> {
    return (await this.call('listSessions', { query: { limit: '1', all: which === 'all' ? '1' : undefined } })).total;
  }

  async tree(project?: string): Promise<TreeView[]> {
    return (await this.call('sessionTree', { query: { project } })).roots;
  }

  // `agentId` on a read by key: whose session of the key (keys are per agent, docs/security.md
  // "Reads by key name the agent"); without it the newest session of the key.
  getSession(key: string, agentId?: string): Promise<SessionView | null> {
    return this.callOrNull('getSession', { params: { key }, query: { agentId } });
  }

  turns(key: string, from = 1, limit = 200, agentId?: string) {
    return this.call('turns', { params: { key }, query: { from: String(from), limit: String(limit), agentId } });
  }

  /** What a new child of the session would inherit; `agentId`: the agent that child is written for (its parent is that agent's row). */
  inherited(key: string, child: InheritedChild = {}, agentId?: string): Promise<InheritedView> {
    return this.call('inherited', { params: { key }, query: { agentType: child.agentType, profile: child.profile, task: child.task || undefined, agentId } });
  }

  transcript(key: string, agentId?: string) {
    return this.call('transcript', { params: { key }, query: { agentId } });
  }

  subagents(key: string, agentId?: string) {
    return this.call('subagents', { params: { key }, query: { agentId } });
  }

  /** Active constraints, of one session or (without a key) every readable one, newest first; `agentId`: only that agent's. */
  async constraints(sessionKey?: string, limit = 1000, agentId?: string): Promise<ConstraintListView[]> {
    return (await this.call('listConstraints', { query: { sessionKey, agentId, limit: String(limit) } })).constraints;
  }

  /** Deactivates a constraint: new sub-agents stop inheriting it. `agentId`: the constraint's owner. */
  deactivateConstraint(id: number, agentId?: string): Promise<ConstraintListView> {
    return this.call('editConstraint', { params: { id: String(id) }, body: { active: false, agentId } });
  }

  async search(query: string, opts: { sessionKey?: string; limit?: number; signal?: AbortSignal } = {}): Promise<HitView[]> {
    return (await this.call('search', { body: { query, sessionKey: opts.sessionKey, limit: opts.limit ?? 20 } }, { signal: opts.signal })).hits;
  }

  /** `agentId`: whose session of the key (keys are per agent); the default agent's when omitted. */
  setBypass(key: string, enabled: boolean, agentId?: string) {
    return this.call('bypass', { params: { key }, body: { enabled, agentId } });
  }

  endSession(session: { key: string; harness: string; agentId?: string }, reason = 'ended from VS Code') {
    return this.call('sessionEnd', { body: { harness: session.harness, sessionKey: session.key, agentId: session.agentId, reason } });
  }

  saveRun(run: NonNullable<CallInput<'upsertRun'>['body']>): Promise<RunView> {
    return this.call('upsertRun', { body: run });
  }

  getRun(id: string): Promise<RunView | null> {
    return this.callOrNull('getRun', { params: { id } });
  }

  async listRuns(filter: { runner?: string; status?: string; since?: string; specId?: string; parent?: string; limit?: number } = {}): Promise<RunView[]> {
    const { limit, ...rest } = filter;
    return (await this.call('listRuns', { query: { ...rest, limit: limit === undefined ? undefined : String(limit) } })).runs;
  }

  /** Finished callback runs of a parent not delivered yet; marked delivered by the same call. */
  async takeDeliveries(parentSessionKey: string): Promise<RunView[]> {
    return (await this.call('deliverRuns', { body: { parentSessionKey } })).runs;
  }

  /** Follows /api/events; reconnects until closed. `onChange` gets the changed session keys. */
  subscribe(onChange: (keys: string[]) => void, onState?: (connected: boolean) => void): { close(): void } {
    return followEvents(
      this.endpoint,
      '/api/events',
      (data) => {
        try {
          onChange((JSON.parse(data) as { keys: string[] }).keys);
        } catch {
          /* a malformed frame is skipped */
        }
      },
      onState,
    );
  }
}
