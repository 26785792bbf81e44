// The route table: every path of the sessions & hooks API, plus tree, inherited previews,
// health, events and token management. Each route names the permission it needs.

import * as crypto from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BatonError } from '../core/errors';
import { explicitParentOf } from '../core/lineage';
import type { ReadPolicy } from '../core/types';
import { stripSessionPrefix } from '../store/queries';
import type { Store } from '../store/store';
import type { ServerConfig } from './config';
import type { EventHub } from './events';
import { readJsonBody, sendJson } from './http';
import type { MemoryService } from './memoryService';
import * as S from './schemas';
import { hashSecret, newSecret, readScope, writeAgent, type Caller, type Permission } from './security';
import { sessionStatus, type SessionService } from './sessionService';

export interface RouteContext {
  req: IncomingMessage;
  res: ServerResponse;
  caller: Caller;
  params: Record<string, string>;
  query: URLSearchParams;
  body(): Promise<Record<string, unknown>>;
}

export interface Route {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  /** null: no token needed (health only). */
  permission: Permission | null;
  handle(ctx: RouteContext): Promise<unknown>;
}

export interface Services {
  store: Store;
  config: ServerConfig;
  sessions: SessionService;
  memory: MemoryService;
  events: EventHub;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function runtimePathOf(ctx: RouteContext, body: { runtimePath?: string }): string | undefined {
  return body.runtimePath ?? header(ctx.req, 'x-baton-runtime-path') ?? header(ctx.req, 'x-signet-runtime-path');
}

function requireKey(body: { sessionKey?: string; sessionId?: string }): string {
  const key = body.sessionKey ?? body.sessionId;
  if (!key) throw new BatonError('invalid_request', 'sessionKey: is required');
  return key;
}

function intParam(query: URLSearchParams, name: string, fallback: number, min: number, max: number): number {
  const raw = query.get(name);
  if (raw === null) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new BatonError('invalid_request', `${name}: must be a whole number from ${min} to ${max}`);
  return n;
}

const BYPASSED = { bypassed: true, inject: '' };

export function buildRoutes(svc: Services): Route[] {
  const { sessions, memory, store } = svc;
  return [
    {
      method: 'GET',
      path: '/api/health',
      permission: null,
      handle: async () => ({ status: 'ok' }),
    },
    {
      method: 'POST',
      path: '/api/hooks/session-start',
      permission: 'remember',
      handle: async (ctx) => {
        const raw = await ctx.body();
        const body = S.parseBody(S.sessionStartBody, raw);
        return sessions.sessionStart(
          ctx.caller,
          {
            harness: body.harness,
            sessionKey: body.sessionKey ?? body.sessionId,
            project: body.project,
            agentId: body.agentId,
            harnessAgentId: body.harnessAgentId,
            harnessAgentType: body.harnessAgentType,
            parentSessionKey: explicitParentOf(raw),
            propagatedParent: header(ctx.req, 'x-agent-session-id') ?? null,
            executionMode: body.executionMode,
            runtimePath: runtimePathOf(ctx, body),
            title: body.title,
            source: body.source,
          },
          () => crypto.randomUUID(),
        );
      },
    },
    {
      method: 'POST',
      path: '/api/hooks/user-prompt-submit',
      permission: 'remember',
      handle: async (ctx) => {
        const body = S.parseBody(S.promptSubmitBody, await ctx.body());
        const prompt = body.userMessage ?? body.userPrompt ?? '';
        // Asked for together with the write, so the store answers both in one batch (one round trip).
        const expectedAgent = writeAgent(ctx.caller, body.agentId);
        const early = sessions.entityInject(expectedAgent, prompt);
        early.catch(() => undefined);
        const written = await sessions.writeTranscript(ctx.caller, { ...body, sessionKey: requireKey(body), runtimePath: runtimePathOf(ctx, body) });
        if (written.bypassed) return { ...BYPASSED, sessionKey: written.sessionKey };
        const inject = written.agentId === expectedAgent ? await early : await sessions.entityInject(written.agentId, prompt);
        return { inject, sessionKey: written.sessionKey, appended: written.appended, turnCount: written.turnCount };
      },
    },
    {
      method: 'POST',
      path: '/api/hooks/session-end',
      permission: 'remember',
      handle: async (ctx) => {
        const body = S.parseBody(S.sessionEndBody, await ctx.body());
        const written = await sessions.writeTranscript(
          ctx.caller,
          { ...body, sessionKey: requireKey(body), runtimePath: runtimePathOf(ctx, body) },
          { reason: body.reason ?? null, status: body.status ?? 'ended', parentSessionKey: body.parentSessionKey },
        );
        if (written.bypassed) return { ...BYPASSED, sessionKey: written.sessionKey };
        return { success: true, sessionKey: written.sessionKey, appended: written.appended, turnCount: written.turnCount };
      },
    },
    {
      method: 'POST',
      path: '/api/hooks/remember',
      permission: 'remember',
      handle: async (ctx) => {
        const body = S.parseBody(S.rememberBody, await ctx.body());
        if (await memory.bypassed(ctx.caller, body.sessionKey)) return { ...BYPASSED, success: false };
        return memory.remember(ctx.caller, body);
      },
    },
    {
      method: 'POST',
      path: '/api/hooks/recall',
      permission: 'recall',
      handle: async (ctx) => {
        const body = S.parseBody(S.recallBody, await ctx.body());
        if (await memory.bypassed(ctx.caller, body.sessionKey)) {
          return { results: [], memories: [], count: 0, query: body.query, method: 'keyword', meta: { totalReturned: 0, hasSupplementary: false, noHits: true }, message: '', bypassed: true };
        }
        return memory.recall(ctx.caller, body);
      },
    },
    {
      method: 'POST',
      path: '/api/hooks/pre-compaction',
      permission: 'remember',
      handle: async (ctx) => {
        const body = S.parseBody(S.preCompactionBody, await ctx.body());
        if (await memory.bypassed(ctx.caller, body.sessionKey)) return { ...BYPASSED, guidelines: '' };
        return memory.preCompaction();
      },
    },
    {
      method: 'POST',
      path: '/api/hooks/compaction-complete',
      permission: 'remember',
      handle: async (ctx) => {
        const body = S.parseBody(S.compactionCompleteBody, await ctx.body());
        if (await memory.bypassed(ctx.caller, body.sessionKey)) return { ...BYPASSED, success: false };
        return memory.compactionComplete(ctx.caller, body);
      },
    },
    {
      method: 'POST',
      path: '/api/hooks/session-checkpoint-extract',
      permission: 'remember',
      handle: async (ctx) => {
        const body = S.parseBody(S.checkpointExtractBody, await ctx.body());
        if (body.transcript !== undefined || body.transcriptPath) {
          // A transcript given here is stored first (as a delta), then the checkpoint looks at what is new.
          const written = await sessions.writeTranscript(ctx.caller, { ...body, runtimePath: runtimePathOf(ctx, body) });
          if (written.bypassed) return { skipped: true, bypassed: true };
        }
        return memory.checkpointExtract(ctx.caller, body);
      },
    },
    {
      method: 'GET',
      path: '/api/hooks/synthesis/config',
      permission: 'recall',
      handle: async () => memory.synthesisConfig(),
    },
    {
      method: 'POST',
      path: '/api/hooks/synthesis',
      permission: 'recall',
      handle: async (ctx) => memory.synthesis(ctx.caller, S.parseBody(S.synthesisBody, await ctx.body())),
    },
    {
      method: 'POST',
      path: '/api/hooks/synthesis/complete',
      permission: 'remember',
      handle: async (ctx) => memory.synthesisComplete(ctx.caller, S.parseBody(S.synthesisCompleteBody, await ctx.body())),
    },
    {
      method: 'GET',
      path: '/api/sessions',
      permission: 'recall',
      handle: async (ctx) => {
        // Active sessions by default (the documented view); all=1 for every session, roots=1 / parent=KEY
        // for a lazily loaded tree.
        const flag = (name: string) => ctx.query.get(name) === '1' || ctx.query.get(name) === 'true';
        const parent = ctx.query.get('parent');
        const all = flag('all') || flag('roots') || parent !== null;
        const { sessions: list, total } = await store.read('listSessions', {
          scope: readScope(ctx.caller),
          status: all ? undefined : 'active',
          rootsOnly: flag('roots'),
          parentKey: parent ? stripSessionPrefix(parent) : undefined,
          project: ctx.query.get('project') ?? undefined,
          limit: intParam(ctx.query, 'limit', 200, 1, 10_000),
          offset: intParam(ctx.query, 'offset', 0, 0, 10_000_000),
        });
        return { sessions: list.map((x) => sessionStatus(x, svc.config.claimTtlMs)), count: list.length, total };
      },
    },
    {
      method: 'GET',
      path: '/api/sessions/tree',
      permission: 'recall',
      handle: async (ctx) => {
        const roots = await store.read('tree', { scope: readScope(ctx.caller), project: ctx.query.get('project') ?? undefined });
        return { roots, count: roots.length };
      },
    },
    {
      method: 'GET',
      path: '/api/sessions/summaries',
      permission: 'recall',
      handle: async (ctx) => memory.summaries(ctx.caller, { sessionKey: ctx.query.get('sessionKey') ?? undefined, limit: intParam(ctx.query, 'limit', 100, 1, 1000) }),
    },
    {
      method: 'POST',
      path: '/api/sessions/summaries/expand',
      permission: 'recall',
      handle: async (ctx) => memory.expand(ctx.caller, S.parseBody(S.expandBody, await ctx.body())),
    },
    {
      method: 'POST',
      path: '/api/sessions/search',
      permission: 'recall',
      handle: async (ctx) => sessions.search(ctx.caller, S.parseBody(S.searchBody, await ctx.body())),
    },
    {
      method: 'GET',
      path: '/api/sessions/:key',
      permission: 'recall',
      handle: async (ctx) => sessionStatus(await sessions.getSession(ctx.caller, ctx.params.key), svc.config.claimTtlMs),
    },
    {
      method: 'GET',
      path: '/api/sessions/:key/transcript',
      permission: 'recall',
      handle: async (ctx) => sessions.transcript(ctx.caller, ctx.params.key),
    },
    {
      method: 'GET',
      path: '/api/sessions/:key/turns',
      permission: 'recall',
      handle: async (ctx) =>
        store.read('turns', { scope: readScope(ctx.caller), key: ctx.params.key, from: intParam(ctx.query, 'from', 1, 1, 1e9), limit: intParam(ctx.query, 'limit', 200, 1, 2000) }),
    },
    {
      method: 'GET',
      path: '/api/sessions/:key/inherited',
      permission: 'recall',
      handle: async (ctx) => sessions.inheritedPreview(ctx.caller, ctx.params.key),
    },
    {
      method: 'POST',
      path: '/api/sessions/:key/bypass',
      permission: 'remember',
      handle: async (ctx) => {
        const body = S.parseBody(S.bypassBody, await ctx.body());
        const scope = readScope(ctx.caller);
        return store.write('setBypass', { agentId: scope === 'all' ? 'all' : scope.agentId, key: ctx.params.key, enabled: body.enabled });
      },
    },
    {
      method: 'POST',
      path: '/api/runs',
      permission: 'remember',
      handle: async (ctx) => {
        const body = S.parseBody(S.runBody, await ctx.body());
        const agentId = writeAgent(ctx.caller, body.agentId);
        const { id } = await store.write('upsertRun', { ...body, agentId });
        return (await store.read('getRun', { scope: readScope(ctx.caller), id })) ?? { id };
      },
    },
    {
      method: 'GET',
      path: '/api/runs',
      permission: 'recall',
      handle: async (ctx) => {
        const q = (name: string) => ctx.query.get(name) ?? undefined;
        const runs = await store.read('listRuns', {
          scope: readScope(ctx.caller),
          runner: q('runner'),
          status: q('status'),
          since: q('since'),
          specId: q('specId'),
          parentSessionKey: q('parent'),
          limit: intParam(ctx.query, 'limit', 100, 1, 1000),
        });
        return { runs, count: runs.length };
      },
    },
    {
      method: 'GET',
      path: '/api/runs/:id',
      permission: 'recall',
      handle: async (ctx) => {
        const run = await store.read('getRun', { scope: readScope(ctx.caller), id: ctx.params.id });
        if (!run) throw new BatonError('not_found', `run ${ctx.params.id} not found`);
        return run;
      },
    },
    {
      method: 'POST',
      path: '/api/runs/deliver',
      permission: 'remember',
      handle: async (ctx) => {
        const body = S.parseBody(S.deliverBody, await ctx.body());
        const { ids } = await store.write('takeDeliveries', { parentSessionKey: body.parentSessionKey });
        const runs = await Promise.all(ids.map((id) => store.read('getRun', { scope: readScope(ctx.caller), id })));
        return { runs: runs.filter((r) => r !== null), count: ids.length };
      },
    },
    {
      method: 'POST',
      path: '/api/tokens',
      permission: 'admin',
      handle: async (ctx) => {
        const body = await ctx.body();
        const agentId = typeof body.agentId === 'string' && body.agentId.trim() ? body.agentId.trim() : null;
        if (!agentId) throw new BatonError('invalid_request', 'agentId: is required');
        const permissions = Array.isArray(body.permissions) ? body.permissions : [];
        if (permissions.length === 0 || !permissions.every((p) => p === 'remember' || p === 'recall' || p === 'admin')) {
          throw new BatonError('invalid_request', 'permissions: a non-empty list of "remember", "recall", "admin"');
        }
        const readPolicy = body.readPolicy;
        if (readPolicy !== undefined && readPolicy !== 'shared' && readPolicy !== 'isolated') throw new BatonError('invalid_request', 'readPolicy: "shared" or "isolated"');
        if (readPolicy) await store.write('setAgentPolicy', { agentId, readPolicy: readPolicy as ReadPolicy });
        const secret = newSecret();
        const { id } = await store.write('createToken', { agentId, permissions: permissions as string[], secretHash: hashSecret(secret), label: typeof body.label === 'string' ? body.label : undefined });
        return { id, token: secret, agentId, permissions, readPolicy: readPolicy ?? (await store.read('agentPolicy', { agentId })) };
      },
    },
    {
      method: 'DELETE',
      path: '/api/tokens/:key',
      permission: 'admin',
      handle: async (ctx) => store.write('revokeToken', { id: ctx.params.key }),
    },
  ];
}

/**
 * Compiles `/api/sessions/:key/transcript` into a matcher; keys are URL-decoded. A parameter that
 * is not valid percent-encoded UTF-8 (`%ED%A0%80`, a lone surrogate) is a 400, as the same key
 * is in a body: no stored key could match it (docs/security.md, "Request rules").
 */
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
        throw new BatonError('invalid_request', `${want[i].slice(1)}: is not valid percent-encoded UTF-8`);
      }
      if (!value) return null;
      params[want[i].slice(1)] = want[i] === ':key' ? stripSessionPrefix(value) : value;
    } else if (want[i] !== got[i]) return null;
  }
  return params;
}
