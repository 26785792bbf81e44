// Runs one API call: checks the caller's permission, validates the body and query against the
// route's schemas (src/api/schemas.ts) and calls the route's handler. The HTTP server and the
// in-process API (localApi.ts) both call through here, so a request is held to the same rules
// whichever way it arrives.

import { ApiClient } from '../api/client';
import { BatonError } from '../core/errors';
import { ROUTES, type RouteId } from '../api/routes';
import { parseBody, SCHEMAS } from '../api/schemas';
import type { z } from 'zod';
import { buildHandlers, type CallContext, type Services } from './routes';
import { requirePermission, type Caller } from './security';

export interface RawCall {
  body: unknown;
  query: Record<string, string>;
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
    const handler = handlers[id] as (input: unknown, ctx: CallContext) => Promise<unknown>;
    // Only adapters (the Claude Code hook route) call other routes: the in-process client is made on first use.
    const reply = await handler(input, {
      ...ctx,
      get internal() {
        return internalPoster(ctx.caller);
      },
    });
    if (CHECK_REPLIES) checkReply(id, reply);
    return reply;
  };

  /** The API in-process as the given caller (for adapters such as Claude Code's HTTP hooks). */
  function internalPoster(caller: Caller): ApiClient {
    return new ApiClient({
      send: (id, input) => dispatch(id, { body: input.body ?? {}, query: input.query }, { caller, params: input.params, header: () => undefined }),
    });
  }

  return dispatch;
}

/** The caller every in-process use acts as: the user, like the admin token. */
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

export const ADMIN_CALLER: Caller = { tokenId: 'admin', agentId: null, permissions: new Set(['remember', 'recall', 'admin']), admin: true };
