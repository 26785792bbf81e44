// The handlers of Baton's HTTP API, one per route of the contract (src/api/routes.ts, with its
// schemas in src/api/schemas.ts). A handler receives its parsed body and query, the path
// parameters, the caller and the request headers; it never sees the HTTP request or response,
// and its reply is typed by the route's response schema. Adding a route: its line in
// api/routes.ts, its schemas in api/schemas/<domain>.ts, its handler here (docs/architecture.md).

import * as crypto from 'node:crypto';
import * as path from 'node:path';
import { BatonError, errorClassOf } from '../core/errors';
import { silentLogger, type Logger } from '../core/logger';
import { aggregateDeliveries } from '../core/runs';
import type { ApiClient } from '../api/client';
import { HOOK_EVENT_HEADER, HOOK_HEADER, type RouteId } from '../api/routes';
import type { BodyOf, QueryOf, ResponseOf } from '../api/schemas';
import { givenKey } from '../api/schemas/common';
import { harnessHookPayload } from '../api/schemas/hooks';
import { stripSessionPrefix } from '../core/sessionKey';
import type { RecoveryEvent } from '../store/engine/recovery';
import type { StorageStatus } from '../store/engine/sizeLimit';
import type { StoreAccess } from '../store/store';
import type { ServerConfig } from './config';
import type { InheritService } from './inheritService';
import type { MemoryService, RecallInput } from './memoryService';
import type { RuleService } from './ruleService';
import type { RunService } from './runService';
import type { TokenService } from './tokenService';
import type { BackgroundWork } from './jobs';
import { readScope, writeAgent, type Caller } from './security';
import { sessionStatus, type SessionService } from './sessionService';
import type { PriceTable } from '../core/prices';
import { buildSpendReport } from '../core/spendReport';
import { writeHolderTranscript } from './holderTranscript';
import { finishEndedSession, SESSION_END_JOB } from './sessionEndWork';
import { orElse as degrade } from './orElse';
import { HookInputError, HookStepFailure } from '../harnesses/claudeStyleHooks';
import { hookHarness } from '../harnesses/registry';
import { HTTP_HOOK_BUDGET_MS } from '../harnesses/harness';
import { PayloadFiles } from '../node/payloadFiles';
import { logHookProblem } from '../node/endpointCall';
import { isUnderRoot } from '../node/safeRead';
import { HTTP_HOOK_SUFFIX, RELAYED_HOOK_SUFFIX } from '../core/hookHealth';
import { statusOf } from './http';

export interface CallContext {
  caller: Caller;
  params: Record<string, string>;
  /** A request header's first value (lower-case name). */
  header(name: string): string | undefined;
  /**
   * Calls another POST route in-process as the same caller. An HTTP-hook route's calls see this
   * request's headers (they stand for the harness's own request); a spawn's see none (dispatch.ts).
   */
  internal: ApiClient;
}

export interface Input<K extends RouteId> {
  body: BodyOf<K>;
  query: QueryOf<K>;
}

export type Handler<K extends RouteId> = (input: Input<K>, ctx: CallContext) => Promise<ResponseOf<K>>;
export type Handlers = { [K in RouteId]: Handler<K> };

export interface Services {
  store: StoreAccess;
  config: ServerConfig;
  /** The server's data directory: the HTTP hooks keep their notes there, never in the default one. */
  dataDir: string;
  sessions: SessionService;
  memory: MemoryService;
  /** An agent's constraints and entities, by hand (ruleService.ts). */
  rules: RuleService;
  /** Agent tokens (tokenService.ts). */
  tokens: TokenService;
  /** Extracts the rules and focal entities of a session's turns (session end). */
  inherit: InheritService;
  /** Spawns sub-agent runs with the configured runners (POST /api/runs/spawn). */
  runs: RunService;
  /** Background jobs and the session artifacts on disk (docs/memory.md, "Session artifacts"). */
  work: BackgroundWork;
  /** The recovery events of the store's open (file names and numbers only). */
  recovery?(): RecoveryEvent[];
  /** The store's size against its limit (docs/storage.md, "How big a store can grow"); null when not known. */
  storage?(): Promise<StorageStatus | null>;
  /** Where a step that degrades instead of failing its route says so (error class only). */
  logger?: Logger;
}

/** The runtime path a write names: its body's, else the header plugins send (docs/inheritance.md, "Rules"). */
export function runtimePathOf(ctx: Pick<CallContext, 'header'>, body: { runtimePath?: string } | undefined): string | undefined {
  return body?.runtimePath ?? ctx.header('x-baton-runtime-path') ?? ctx.header('x-signet-runtime-path');
}

/**
 * The session a process Baton started belongs to (`X-Agent-Session-Id`, from its AGENT_SESSION_ID),
 * held to the rules of a session key a body names: a bad one is the caller's error, never a parent.
 */
function propagatedParentOf(ctx: Pick<CallContext, 'header'>): string | undefined {
  const header = ctx.header('x-agent-session-id');
  if (header === undefined || header === '') return undefined;
  const parsed = givenKey.safeParse(header);
  if (!parsed.success) throw new BatonError('invalid_request', `X-Agent-Session-Id: ${parsed.error.issues[0].message}`);
  return parsed.data;
}

function requireKey(body: { sessionKey?: string }): string {
  const key = body.sessionKey;
  if (!key) throw new BatonError('invalid_request', 'sessionKey: is required');
  return key;
}

const BYPASSED = { bypassed: true as const, inject: '' };

/** A file an HTTP hook's mapping reads (a meta file, a transcript's tail) must be read within this. */
const HOOK_FILE_READ_MS = 2000;

/** The agent a body names (loose bodies may carry it even where the schema does not list it). */
function agentOf(body: object): string | undefined {
  const named = (body as { agentId?: unknown }).agentId;
  return typeof named === 'string' && named ? named : undefined;
}

/** A call by one of Baton's own processes (`x-baton-no-hooks: 1`), which hooks must not act on. */
function isInternalCall(ctx: CallContext): boolean {
  const flag = ctx.header('x-baton-no-hooks') ?? ctx.header('x-signet-no-hooks');
  return flag === '1' || flag === 'true';
}

/** The reply's `transcriptCursor`, when an inline message list was written. */
function cursorOf(written: object): { transcriptCursor?: { messages: number; mark: string } } {
  const cursor = (written as { transcriptCursor?: { messages: number; mark: string } }).transcriptCursor;
  return cursor ? { transcriptCursor: cursor } : {};
}

export function buildHandlers(svc: Services): Handlers {
  const { sessions, memory, rules, tokens, store, work } = svc;
  const logger = svc.logger ?? silentLogger;
  // What the hook mappings read of the files a payload names: only under the transcript roots,
  // never blocking, bounded (docs/security.md, "Reading files a request names").
  const transcriptRoots = svc.config.transcriptRoots.map((r) => path.resolve(r));
  const hookFiles = new PayloadFiles({ roots: svc.config.transcriptRoots, maxBytes: svc.config.maxTranscriptBytes, timeoutMs: HOOK_FILE_READ_MS });

  /**
   * POST /api/hooks/:harness: a harness's raw hook payload through its hook mapping, here in the
   * server. Claude Code's HTTP hooks post it; every hook command relays it (connectors/hookRelay.ts),
   * naming itself and the event its command was installed for in headers.
   */
  async function harnessHook({ body }: { body: Record<string, unknown> }, ctx: CallContext): Promise<Record<string, unknown>> {
    const harness = hookHarness(ctx.params.harness);
    if (!harness) throw new BatonError('not_found', `no harness ${JSON.stringify(String(ctx.params.harness ?? '').slice(0, 64))} posts hooks here`);
    // A relayed command names itself, and the event it was installed for (payloads that do not name theirs).
    const [relayedBy, relayedEvent] = (ctx.header(HOOK_HEADER) ?? '').split(' ');
    // The harness's own HTTP hooks send only its payloads; its hook command may get another's
    // (VS Code agent mode runs Claude Code's), which its mapping hands on, as it does in the hook.
    const checked = (relayedBy === harness.id ? harnessHookPayload : (harness.hookBody ?? harnessHookPayload)).safeParse(body);
    if (!checked.success) throw new BatonError('invalid_request', checked.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`).join('; '));
    const installedFor = ctx.header(HOOK_EVENT_HEADER);
    const eventFlag = relayedBy === harness.id && installedFor && harness.hooks.events.includes(installedFor) ? installedFor : undefined;
    // The event name is free text from the caller: logged only when it is one of the known events.
    const named = [body.hook_event_name, body.hookEventName, eventFlag, relayedEvent].find((e) => typeof e === 'string' && harness.hooks.events.includes(e));
    const event = typeof named === 'string' ? named : 'other-event';
    // The harness keeps no log of an HTTP hook's trouble: the server writes the hooks.log line the hook command would (`baton doctor`).
    const suffix = relayedBy === harness.id ? RELAYED_HOOK_SUFFIX : HTTP_HOOK_SUFFIX;
    const stepFailed = (step: string, err: unknown) => {
      const reason = err instanceof BatonError ? `HTTP ${statusOf(err.code)} ${err.code}` : errorClassOf(err);
      logger.warn(`${harness.id} hook ${event}: step ${step} failed: ${reason}`);
      logHookProblem(svc.dataDir, harness.id, event, `step ${step}: ${reason} ${suffix}`);
    };
    // A transcript named outside the roots is never opened: the mapping goes on without it (as if
    // absent). Said in hooks.log from the path's text alone, so the line tells nothing of the file.
    const transcript = body.transcript_path ?? body.transcriptPath;
    if (typeof transcript === 'string' && transcript && !isUnderRoot(path.resolve(transcript), transcriptRoots))
      stepFailed('transcript', new BatonError('invalid_request', 'the transcript lies outside the transcript roots'));
    try {
      return ((await harness.hooks.handle(body, ctx.internal, {
        event: eventFlag,
        stepFailed,
        dataDir: svc.dataDir,
        files: hookFiles,
        deadline: Date.now() + HTTP_HOOK_BUDGET_MS,
      })) ?? {}) as Record<string, unknown>;
    } catch (err) {
      const cause = err instanceof HookStepFailure ? err.error : err;
      if (cause instanceof HookInputError) throw new BatonError('invalid_request', cause.message);
      throw cause;
    }
  }

  /** Takes the parent's finished, undelivered ASYNC_CALLBACK runs (atomically, once) as one message. */
  // Only the runs of the session's own agent: a run of another agent never reaches this parent.
  async function callbackResults(parentSessionKey: string, agentId: string): Promise<string> {
    const { runs } = await store.write('takeDeliveries', { parentSessionKey, agentId });
    return runs.length ? aggregateDeliveries(runs) : '';
  }

  /**
   * A step after a route's own write (the transcript) that must not undo its answer: when it
   * fails, it is logged by error class and the route goes on with `fallback`. The prompt's
   * take-once parts (callback results, the sub-agents after a compaction) are one atomic write
   * each, so a failed one took nothing and waits for the next prompt; session end's
   * post-processing steps each still run when another fails (orElse.ts).
   */
  const orElse = <T>(step: string, run: () => Promise<T>, fallback: T): Promise<T> => degrade(logger, step, run, fallback);

  /**
   * Recall through any door (docs/memory.md, "Recall"): the session's ledger is written, so only
   * from the runtime path that holds the session; then the service's one ranking and ledger.
   */
  // Both doors write the session's ledger: only from the runtime path that holds the session (the
  // dispatcher's claim guard, checked by the store with the write: dispatch.ts LEDGER_WRITES).
  async function recallThrough(ctx: CallContext, body: RecallInput, opts?: { sessionMustExist?: boolean }) {
    return memory.recall(ctx.caller, body, opts);
  }

  return {
    health: async () => ({ status: 'ok' as const }),

    sessionStart: async ({ body }, ctx) =>
      sessions.sessionStart(
        ctx.caller,
        {
          harness: body.harness,
          sessionKey: body.sessionKey,
          project: body.project,
          agentId: body.agentId,
          harnessAgentId: body.harnessAgentId,
          harnessAgentType: body.harnessAgentType,
          task: body.task,
          parentSessionKey: body.parentSessionKey ?? null,
          propagatedParent: ctx.header('x-agent-session-id') ?? null,
          executionMode: body.executionMode,
          runtimePath: runtimePathOf(ctx, body),
          title: body.title,
          source: body.source,
          // Baton's own processes are told no memories: hooks must not act on Baton's own work (docs/memory.md).
          injectMemories: isInternalCall(ctx) ? false : body.injectMemories,
          resumeContext: body.resumeContext,
        },
        () => crypto.randomUUID(),
      ),

    userPromptSubmit: async ({ body }, ctx) => {
      const prompt = body.userMessage ?? body.userPrompt ?? '';
      // Asked for together with the write, so the store answers both in one batch (one round trip).
      const expectedAgent = writeAgent(ctx.caller, body.agentId);
      const early = sessions.entityInject(expectedAgent, prompt);
      early.catch(() => undefined);
      const written = await sessions.writeTranscript(ctx.caller, { ...body, sessionKey: requireKey(body), runtimePath: runtimePathOf(ctx, body) });
      if (written.bypassed) return { ...BYPASSED, sessionKey: written.sessionKey };
      const entities = written.agentId === expectedAgent ? await early : await sessions.entityInject(written.agentId, prompt);
      // A new prompt (not a transcript sync) also carries the parent's finished ASYNC_CALLBACK runs,
      // each taken once (docs/runs.md, "Callback delivery").
      const isPrompt = body.userPrompt !== undefined || body.userMessage !== undefined;
      const results =
        isPrompt && written.waiting?.deliveries ? await orElse('callback delivery', () => callbackResults(written.sessionKey, written.agentId), '') : '';
      // After a compaction, the parent hears once which sub-agents ran and what they found (docs/inheritance.md).
      const subagents =
        isPrompt && written.waiting?.subagents
          ? await orElse('sub-agents after compaction', () => sessions.subagentsAfterCompaction(written.agentId, written.sessionKey), '')
          : '';
      const inject = [entities, results, subagents].filter((part) => part.trim()).join('\n\n');
      return { inject, sessionKey: written.sessionKey, appended: written.appended, turnCount: written.turnCount, ...cursorOf(written) };
    },

    sessionEnd: async ({ body }, ctx) => {
      // A hook the harness waits on asks for the work after the end in the background: a job
      // queued in the same write as the end, so a crash cannot lose it (sessionEndWork.ts).
      const later = body.background === true;
      const written = await sessions.writeTranscript(
        ctx.caller,
        { ...body, sessionKey: requireKey(body), runtimePath: runtimePathOf(ctx, body) },
        {
          reason: body.reason ?? null,
          status: body.status ?? 'ended',
          parentSessionKey: body.parentSessionKey,
          ...(later ? { followUpJob: SESSION_END_JOB } : {}),
        },
      );
      if (written.bypassed) return { ...BYPASSED, sessionKey: written.sessionKey };
      const done = { success: true, sessionKey: written.sessionKey, appended: written.appended, turnCount: written.turnCount, ...cursorOf(written) };
      if (later) {
        work.jobs.poke();
        return { ...done, ...(written.followUpJobId ? { follow_up_job_id: written.followUpJobId } : {}) };
      }
      // The session has ended once its transcript is stored; what follows degrades step by step.
      const artifacts = await finishEndedSession({ inherit: svc.inherit, memory, artifacts: work.artifacts, logger }, written.agentId, written.sessionKey);
      return { ...done, ...artifacts };
    },

    remember: async ({ body }, ctx) => {
      if (await memory.bypassed(ctx.caller, body.sessionKey, agentOf(body))) return { ...BYPASSED, success: false };
      return memory.remember(ctx.caller, body);
    },

    // The hook door: the hook's no-op cases, then the one recall (docs/memory.md, "Recall").
    recall: async ({ body }, ctx) => {
      // Baton's own processes mark their calls: they get the no-op shape, and nothing is recorded (docs/memory.md).
      if (isInternalCall(ctx)) return { ...memory.emptyRecall(body.query), internal: true };
      if (await memory.bypassed(ctx.caller, body.sessionKey, agentOf(body))) return { ...memory.emptyRecall(body.query), bypassed: true };
      return recallThrough(ctx, body);
    },

    // The general door (CLI, MCP, scripts): the same recall, its session required to exist.
    memoryRecall: async ({ body }, ctx) => {
      const { query, sessionKey, agentId, project, limit } = body;
      return recallThrough(ctx, { query, sessionKey, agentId, project, limit }, { sessionMustExist: true });
    },

    subagentSpawn: async ({ body }, ctx) => sessions.recordSpawn(ctx.caller, body),

    preCompaction: async ({ body }, ctx) => {
      if (await memory.bypassed(ctx.caller, body.sessionKey, agentOf(body))) return { ...BYPASSED, guidelines: '' };
      return memory.preCompaction();
    },

    compactionComplete: async ({ body }, ctx) => {
      if (await memory.bypassed(ctx.caller, body.sessionKey, agentOf(body))) return { ...BYPASSED, success: false };
      // A compaction may be the first Baton hears of a session: it is recorded, so the summary becomes its checkpoint.
      if (body.sessionKey) await sessions.recordNamedSession(ctx.caller, { ...body, sessionKey: body.sessionKey });
      const done = await work.compaction(ctx.caller, body, (compactionPath) => memory.compactionComplete(ctx.caller, { ...body, compactionPath }));
      await sessions.markCompacted(ctx.caller, body);
      return done;
    },

    checkpointExtract: async ({ body }, ctx) => {
      if (body.transcript !== undefined || body.transcriptPath) {
        // A transcript given here is stored first (as a delta), then the checkpoint looks at what is new.
        const written = await sessions.writeTranscript(ctx.caller, { ...body, runtimePath: runtimePathOf(ctx, body) });
        if (written.bypassed) return { skipped: true, bypassed: true };
      }
      // A real job: its id can be polled at GET /api/jobs/:id (docs/memory.md, "Background jobs").
      return work.queueCheckpoint(ctx.caller, body);
    },

    transcriptCursor: async ({ body }, ctx) => sessions.transcriptCursor(ctx.caller, { ...body, sessionKey: requireKey(body) }),

    synthesisConfig: async () => memory.synthesisConfig(),
    synthesis: async ({ body }, ctx) => memory.synthesis(ctx.caller, body),
    synthesisComplete: async ({ body }, ctx) => memory.synthesisComplete(ctx.caller, body),

    harnessHook,

    listSessions: async ({ query }, ctx) => {
      // Active sessions by default (the documented view); all=1 for every session, roots=1 / parent=KEY
      // for a lazily loaded tree.
      const all = query.all || query.roots || query.parent !== undefined;
      const { sessions: list, total } = await store.read('listSessions', {
        scope: readScope(ctx.caller),
        status: all ? undefined : 'active',
        rootsOnly: query.roots,
        parentKey: query.parent ? stripSessionPrefix(query.parent) : undefined,
        agentId: query.agentId,
        project: query.project,
        limit: query.limit,
        offset: query.offset,
      });
      return { sessions: list.map((x) => sessionStatus(x, svc.config.claimTtlMs, svc.config.prices)), count: list.length, total };
    },

    sessionTree: async ({ query }, ctx) => {
      const roots = await store.read('tree', { scope: readScope(ctx.caller), project: query.project });
      return { roots: roots.map((r) => withTtl(r, svc.config.claimTtlMs, svc.config.prices)), count: roots.length };
    },

    spend: async ({ query }, ctx) => {
      // A date alone means from its start (UTC); stored request times are ISO 8601 UTC.
      const since = query.since ? new Date(Date.parse(query.since)).toISOString() : undefined;
      const sums = await store.read('spendSums', { scope: readScope(ctx.caller), since, project: query.project });
      return buildSpendReport(sums, { since, project: query.project, top: query.top }, svc.config.prices);
    },

    summaries: async ({ query }, ctx) => memory.summaries(ctx.caller, { sessionKey: query.sessionKey, agentId: query.agentId, limit: query.limit }),
    expandSummary: async ({ body }, ctx) => memory.expand(ctx.caller, body),
    search: async ({ body }, ctx) => sessions.search(ctx.caller, body),
    // Reads by key take the agent whose row they mean (docs/security.md, "Reads by key name the agent").
    getSession: async ({ query }, ctx) =>
      sessionStatus(await sessions.getSession(ctx.caller, ctx.params.key, query.agentId), svc.config.claimTtlMs, svc.config.prices),
    transcript: async ({ query }, ctx) => sessions.transcript(ctx.caller, ctx.params.key, query.agentId),
    turns: async ({ query }, ctx) =>
      store.read('turns', { scope: readScope(ctx.caller), key: ctx.params.key, agentId: query.agentId, from: query.from, limit: query.limit }),
    subagents: async ({ query }, ctx) => sessions.subagents(ctx.caller, ctx.params.key, query.agentId),
    inherited: async ({ query }, ctx) => sessions.inheritedPreview(ctx.caller, ctx.params.key, query),

    archiveTurns: async ({ body }, ctx) => {
      const agentId = writeAgent(ctx.caller, body.agentId);
      const archived = await store.write('archiveTurns', {
        agentId,
        key: ctx.params.key,
        from: body.from,
        to: body.to,
        summary: body.summary,
        holderKey: body.holderKey,
        title: body.title,
      });
      // The holder's copy on disk, for every caller alike (docs/archival.md); the archive itself is
      // stored already, so a failed file is logged and the answer goes without its path.
      const transcriptPath = await orElse(
        'holder transcript file',
        () => writeHolderTranscript(store, svc.dataDir, { agentId, key: archived.holderKey, turns: archived.archived }),
        null,
      );
      return { ...archived, ...(transcriptPath ? { transcriptPath } : {}) };
    },

    bypass: async ({ body }, ctx) => store.write('setBypass', { agentId: writeAgent(ctx.caller, body.agentId), key: ctx.params.key, enabled: body.enabled }),

    upsertRun: async ({ body }, ctx) => {
      const { id } = await store.write('upsertRun', { ...body, agentId: writeAgent(ctx.caller, body.agentId), anyAgent: ctx.caller.admin });
      const run = await store.read('getRun', { scope: readScope(ctx.caller), id });
      if (!run) throw new BatonError('internal', `run ${id} was written but cannot be read back`);
      return run;
    },

    // The child's records are written through the API as this caller, so they are its agent's runs.
    // A caller Baton started names its own session in X-Agent-Session-Id: the parent when the body
    // names none (docs/runs.md, "Spawning a run").
    spawnRun: async ({ body }, ctx) =>
      svc.runs.spawn(ctx.internal, { ...body, parentSessionKey: body.parentSessionKey ?? propagatedParentOf(ctx) }, ctx.caller),

    listRuns: async ({ query }, ctx) => {
      const runs = await store.read('listRuns', {
        scope: readScope(ctx.caller),
        runner: query.runner,
        status: query.status,
        since: query.since,
        specId: query.specId,
        parentSessionKey: query.parent,
        limit: query.limit,
      });
      return { runs, count: runs.length };
    },

    listConstraints: async ({ query }, ctx) => rules.listConstraints(ctx.caller, query),
    addConstraint: async ({ body }, ctx) => rules.addConstraint(ctx.caller, body),
    editConstraint: async ({ body }, ctx) => rules.editConstraint(ctx.caller, ctx.params.id, body),
    listEntities: async ({ query }, ctx) => rules.listEntities(ctx.caller, query),
    addEntity: async ({ body }, ctx) => rules.addEntity(ctx.caller, body),
    editEntity: async ({ body }, ctx) => rules.editEntity(ctx.caller, ctx.params.id, body),

    getRun: async (_input, ctx) => {
      const run = await store.read('getRun', { scope: readScope(ctx.caller), id: ctx.params.id });
      if (!run) throw new BatonError('not_found', `run ${ctx.params.id} not found`);
      return run;
    },

    deliverRuns: async ({ body }, ctx) => {
      const { runs } = await store.write('takeDeliveries', {
        parentSessionKey: body.parentSessionKey,
        agentId: writeAgent(ctx.caller, undefined),
        anyAgent: ctx.caller.admin,
      });
      return { runs, count: runs.length };
    },

    createToken: async ({ body }) => tokens.create(body),

    revokeToken: async (_input, ctx) => tokens.revoke(ctx.params.key),

    getJob: async (_input, ctx) => {
      const job = await work.jobView(ctx.caller, ctx.params.id);
      if (!job) throw new BatonError('not_found', `job ${ctx.params.id} not found`);
      return job;
    },

    recovery: async () => ({ events: svc.recovery?.() ?? [], storage: (await svc.storage?.()) ?? null }),
  };
}

/** A tree node as a client sees it: the session's status fields, its children likewise. */
function withTtl(
  node: Parameters<typeof sessionStatus>[0] & { children: unknown[] },
  ttlMs: number,
  prices: PriceTable,
): ResponseOf<'sessionTree'>['roots'][number] {
  return { ...node, ...sessionStatus(node, ttlMs, prices), children: (node.children as Array<typeof node>).map((c) => withTtl(c, ttlMs, prices)) };
}
