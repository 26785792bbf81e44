// The hook routes: a harness's session start, prompts, end, compaction and checkpoint events,
// and Claude Code's own HTTP hook payload.

import { z } from 'zod';
import { agentId, bypassedReply, givenKey, harness, inlineTranscript, key, nullableString, optionalKey, project, runtimePath, text } from './common';
import { inheritSections } from './sessions';

/**
 * Bytes of a transcript file the hook read itself because the server may not open it
 * (docs/security.md, "Transcripts outside the roots"): base64 `data` from `offset`, continuing
 * what `transcript-cursor` named (its `tailMark`), or from 0.
 */
export const transcriptChunk = z
  .object({
    path: z.string().min(1).max(4096),
    offset: z.number().int().min(0),
    data: z.string().max(12_000_000),
    tailMark: z.string().max(64),
    eof: z.boolean(),
  })
  .optional();

/** A memory told to a session at its start: of its project (`project`), or the agent's of no project (`agent`). */
const startMemory = z
  .object({
    id: z.string(),
    content: z.string(),
    type: nullableString,
    tags: nullableString,
    project: nullableString,
    sessionKey: nullableString,
    importance: z.number(),
    createdAt: z.string(),
    scope: z.enum(['project', 'agent']),
  })
  .loose();

/** `sessionId` is an alias of `sessionKey`: the handler sees only `sessionKey`. */
function withSessionKey<T extends { sessionKey?: string; sessionId?: string }>({ sessionId, ...body }: T): Without<T, 'sessionId'> {
  // The rest type of a generic loose object is not provably the mapped type, though it is.
  return { ...body, sessionKey: body.sessionKey ?? sessionId } as unknown as Without<T, 'sessionId'>;
}

/** T without the named fields (keeping a loose object's index signature, which Omit would collapse). */
type Without<T, K extends string> = { [P in keyof T as P extends K ? never : P]: T[P] };

/** The longest task a session-start takes: the opening of a longer one is enough to choose the parent's turns by. */
export const MAX_TASK_CHARS = 20_000;

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
    /** false: the caller does not hand this reply's inject to the model, so no memories are taken for it (docs/memory.md). */
    injectMemories: z.boolean().optional(),
    /**
     * What the host does with context answered to a sub-agent started again under the same id (a
     * resume): `discarded` (Claude Code) gets none. Absent: a block each time (docs/inheritance.md).
     */
    resumeContext: z.enum(['discarded']).optional(),
    /** A sub-agent's task (what the parent asked of it): its inherited block holds the parent's turns that fit it (docs/inheritance.md). */
    task: z.string().max(MAX_TASK_CHARS).optional(),
  })
  .loose()
  .transform(({ parentKey, parentId, parentID, ...body }) => ({
    ...withSessionKey(body),
    // The explicit parent's aliases, in order of preference, become the one canonical field.
    parentSessionKey: body.parentSessionKey ?? parentKey ?? parentId ?? parentID,
  }));

/** `transcript` holds only the messages after this point of the session's list: the `transcriptCursor` of the last reply. */
export const transcriptFrom = z.object({ messages: z.number().int().min(1), mark: z.string().max(64) }).optional();

/** Where the session's inline message lists stopped: send `transcriptFrom` with it and only the messages after it next time. */
export const transcriptCursorReply = z.object({ messages: z.number(), mark: z.string() }).optional();

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
  .loose()
  .transform(withSessionKey);

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
    /**
     * Answer once the end is stored, and do the work after it (rules, memories, artifacts) as a
     * background job queued with the end: what a hook the harness waits on asks for.
     */
    background: z.boolean().optional(),
    project,
    agentId,
  })
  .loose()
  .transform(withSessionKey);

/**
 * A spawn call seen before its sub-agent starts (docs/inheritance.md, "The child's task"):
 * `sessionKey` is the spawner, `rootKey` the session the harness will report the start under.
 */
export const subagentSpawnBody = z
  .object({
    harness,
    agentId,
    sessionKey: key,
    rootKey: optionalKey,
    toolUseId: z.string().min(1).max(256),
    agentType: z.string().max(256).optional(),
    task: z.string().max(200_000).optional(),
    /** The child starts with a copy of the spawner's history: it inherits with the `fork` profile. */
    fork: z.boolean().optional(),
    spawningText: z.string().max(200_000).optional(),
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

/** Events whose payload must name the sub-agent (agent_id). */
const SUBAGENT_EVENTS = new Set(['SubagentStart', 'SubagentStop']);

/**
 * Claude Code's hook payload (POST /api/hooks/claude-code), as the hook command receives it
 * on stdin. session_id becomes a session key (and, with agent_id, a sub-agent's key), so it obeys
 * the key rules above.
 */
export const claudeCodeHookBody = z
  .object({
    hook_event_name: z.string().trim().min(1).max(64),
    session_id: givenKey,
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

/**
 * A harness's raw hook payload (POST /api/hooks/:harness): a JSON object, checked further by the
 * harness's own schema where it has one (Harness.hookBody), then by its hook mapping.
 */
export const harnessHookPayload = z.record(z.string(), z.unknown());

/** The hook routes of routes.ts. */
export const HOOK_SCHEMAS = {
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
        /** The memories told at this start, also in `inject` (docs/memory.md, "At session start"). */
        memories: z.array(startMemory).optional(),
        /** The context epoch they were ledgered in (recall's ledger). */
        contextEpoch: z.number().optional(),
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
        /** With `background`: the job doing the work after the end (GET /api/jobs/:id). */
        follow_up_job_id: z.string().optional(),
        /** The job writing the session's --summary.md: GET /api/jobs/:id. */
        summaryJobId: z.string().nullable().optional(),
      })
      .loose(),
  },
  subagentSpawn: { body: subagentSpawnBody, response: z.object({ recorded: z.boolean(), waitedMs: z.number() }).loose() },
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
  harnessHook: { body: harnessHookPayload, response: z.record(z.string(), z.unknown()) },
};
