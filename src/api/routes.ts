// The route table of Baton's HTTP API: for every route its id, method, path and the permission
// it needs. Plain data with no dependencies, so the smallest client (the hook command) can carry
// it; the request and response schemas of each route live in schemas.ts under the same id. The
// server dispatches over this table, the clients build their requests from it, and docs/api.md is
// generated from both (scripts/dev/api-docs.ts).

import { BatonError } from '../core/errors';
import { stripSessionPrefix } from '../core/sessionKey';

/** `hooks`: only the HTTP-hook routes (docs/security.md, "The hooks token"); `remember` implies it. */
export type Permission = 'remember' | 'recall' | 'admin' | 'hooks';
export type Method = 'GET' | 'POST' | 'DELETE';

export interface RouteInfo {
  method: Method;
  /** `:name` segments are parameters (URL-decoded; `:key` also loses a `session:` prefix). */
  path: string;
  /** null: no token needed (health only). */
  permission: Permission | null;
  summary: string;
}

export { HOOK_EVENT_HEADER, HOOK_HEADER } from './hookHeaders';

const route = (method: Method, path: string, permission: Permission | null, summary: string): RouteInfo => ({ method, path, permission, summary });

export const ROUTES = {
  health: route('GET', '/api/health', null, 'Liveness; needs no token.'),
  sessionStart: route(
    'POST',
    '/api/hooks/session-start',
    'remember',
    'A session starts: records it with its lineage and returns the inherited block for a sub-agent and the memories of earlier sessions.',
  ),
  userPromptSubmit: route(
    'POST',
    '/api/hooks/user-prompt-submit',
    'remember',
    'A prompt was submitted: stores the transcript delta and returns entity context to inject.',
  ),
  sessionEnd: route('POST', '/api/hooks/session-end', 'remember', 'A session ended: stores the last delta, closes it and keeps its memories and summary.'),
  remember: route('POST', '/api/hooks/remember', 'remember', 'Stores a memory.'),
  recall: route('POST', '/api/hooks/recall', 'recall', 'Finds memories; with a sessionKey, each once per context epoch of the session.'),
  memoryRecall: route(
    'POST',
    '/api/memory/recall',
    'recall',
    "Finds memories outside a hook (CLI, MCP, scripts): the hook recall's ranking and context-epoch ledger; a named session must exist.",
  ),
  subagentSpawn: route(
    'POST',
    '/api/hooks/subagent-spawn',
    'remember',
    "A harness is about to start a sub-agent (its spawn call): keeps the task, the spawner and a fork's spawning text for the sub-agent's start.",
  ),
  preCompaction: route('POST', '/api/hooks/pre-compaction', 'remember', 'Guidelines for a compaction summary.'),
  compactionComplete: route(
    'POST',
    '/api/hooks/compaction-complete',
    'remember',
    "A compaction summary: becomes a memory, a summary node and the session's checkpoint.",
  ),
  checkpointExtract: route('POST', '/api/hooks/session-checkpoint-extract', 'remember', 'A mid-session checkpoint of what is new since the last one.'),
  transcriptCursor: route(
    'POST',
    '/api/hooks/transcript-cursor',
    'remember',
    "Where the session's transcript chunks of a file the hook reads itself stopped: the offset and tail mark to continue from.",
  ),
  synthesisConfig: route('GET', '/api/hooks/synthesis/config', 'recall', 'How MEMORY.md synthesis is configured.'),
  // remember, not recall: the projection takes the head's lease, a write a read-only token must not hold.
  synthesis: route(
    'POST',
    '/api/hooks/synthesis',
    'remember',
    "The MEMORY.md projection of an agent's memory; takes the head's lease (409 while another writer holds it).",
  ),
  synthesisComplete: route(
    'POST',
    '/api/hooks/synthesis/complete',
    'remember',
    'Writes MEMORY.md (keeping a backup); 409 while another writer holds the lease.',
  ),
  harnessHook: route(
    'POST',
    '/api/hooks/:harness',
    'hooks',
    "A harness's raw hook payload (Claude Code's HTTP hooks post it, every hook command relays it): run through the harness's hook mapping, the hook's output back.",
  ),
  listSessions: route('GET', '/api/sessions', 'recall', 'Sessions, newest first: active ones by default; all=1, roots=1 or parent=KEY for the tree.'),
  sessionTree: route('GET', '/api/sessions/tree', 'recall', 'Root sessions with their sub-agents nested.'),
  spend: route(
    'GET',
    '/api/spend',
    'recall',
    'What the readable sessions spent (models, tokens, cost) since a time, of a project: totals by day, project, harness, model and the top sessions.',
  ),
  summaries: route('GET', '/api/sessions/summaries', 'recall', 'Summary nodes (session ends, compactions, checkpoints), newest first.'),
  expandSummary: route('POST', '/api/sessions/summaries/expand', 'recall', 'A summary node with its sources and, on request, the transcript it covers.'),
  search: route('POST', '/api/sessions/search', 'recall', 'Full-text search over every readable transcript.'),
  getSession: route('GET', '/api/sessions/:key', 'recall', "A session's status."),
  transcript: route('GET', '/api/sessions/:key/transcript', 'recall', "A session's whole transcript as text."),
  turns: route('GET', '/api/sessions/:key/turns', 'recall', "A page of a session's turns."),
  inherited: route('GET', '/api/sessions/:key/inherited', 'recall', 'The block a new sub-agent of the session would inherit now.'),
  subagents: route('GET', '/api/sessions/:key/subagents', 'recall', "What the session's sub-agents did: each one's type, task, status and result."),
  archiveTurns: route(
    'POST',
    '/api/sessions/:key/archive',
    'remember',
    "Archives a range of the session's turns into a new holder session (its child) and leaves a marker with the summary in the session.",
  ),
  bypass: route('POST', '/api/sessions/:key/bypass', 'remember', 'Turns recording of a session off or on (hooks become no-ops).'),
  upsertRun: route('POST', '/api/runs', 'remember', 'Creates or updates a sub-agent run.'),
  spawnRun: route(
    'POST',
    '/api/runs/spawn',
    'remember',
    "Starts a sub-agent run with a configured runner under parentSessionKey, else the caller's X-Agent-Session-Id: SYNC answers with the finished run, the async modes at once; the token needs recall too, and at most maxRunsPerAgent runs of an agent wait or run at once (429 past it) (docs/runs.md).",
  ),
  listRuns: route('GET', '/api/runs', 'recall', 'Sub-agent runs, with filters.'),
  getRun: route('GET', '/api/runs/:id', 'recall', 'One sub-agent run.'),
  deliverRuns: route('POST', '/api/runs/deliver', 'remember', 'Takes the finished ASYNC_CALLBACK runs of a parent not delivered yet (each is delivered once).'),
  getJob: route('GET', '/api/jobs/:id', 'recall', 'A background job (a checkpoint extraction, a session summary): its status, result or error.'),
  listConstraints: route('GET', '/api/constraints', 'recall', 'Constraints (rules every sub-agent inherits), of one session or all readable ones.'),
  addConstraint: route('POST', '/api/constraints', 'remember', 'Adds a constraint by hand, to a session or to an entity of the agent.'),
  editConstraint: route('POST', '/api/constraints/:id', 'remember', "Edits, deactivates or reactivates one of the agent's constraints."),
  listEntities: route('GET', '/api/entities', 'recall', 'Entities (files, symbols, tickets a session keeps in focus), of one session or all readable ones.'),
  addEntity: route('POST', '/api/entities', 'remember', "Adds an entity by hand (or changes the one of that name), optionally in a session's focus."),
  editEntity: route('POST', '/api/entities/:id', 'remember', "Renames, describes, deactivates or reactivates one of the agent's entities."),
  createToken: route('POST', '/api/tokens', 'admin', 'Creates an agent token (its secret is shown once).'),
  revokeToken: route('DELETE', '/api/tokens/:key', 'admin', 'Revokes a token.'),
  recovery: route('GET', '/api/store/recovery', 'admin', 'What the store found and did about damaged files when this server opened it (docs/storage.md).'),
} satisfies Record<string, RouteInfo>;

export type RouteId = keyof typeof ROUTES;

/** Matches a path pattern (`/api/sessions/:key`) against a request path; null when it does not match. */
export function matchPath(pattern: string, pathname: string): Record<string, string> | null {
  const want = pattern.split('/');
  const got = pathname.split('/');
  if (want.length !== got.length) return null;
  for (let i = 0; i < want.length; i++) if (!want[i].startsWith(':') && want[i] !== got[i]) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    if (want[i].startsWith(':')) {
      let value: string;
      try {
        value = decodeURIComponent(got[i]);
      } catch {
        // Not valid percent-encoded UTF-8 (a lone surrogate): no stored key could match it (docs/security.md).
        throw new BatonError('invalid_request', `${want[i].slice(1)}: is not valid percent-encoded UTF-8`);
      }
      if (!value) return null;
      params[want[i].slice(1)] = want[i] === ':key' ? stripSessionPrefix(value) : value;
    } else if (want[i] !== got[i]) return null;
  }
  return params;
}

/**
 * The route a request names. Order-independent: among the routes whose path matches, the one with
 * the most literal segments wins (`/api/sessions/tree` over `/api/sessions/:key`). A path that
 * matches with another method answers 405-style `invalid_request`; none at all, null.
 */
export function findRoute(method: string, pathname: string): { id: RouteId; params: Record<string, string> } | { id: null; methodMismatch: boolean } {
  let best: { id: RouteId; params: Record<string, string>; literals: number } | null = null;
  let pathMatched = false;
  for (const id of Object.keys(ROUTES) as RouteId[]) {
    const info = ROUTES[id];
    const params = matchPath(info.path, pathname);
    if (!params) continue;
    pathMatched = true;
    if (info.method !== method) continue;
    const literals = info.path.split('/').filter((s) => s && !s.startsWith(':')).length;
    if (!best || literals > best.literals) best = { id, params, literals };
  }
  return best ? { id: best.id, params: best.params } : { id: null, methodMismatch: pathMatched };
}

/** The concrete path of a route, its parameters URL-encoded. */
export function pathOf(id: RouteId, params: Record<string, string> = {}): string {
  return ROUTES[id].path.replace(/:(\w+)/g, (_m, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`${id}: missing path parameter ${name}`);
    return encodeURIComponent(value);
  });
}
