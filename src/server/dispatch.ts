// Runs one API call: checks the caller's permission, validates the body and query against the
// route's schemas (src/api/schemas.ts) and calls the route's handler. The HTTP server and the
// in-process API (localApi.ts) both call through here, so a request is held to the same rules
// whichever way it arrives.

import { ApiClient } from '../api/client';
import { BatonError } from '../core/errors';
import { ROUTES, type RouteId } from '../api/routes';
import { parseBody, SCHEMAS } from '../api/schemas';
import type { z } from 'zod';
import { buildHandlers, runtimePathOf, type CallContext, type Services } from './routes';
import { requirePermission, writeAgent, type Caller } from './security';
import { withClaimGuard, type ClaimGuard } from '../store/claimGuard';

export interface RawCall {
  body: unknown;
  query: Record<string, string>;
}

/** Lifecycle hooks take or renew the claim in the same store write (src/store/lifecycle.ts); the Claude Code route calls them. */
const CLAIMS_IN_STORE: ReadonlySet<RouteId> = new Set<RouteId>(['sessionStart', 'userPromptSubmit', 'sessionEnd', 'harnessHook']);

/** Routes that write a session's ledger without being write routes: both recall doors record what they handed out. */
const LEDGER_WRITES: ReadonlySet<RouteId> = new Set<RouteId>(['recall', 'memoryRecall']);

/** Whether a route's store requests carry the runtime-path claim guard. */
function carriesClaim(id: RouteId): boolean {
  return (ROUTES[id].permission === 'remember' && !CLAIMS_IN_STORE.has(id)) || LEDGER_WRITES.has(id);
}

/** The fields of a write body that name its session and runtime path, when its schema has them. */
interface ClaimFields {
  sessionKey?: string;
  parentSessionKey?: string;
  agentId?: string;
  runtimePath?: string;
}

export type Dispatch = (id: RouteId, raw: RawCall, ctx: Omit<CallContext, 'internal'>) => Promise<unknown>;

export function createDispatch(services: Services): Dispatch {
  const handlers = buildHandlers(services);

  const dispatch: Dispatch = async (id, raw, ctx) => {
    const permission = ROUTES[id].permission;
    if (permission) requirePermission(ctx.caller, permission);
    const schema = SCHEMAS[id] as { body?: z.ZodType; query?: z.ZodType };
    const input = {
      body: schema.body ? parseBody(schema.body, raw.body) : undefined,
      query: schema.query ? parseBody(schema.query, raw.query) : undefined,
    };
    const guard = carriesClaim(id) ? await claimGuard(id, input.body as ClaimFields | undefined, ctx) : null;
    const handler = handlers[id] as (input: unknown, ctx: CallContext) => Promise<unknown>;
    // Adapters (the Claude Code hook route) and spawns call other routes: the in-process client is made on first use.
    const reply = await withClaimGuard(guard, () =>
      handler(input, {
        ...ctx,
        get internal() {
          return id === 'harnessHook' ? internalPoster(hookMappingCaller(ctx.caller), ctx.header) : internalPoster(ctx.caller);
        },
      }),
    );
    if (CHECK_REPLIES) checkReply(id, reply);
    return reply;
  };

  /**
   * The runtime-path claim guard of a write route (docs/inheritance.md, "Rules"): a write naming a
   * runtime path (body or `X-Baton-Runtime-Path`) to a session another path holds a live claim on
   * is a 409. The session is the one the body or path names; for an edit by id, the row's session.
   * The store checks it in the same step as each write the handler makes (store/claimGuard.ts).
   */
  async function claimGuard(id: RouteId, body: ClaimFields | undefined, ctx: Omit<CallContext, 'internal'>): Promise<ClaimGuard | null> {
    const runtimePath = runtimePathOf(ctx, body);
    if (!runtimePath) return null;
    let sessionKey: string | undefined = body?.sessionKey ?? (id === 'deliverRuns' ? body?.parentSessionKey : undefined) ?? ctx.params.key;
    if (!sessionKey && id === 'editConstraint') {
      const row = await services.store.read('getConstraint', { scope: { agentId: writeAgent(ctx.caller, body?.agentId) }, id: Number(ctx.params.id) });
      sessionKey = row?.sessionKey ?? undefined;
    }
    return services.sessions.claimGuard(ctx.caller, { sessionKey, agentId: body?.agentId, runtimePath });
  }

  /**
   * The API in-process as the given caller. An HTTP-hook adapter stands for the harness's own
   * request, so its calls see that request's headers (`X-Agent-Session-Id`, the runtime path): a
   * hook POSTed lands where the hook command's would (docs/harnesses.md, "Lineage"). A spawn's
   * calls record Baton's own child session and see none.
   */
  function internalPoster(caller: Caller, header?: CallContext['header']): ApiClient {
    return inProcessClient(dispatch, caller, header);
  }

  return dispatch;
}

/**
 * The one in-process client: the typed API over the dispatcher, without HTTP, as `caller` and
 * seeing `header` as the request's headers (none by default). The in-process API (localApi.ts),
 * MCP (as the /mcp request's caller) and the adapters' internal calls all use it.
 */
export function inProcessClient(dispatch: Dispatch, caller: Caller, header: CallContext['header'] = () => undefined): ApiClient {
  return new ApiClient({
    send: (id, input) => dispatch(id, { body: input.body ?? {}, query: input.query }, { caller, params: input.params, header }),
  });
}

/**
 * With BATON_CHECK_REPLIES=1 (the test suites set it) every reply is checked against its route's
 * response schema, so the whole suite proves the contract that clients are typed by.
 */
const CHECK_REPLIES = process.env.BATON_CHECK_REPLIES === '1';

function checkReply(id: RouteId, reply: unknown): void {
  const result = SCHEMAS[id].response.safeParse(JSON.parse(JSON.stringify(reply ?? null)));
  if (result.success) return;
  const issue = result.error.issues[0];
  throw new BatonError('internal', `reply of ${id} breaks its response schema at ${issue.path.join('.') || '(root)'}: ${issue.message}`);
}

/**
 * Who an HTTP-hook mapping's own calls act as: the hook's caller, and for a `hooks` token its agent
 * with remember and recall. That token reaches the API only through the mapping: what a hook
 * payload can make Baton do, never a route of its own choosing (docs/security.md, "The hooks token").
 */
function hookMappingCaller(caller: Caller): Caller {
  if (caller.admin || !caller.permissions.has('hooks')) return caller;
  return { ...caller, permissions: new Set([...caller.permissions, 'remember', 'recall']) };
}

/** The caller every in-process use acts as: the user, like the admin token. */
export const ADMIN_CALLER: Caller = { tokenId: 'admin', agentId: null, permissions: new Set(['remember', 'recall', 'admin']), admin: true };
