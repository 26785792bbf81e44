// The store side of session search as the API defines it: which transcripts to search (a
// sub-agent searches its parent by default; otherwise the caller's own session is left out and its
// project is the default), the ranked hits, and the session the query names when it is a key.
// One read, so the endpoint makes one round trip to the store thread per search, not three.

import type { Database } from 'sql.js';
import type { SearchHit } from '../core/types';
import type { SessionRecord } from '../core/session';
import { DEFAULT_AGENT } from '../core/agents';
import {
  getSession,
  parentSessionRow,
  searchTranscriptsOrQuestion as searchTranscripts,
  stripSessionPrefix,
  transcriptTail,
  findSessionRow,
  type Scope,
} from './queries';

export interface SessionSearchArgs {
  query: string;
  /** Search only this session. */
  sessionKey?: string;
  /** The caller's own session, when it says which one it is. */
  currentSessionKey?: string;
  /** The parent the caller's key itself names (OpenClaw sub-agent keys; registry.ts parentFromKey), decided before the read. */
  parentNamedByKey?: string | null;
  project?: string;
  limit: number;
}

export interface SessionSearchResult {
  hits: SearchHit[];
  /** Set when the caller is a sub-agent and its parent was searched instead. */
  searchedParent: string | null;
  /** The session whose key is the query, with the start of its tail for an excerpt. */
  named: { session: SessionRecord; tail: string } | null;
}

export function sessionSearch(db: Database, scope: Scope, a: SessionSearchArgs): SessionSearchResult {
  let sessionKey = a.sessionKey ? stripSessionPrefix(a.sessionKey) : undefined;
  let project = a.project;
  let excluded: string | null = null;
  let searchedParent: string | null = null;
  let parentAgent: string | undefined;
  if (!sessionKey && a.currentSessionKey) {
    const current = stripSessionPrefix(a.currentSessionKey);
    // The caller's own session of its key: for the admin (which names no agent here) the default
    // agent's, never another agent's row of the same key.
    const stored = getSession(db, scope, current, scope === 'all' ? DEFAULT_AGENT : undefined);
    const parent = a.parentNamedByKey ?? stored?.parentSessionKey ?? null;
    if (parent) {
      sessionKey = parent;
      searchedParent = parent;
      project = undefined;
      // The parent is the row the one parent resolver picks for the sub-agent's agent, never
      // another agent's row of the same key (docs/security.md, "Parents belong to the child's agent").
      const writer = scope === 'all' ? { agentId: DEFAULT_AGENT, admin: true } : { agentId: scope.agentId, admin: false };
      parentAgent = parentSessionRow(db, writer, parent)?.agent_id ?? writer.agentId;
    } else {
      excluded = current;
      project ??= stored?.project ?? undefined;
    }
  }
  const hits = searchTranscripts(db, scope, {
    query: a.query,
    sessionKey,
    agentId: parentAgent,
    project,
    excludeSessionKey: excluded ?? undefined,
    limit: a.limit,
  });
  const query = a.query.trim();
  const session = query ? getSession(db, scope, query) : null;
  let named: SessionSearchResult['named'] = null;
  if (session && session.key !== excluded && (!sessionKey || sessionKey === session.key)) {
    const row = session.turnCount > 0 ? findSessionRow(db, scope, session.key) : undefined;
    named = { session, tail: row ? transcriptTail(db, row.id, 200, 0) : '' };
  }
  return { hits, searchedParent, named };
}
