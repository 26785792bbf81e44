// The schemas of Baton's HTTP API, per route id of routes.ts: request body, query and response
// (zod). Request bodies allow unknown fields (harness payloads carry extras); known fields must
// have the right type, and errors name the field. The server validates every request against
// them; the typed client derives its types from them; docs/api.md is generated from them.

import { z } from 'zod';
import { BatonError } from '../core/errors';
import { INHERIT_PROFILES } from '../core/inheritProfiles';
import { sessionRecordSchema } from '../core/session';
import { stripSessionPrefix } from '../core/sessionKey';
import type { RouteId } from './routes';

/**
 * A session key. Every stored session must be readable back as /api/sessions/<key>, so:
 * - not "." or ".." (nor "session:." / "session:.."): URL normalisation removes those path
 *   segments, even percent-encoded, so no request could ever name such a session;
 * - no lone UTF-16 surrogates: they have no UTF-8 form, so the store could not keep the key as
 *   given and would answer with a different one. Rejected (400), never silently replaced.
 */
const key = z
  .string()
  .trim()
  .min(1)
  .max(512)
  .refine((k) => !['', '.', '..'].includes(stripSessionPrefix(k)), 'must not be "." or ".." (such a key could never be read back as /api/sessions/<key>)')
  .refine((k) => !/\p{Cs}/u.test(k), 'must be well-formed Unicode (no lone surrogates)');
const text = z.string().max(10_000_000);
const harness = z.string().trim().min(1).max(64);
const optionalKey = key.optional();
const runtimePath = z.string().trim().min(1).max(64).optional();
const agentId = z.string().trim().min(1).max(128).optional();
const project = z.string().max(4096).optional();
const inlineTranscript = z.union([z.string().max(10_000_000), z.array(z.unknown()), z.record(z.string(), z.unknown())]).optional();

/**
 * Bytes of a transcript file the hook read itself because the server may not open it
 * (docs/security.md, "Transcripts outside the roots"): base64 `data` from `offset`, continuing
 * what `transcript-cursor` named (its `tailMark`), or from 0.
 */
const transcriptChunk = z
  .object({
    path: z.string().min(1).max(4096),
    offset: z.number().int().min(0),
    data: z.string().max(12_000_000),
    tailMark: z.string().max(64),
    eof: z.boolean(),
  })
  .optional();

export const sessionStartBody = z
  .object({
    harness,
    project,
    agentId,
    harnessAgentId: z.string().max(256).optional(),
    harnessAgentType: z.string().max(256).optional(),
    parentSessionKey: optionalKey,
    parentKey: optionalKey,
    parentId: optionalKey,
    parentID: optionalKey,
    sessionKey: optionalKey,
    sessionId: optionalKey,
    runtimePath,
    executionMode: z.enum(['SYNC', 'ASYNC_POLL', 'ASYNC_CALLBACK']).optional(),
    title: z.string().max(500).optional(),
    source: z.string().max(64).optional(),
  })
  .loose();

/** `transcript` holds only the messages after this point of the session's list: the `transcriptCursor` of the last reply. */
const transcriptFrom = z.object({ messages: z.number().int().min(1), mark: z.string().max(64) }).optional();

/** Where the session's inline message lists stopped: send `transcriptFrom` with it and only the messages after it next time. */
const transcriptCursorReply = z.object({ messages: z.number(), mark: z.string() }).optional();

export const promptSubmitBody = z
  .object({
    harness,
    userMessage: text.optional(),
    userPrompt: text.optional(),
    lastAssistantMessage: text.optional(),
    sessionKey: optionalKey,
    sessionId: optionalKey,
    transcriptPath: z.string().max(4096).optional(),
    transcript: inlineTranscript,
    transcriptChunk,
    transcriptFrom,
    runtimePath,
    project,
    agentId,
  })
  .loose();

export const sessionEndBody = z
  .object({
    harness,
    sessionKey: optionalKey,
    sessionId: optionalKey,
    transcriptPath: z.string().max(4096).optional(),
    transcript: inlineTranscript,
    transcriptChunk,
    transcriptFrom,
    runtimePath,
    reason: z.string().max(200).optional(),
    status: z.enum(['ended', 'completed', 'failed']).optional(),
    lastAssistantMessage: text.optional(),
    /** Corrects the recorded parent when the harness learns the exact spawner only at the end. */
    parentSessionKey: optionalKey,
    project,
    agentId,
  })
  .loose();

export const rememberBody = z
  .object({
    harness,
    content: z.string().trim().min(1).max(100_000),
    sessionKey: optionalKey,
    runtimePath,
    agentId,
    project,
    type: z.string().max(64).optional(),
    tags: z.string().max(1000).optional(),
    who: z.string().max(128).optional(),
    importance: z.number().min(0).max(1).optional(),
  })
  .loose();

export const recallBody = z
  .object({
    harness,
    query: z.string().max(10_000),
    keywordQuery: z.string().max(10_000).optional(),
    project,
    limit: z.number().int().optional(),
    type: z.string().max(64).optional(),
    tags: z.string().max(1000).optional(),
    who: z.string().max(128).optional(),
    since: z.string().max(64).optional(),
    until: z.string().max(64).optional(),
    aggregate: z.boolean().optional(),
    aggregateBudget: z.enum(['small', 'medium', 'large']).optional(),
    saveAggregate: z.boolean().optional(),
    sessionKey: optionalKey,
    agentId,
    includeRecalled: z.boolean().optional(),
    runtimePath,
  })
  .loose();

export const preCompactionBody = z.object({ harness, sessionKey: optionalKey, runtimePath }).loose();

export const compactionCompleteBody = z
  .object({ harness, summary: z.string().trim().min(1).max(1_000_000), sessionKey: optionalKey, project, runtimePath, agentId })
  .loose();

export const checkpointExtractBody = z
  .object({
    harness,
    sessionKey: key,
    agentId,
    project,
    transcriptPath: z.string().max(4096).optional(),
    transcript: inlineTranscript,
    transcriptChunk,
    runtimePath,
  })
  .loose();

export const transcriptCursorBody = z.object({ harness, sessionKey: key, agentId, path: z.string().min(1).max(4096) }).loose();

export const synthesisBody = z.object({ agentId, sessionKey: optionalKey, leaseId: z.string().max(64).optional() }).loose();
export const synthesisCompleteBody = z
  .object({ content: z.string().min(1).max(5_000_000), agentId, sessionKey: optionalKey, leaseId: z.string().max(64).optional() })
  .loose();

export const searchBody = z
  .object({ query: z.string().max(10_000), sessionKey: optionalKey, currentSessionKey: optionalKey, agentId, project, limit: z.number().optional() })
  .loose();

export const expandBody = z
  .object({ id: z.string().min(1).max(128), includeTranscript: z.boolean().optional(), transcriptCharLimit: z.number().int().min(1).max(100_000).optional() })
  .loose();

export const bypassBody = z.object({ enabled: z.boolean(), agentId }).loose();

/** A range of turns (seqs, 1-based, inclusive) to move into a holder; the summary and holder key are optional. */
export const archiveTurnsBody = z
  .object({
    from: z.number().int(),
    to: z.number().int(),
    summary: z.string().max(100_000).optional(),
    holderKey: optionalKey,
    title: z.string().max(500).optional(),
    agentId,
  })
  .loose();

export function parseBody<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue.path.length ? issue.path.join('.') : 'body';
  const problem = issue.code === 'invalid_type' && issue.message.includes('received undefined') ? 'is required' : issue.message;
  throw new BatonError('invalid_request', `${field}: ${problem}`);
}

export const runBody = z
  .object({
    id: z.string().min(1).max(64).optional(),
    runner: z.string().trim().min(1).max(64).optional(),
    status: z.enum(['pending', 'running', 'completed', 'failed']).optional(),
    executionMode: z.enum(['SYNC', 'ASYNC_POLL', 'ASYNC_CALLBACK']).optional(),
    sessionKey: optionalKey,
    parentSessionKey: optionalKey,
    workspacePath: z.string().max(4096).optional(),
    specId: z.string().max(256).optional(),
    prompt: z.string().max(1_000_000).optional(),
    files: z.array(z.string().max(4096)).max(1000).optional(),
    resultContent: z.string().max(10_000_000).optional(),
    inputTokens: z.number().int().min(0).optional(),
    outputTokens: z.number().int().min(0).optional(),
    durationMs: z.number().int().min(0).optional(),
    error: z.string().max(100_000).optional(),
    startedAt: z.string().max(64).optional(),
    finishedAt: z.string().max(64).optional(),
    agentId,
  })
  .strict();

export const spawnRunBody = z
  .object({
    /** What the child is asked to do. */
    task: z.string().trim().min(1).max(1_000_000),
    parentSessionKey: optionalKey,
    /** A runner of the server's config (runners in DIR/config.json); its default when omitted. */
    runner: z.string().trim().min(1).max(64).optional(),
    executionMode: z.enum(['SYNC', 'ASYNC_POLL', 'ASYNC_CALLBACK']).optional(),
    specId: z.string().trim().min(1).max(256).optional(),
    /** Paths inside the workspace; their contents go into the child's prompt within a byte budget. */
    files: z.array(z.string().min(1).max(4096)).max(1000).optional(),
    /** An absolute directory: the child's cwd and the root its files resolve under (default: the runner's cwd). */
    workspacePath: z
      .string()
      .max(4096)
      .refine((p) => p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p), 'must be an absolute path')
      .optional(),
    title: z.string().trim().min(1).max(200).optional(),
    /** Lower than the runner's timeout only. */
    timeoutMs: z.number().int().min(100).max(86_400_000).optional(),
    agentId,
  })
  .strict();

export const deliverBody = z.object({ parentSessionKey: key }).loose();

/** Events whose payload must name the sub-agent (agent_id). */
const SUBAGENT_EVENTS = new Set(['SubagentStart', 'SubagentStop']);

/**
 * Claude Code's HTTP hook payload (POST /api/hooks/claude-code), as the hook command receives it
 * on stdin. session_id becomes a session key (and, with agent_id, a sub-agent's key), so it obeys
 * the key rules above.
 */
export const claudeCodeHookBody = z
  .object({
    hook_event_name: z.string().trim().min(1).max(64),
    session_id: key,
    transcript_path: z.string().max(4096).optional(),
    cwd: z.string().max(4096).optional(),
    source: z.string().max(64).optional(),
    prompt: text.optional(),
    // May be empty outside a sub-agent; required (non-empty) for the sub-agent events below.
    agent_id: z.string().max(256).optional(),
    agent_type: z.string().max(256).optional(),
    agent_transcript_path: z.string().max(4096).optional(),
    last_assistant_message: text.optional(),
    reason: z.string().max(200).optional(),
    compact_summary: z.string().max(1_000_000).optional(),
  })
  .loose()
  .superRefine((body, ctx) => {
    if (SUBAGENT_EVENTS.has(body.hook_event_name) && !body.agent_id?.trim())
      ctx.addIssue({ code: 'custom', path: ['agent_id'], message: `is required for ${body.hook_event_name}` });
    if (body.agent_id !== undefined && /\p{Cs}/u.test(body.agent_id))
      ctx.addIssue({ code: 'custom', path: ['agent_id'], message: 'must be well-formed Unicode (no lone surrogates)' });
  });

export const tokenBody = z
  .object({
    agentId: z.string().trim().min(1).max(128),
    permissions: z.array(z.enum(['remember', 'recall', 'admin'])).min(1),
    readPolicy: z.enum(['shared', 'isolated']).optional(),
    label: z.string().max(200).optional(),
  })
  .loose();

// --- Query strings: every value arrives as a string.

/** A whole number within bounds, else 400 naming the parameter. */
const intQuery = (fallback: number, min: number, max: number) =>
  z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined) return fallback;
      const n = Number(raw);
      if (Number.isInteger(n) && n >= min && n <= max) return n;
      ctx.addIssue({ code: 'custom', message: `must be a whole number from ${min} to ${max}` });
      return z.NEVER;
    });
const flagQuery = z
  .string()
  .optional()
  .transform((v) => v === '1' || v === 'true');
const textQuery = z.string().max(4096).optional();
/**
 * Whose row of the key a read means (keys are per agent, docs/security.md "Reads by key name the
 * agent"): the admin reads that agent's row; an agent token may name only an agent it reads (else
 * 404). Without it: the caller's own row, else the newest it may read.
 */
const agentQuery = z.string().trim().min(1).max(128).optional();
/** The query of a read of one session by key. */
export const sessionReadQuery = z.object({ agentId: agentQuery });

export const listSessionsQuery = z.object({
  all: flagQuery,
  roots: flagQuery,
  parent: textQuery,
  /** With parent=KEY: the children of that agent's session of the key (keys are per agent). */
  agentId: agentQuery,
  project: textQuery,
  limit: intQuery(200, 1, 10_000),
  offset: intQuery(0, 0, 10_000_000),
});
export const projectQuery = z.object({ project: textQuery });
export const summariesQuery = z.object({ sessionKey: textQuery, agentId: agentQuery, limit: intQuery(100, 1, 1000) });
export const turnsQuery = z.object({ from: intQuery(1, 1, 1e9), limit: intQuery(200, 1, 2000), agentId: agentQuery });
export const listRunsQuery = z.object({
  runner: textQuery,
  status: textQuery,
  since: textQuery,
  specId: textQuery,
  parent: textQuery,
  limit: intQuery(100, 1, 1000),
});

export const listConstraintsQuery = z.object({ sessionKey: textQuery, agentId: agentQuery, all: textQuery, limit: intQuery(200, 1, 1000) });

export const addConstraintBody = z
  .object({
    content: z.string().trim().min(1).max(2000),
    sessionKey: z.string().trim().min(1).max(512).optional(),
    entity: z.string().trim().min(1).max(256).optional(),
    importance: z.number().min(0).max(1).optional(),
    agentId,
  })
  .strict();

export const listEntitiesQuery = listConstraintsQuery;

const entityName = z.string().trim().min(1).max(256);
export const addEntityBody = z
  .object({
    name: entityName,
    kind: z.string().trim().min(1).max(64).optional(),
    description: z.string().trim().max(2000).optional(),
    /** Keeps the entity in this session's focus: a child of the session sees it among the focal entities. */
    sessionKey: z.string().trim().min(1).max(512).optional(),
    agentId,
  })
  .strict();

export const editEntityBody = z
  .object({
    name: entityName.optional(),
    kind: z.string().trim().min(1).max(64).optional(),
    description: z.string().trim().max(2000).optional(),
    active: z.boolean().optional(),
    agentId,
  })
  .strict();

export const inheritedQuery = z.object({
  /** Preview the block a child of this type would get (its profile chosen as for a real child). */
  agentType: z.string().trim().max(128).optional(),
  /** Preview one profile, whatever the type. */
  profile: z.enum(INHERIT_PROFILES).optional(),
  /** The admin: the agent the child would be written for (its parent is that agent's row); an agent token: another agent it reads. */
  agentId: agentQuery,
});

export const editConstraintBody = z
  .object({ content: z.string().trim().min(1).max(2000).optional(), active: z.boolean().optional(), importance: z.number().min(0).max(1).optional(), agentId })
  .strict();

// --- Responses. Top-level objects are open (.loose()): a newer server may add fields.

const nullableString = z.string().nullable();
const constraintView = z
  .object({
    id: z.number(),
    agentId: z.string(),
    entity: z.string(),
    content: z.string(),
    importance: z.number(),
    active: z.boolean(),
    sessionKey: nullableString,
    createdAt: z.string(),
    origin: z.object({ kind: z.enum(['extracted', 'hand']).nullable(), seq: z.number().nullable(), role: nullableString }),
  })
  .loose();
const entityView = z
  .object({
    id: z.number(),
    agentId: z.string(),
    name: z.string(),
    kind: z.string(),
    description: nullableString,
    active: z.boolean(),
    constraints: z.number(),
    createdAt: z.string(),
    updatedAt: nullableString,
    focus: z.object({ origin: nullableString, seq: z.number().nullable(), importance: z.number() }).optional(),
  })
  .loose();
const executionMode = z.enum(['SYNC', 'ASYNC_POLL', 'ASYNC_CALLBACK']);

/** A session as every client sees it (GET /api/sessions/:key, lists, the tree): the record and its claim's expiry. */
export const sessionView = sessionRecordSchema.extend({ expiresAt: nullableString }).loose();

export interface TreeNodeView extends z.infer<typeof sessionView> {
  children: TreeNodeView[];
}
const treeNode: z.ZodType<TreeNodeView> = z.lazy(() => sessionView.extend({ children: z.array(treeNode) }).loose()) as z.ZodType<TreeNodeView>;

const inheritSections = z
  .object({
    header: z.string(),
    checkpoint: nullableString,
    recentContext: nullableString,
    focalEntities: z.array(z.string()),
    constraints: z.array(z.string()),
  })
  .loose();

export const runView = z.object({
  id: z.string(),
  agentId: z.string(),
  sessionKey: nullableString,
  parentSessionKey: nullableString,
  runner: z.string(),
  status: z.enum(['pending', 'running', 'completed', 'failed']),
  executionMode,
  context: z.object({
    workspacePath: z.string().optional(),
    specId: z.string().optional(),
    prompt: z.string().optional(),
    files: z.array(z.string()).optional(),
  }),
  resultContent: nullableString,
  inputTokens: z.number().nullable(),
  outputTokens: z.number().nullable(),
  durationMs: z.number().nullable(),
  error: nullableString,
  callbackDeliveredAt: nullableString,
  createdAt: z.string(),
  startedAt: nullableString,
  finishedAt: nullableString,
  updatedAt: z.string(),
});

const hitView = z
  .object({
    sessionKey: z.string(),
    title: nullableString,
    project: nullableString,
    updatedAt: z.string(),
    excerpt: z.string(),
    rank: z.number(),
    harness: z.string(),
    parentSessionKey: nullableString,
    turnSeq: z.number(),
    /** Whose session of the key the hit is in (keys are per agent). */
    agentId: z.string().optional(),
  })
  .loose();

const bypassedReply = { bypassed: z.literal(true).optional(), inject: z.string().optional(), sessionKey: z.string().optional() };

const memoryHit = z.object({ id: z.string(), content: z.string() }).loose();

/** For every route of routes.ts: what its body and query must be, and what it answers. */
export const SCHEMAS = {
  health: { response: z.object({ status: z.literal('ok') }) },
  sessionStart: {
    body: sessionStartBody,
    response: z
      .object({
        sessionKey: z.string(),
        agentId: z.string(),
        parentSessionKey: nullableString.optional(),
        lineageSource: nullableString.optional(),
        skipped: z.boolean().optional(),
        bypassed: z.boolean().optional(),
        inject: z.string(),
        inherited: z.object({ chars: z.number(), estimatedTokens: z.number(), sections: inheritSections }).loose().nullable().optional(),
        memories: z.array(z.unknown()).optional(),
      })
      .loose(),
  },
  userPromptSubmit: {
    body: promptSubmitBody,
    response: z
      .object({
        inject: z.string(),
        sessionKey: z.string(),
        appended: z.number().optional(),
        turnCount: z.number().optional(),
        transcriptCursor: transcriptCursorReply,
        bypassed: z.literal(true).optional(),
      })
      .loose(),
  },
  sessionEnd: {
    body: sessionEndBody,
    response: z
      .object({
        success: z.boolean().optional(),
        appended: z.number().optional(),
        turnCount: z.number().optional(),
        transcriptCursor: transcriptCursorReply,
        ...bypassedReply,
        sessionKey: z.string(),
        /** The session's artifacts, relative to the data directory (docs/memory.md, "Session artifacts"). */
        transcript_path: z.string().optional(),
        manifest_path: z.string().optional(),
        turn_count: z.number().optional(),
        /** The job writing the session's --summary.md: GET /api/jobs/:id. */
        summaryJobId: z.string().nullable().optional(),
      })
      .loose(),
  },
  remember: {
    body: rememberBody,
    response: z.object({ success: z.boolean(), memoryId: z.string().optional(), id: z.string().optional(), ...bypassedReply }).loose(),
  },
  recall: {
    body: recallBody,
    response: z
      .object({
        results: z.array(memoryHit),
        memories: z.array(memoryHit),
        count: z.number(),
        query: z.string(),
        method: z.string(),
        message: z.string(),
        meta: z.object({ totalReturned: z.number(), hasSupplementary: z.boolean(), noHits: z.boolean() }),
        aggregate: z
          .object({
            budget: z.enum(['small', 'medium', 'large']),
            maxChars: z.number(),
            chars: z.number(),
            estimatedTokens: z.number(),
            included: z.number(),
            omitted: z.number(),
            text: z.string(),
          })
          .optional(),
        aggregateMemoryId: z.string().optional(),
        contextEpoch: z.number().optional(),
        bypassed: z.boolean().optional(),
        internal: z.boolean().optional(),
      })
      .loose(),
  },
  preCompaction: { body: preCompactionBody, response: z.object({ guidelines: z.string(), summaryPrompt: z.string().optional(), ...bypassedReply }).loose() },
  compactionComplete: {
    body: compactionCompleteBody,
    response: z
      .object({
        success: z.boolean(),
        memoryId: z.string().optional(),
        summaryId: z.string().optional(),
        contextEpoch: z.number().optional(),
        /** The compaction's markdown, relative to the data directory. */
        compaction_path: z.string().optional(),
        ...bypassedReply,
      })
      .loose(),
  },
  checkpointExtract: {
    body: checkpointExtractBody,
    response: z
      .object({ skipped: z.boolean().optional(), bypassed: z.boolean().optional(), queued: z.boolean().optional(), jobId: z.string().optional() })
      .loose(),
  },
  transcriptCursor: {
    body: transcriptCursorBody,
    response: z.object({ offset: z.number(), tailMark: z.string() }),
  },
  synthesisConfig: { response: z.object({ enabled: z.boolean(), model: z.string(), schedule: z.string() }).loose() },
  synthesis: {
    body: synthesisBody,
    response: z
      .object({
        prompt: z.string(),
        model: z.string(),
        indexBlock: z.string(),
        leaseId: z.string(),
        leaseExpiresAt: z.string(),
        agentId: z.string(),
        sessionKey: nullableString,
      })
      .loose(),
  },
  synthesisComplete: { body: synthesisCompleteBody, response: z.object({ success: z.boolean(), path: z.string() }).loose() },
  claudeCodeHook: { body: claudeCodeHookBody, response: z.record(z.string(), z.unknown()) },
  listSessions: { query: listSessionsQuery, response: z.object({ sessions: z.array(sessionView), count: z.number(), total: z.number() }).loose() },
  sessionTree: { query: projectQuery, response: z.object({ roots: z.array(treeNode), count: z.number() }).loose() },
  summaries: {
    query: summariesQuery,
    response: z
      .object({
        summaries: z.array(
          z
            .object({
              id: z.string(),
              kind: z.string(),
              depth: z.number(),
              source_type: nullableString,
              source_ref: nullableString,
              meta_json: nullableString,
              created_at: z.string(),
            })
            .loose(),
        ),
      })
      .loose(),
  },
  expandSummary: { body: expandBody, response: z.object({ node: z.unknown() }).loose() },
  search: {
    body: searchBody,
    response: z.object({ query: z.string(), hits: z.array(hitView), count: z.number(), searchedSession: z.string().optional() }).loose(),
  },
  getSession: { query: sessionReadQuery, response: sessionView },
  transcript: { query: sessionReadQuery, response: z.object({ sessionKey: z.string(), agentId: z.string(), content: z.string() }).loose() },
  turns: {
    query: turnsQuery,
    response: z
      .object({
        sessionKey: z.string(),
        total: z.number(),
        turns: z.array(z.object({ seq: z.number(), role: z.enum(['user', 'assistant', 'tool', 'system']), text: z.string(), at: nullableString })),
      })
      .loose(),
  },
  inherited: {
    query: inheritedQuery,
    response: z
      .object({
        sessionKey: z.string(),
        block: z.string(),
        empty: z.boolean(),
        sections: inheritSections.nullable(),
        /** Each active constraint of the block with where it came from ("user, turn 12", "added by hand"). */
        constraintOrigins: z.array(z.object({ text: z.string(), origin: z.string() })),
        profile: z.object({ name: z.enum(INHERIT_PROFILES), maxTokens: z.number(), reason: z.string(), agentType: nullableString }),
        /** The configured agent types and their profiles, for a picker. */
        profiles: z.object({ defaultProfile: z.enum(INHERIT_PROFILES), byAgentType: z.record(z.string(), z.enum(INHERIT_PROFILES)) }),
        chars: z.number(),
        estimatedTokens: z.number(),
        budget: z
          .object({ maxTokens: z.number(), usedTokens: z.number(), cut: z.array(z.string()) })
          .nullable()
          .optional(),
        settings: z.object({ inheritContext: z.boolean(), tailChars: z.number(), maxTokens: z.number().optional() }),
        parentUpdatedAt: z.string(),
      })
      .loose(),
  },
  subagents: {
    query: sessionReadQuery,
    response: z
      .object({
        sessionKey: z.string(),
        children: z.array(
          z.object({
            sessionKey: nullableString,
            runId: nullableString,
            type: nullableString,
            task: nullableString,
            status: z.string(),
            result: nullableString,
            at: z.string(),
          }),
        ),
        count: z.number(),
        text: z.string(),
      })
      .loose(),
  },
  archiveTurns: {
    body: archiveTurnsBody,
    response: z.object({
      sessionKey: z.string(),
      holderKey: z.string(),
      from: z.number(),
      to: z.number(),
      archived: z.number(),
      marker: z.string(),
    }),
  },
  bypass: { body: bypassBody, response: z.object({ key: z.string(), bypassed: z.boolean() }) },
  upsertRun: { body: runBody, response: runView },
  spawnRun: { body: spawnRunBody, response: runView },
  listRuns: { query: listRunsQuery, response: z.object({ runs: z.array(runView), count: z.number() }).loose() },
  getRun: { response: runView },
  getJob: {
    response: z
      .object({
        id: z.string(),
        kind: z.string(),
        status: z.enum(['pending', 'running', 'completed', 'failed']),
        agentId: z.string(),
        sessionKey: nullableString,
        result: z.unknown(),
        error: nullableString,
        attempts: z.number(),
        createdAt: z.string(),
        startedAt: nullableString,
        finishedAt: nullableString,
      })
      .loose(),
  },
  listConstraints: { query: listConstraintsQuery, response: z.object({ constraints: z.array(constraintView), count: z.number() }).loose() },
  addConstraint: { body: addConstraintBody, response: constraintView },
  editConstraint: { body: editConstraintBody, response: constraintView },
  listEntities: { query: listEntitiesQuery, response: z.object({ entities: z.array(entityView), count: z.number() }).loose() },
  addEntity: { body: addEntityBody, response: entityView },
  editEntity: { body: editEntityBody, response: entityView },
  deliverRuns: { body: deliverBody, response: z.object({ runs: z.array(runView), count: z.number() }).loose() },
  createToken: {
    body: tokenBody,
    response: z
      .object({
        id: z.string(),
        token: z.string(),
        agentId: z.string(),
        permissions: z.array(z.string()),
        readPolicy: z.enum(['shared', 'isolated']).nullable(),
      })
      .loose(),
  },
  revokeToken: { response: z.object({ ok: z.literal(true) }) },
  recovery: {
    response: z
      .object({
        events: z.array(z.object({ kind: z.string(), message: z.string(), file: z.string().optional() })),
        /** The database file against its size limit (docs/storage.md, "How big a store can grow"). */
        storage: z
          .object({
            fileBytes: z.number(),
            usedBytes: z.number(),
            limitBytes: z.number(),
            warnBytes: z.number(),
            state: z.enum(['ok', 'warning', 'full']),
            message: z.string().nullable(),
          })
          .nullable()
          .optional(),
      })
      .loose(),
  },
} satisfies Record<RouteId, { body?: z.ZodType; query?: z.ZodType; response: z.ZodType }>;

export type Schemas = typeof SCHEMAS;
type Field<K extends RouteId, F extends string> = Schemas[K] extends Record<F, infer T extends z.ZodType> ? T : never;
/** What a client sends as the body of route K (before defaults). */
export type BodyIn<K extends RouteId> = z.input<Field<K, 'body'>>;
/** The body as the server's handler receives it (parsed). */
export type BodyOf<K extends RouteId> = z.output<Field<K, 'body'>>;
export type QueryIn<K extends RouteId> = z.input<Field<K, 'query'>>;
export type QueryOf<K extends RouteId> = z.output<Field<K, 'query'>>;
export type ResponseOf<K extends RouteId> = z.output<Schemas[K]['response']>;
