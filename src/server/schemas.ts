// Request bodies, validated with zod. Unknown fields are allowed (harness payloads carry extras);
// known fields must have the right type, and errors name the field.

import { z } from 'zod';
import { BatonError } from '../core/errors';
import { stripSessionPrefix } from '../store/queries';

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
  .object({ harness, content: z.string().trim().min(1).max(100_000), sessionKey: optionalKey, runtimePath, agentId, project, type: z.string().max(64).optional(), tags: z.string().max(1000).optional(), who: z.string().max(128).optional(), importance: z.number().min(0).max(1).optional() })
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
    aggregateBudget: z.string().max(32).optional(),
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
  .object({ harness, sessionKey: key, agentId, project, transcriptPath: z.string().max(4096).optional(), transcript: inlineTranscript, runtimePath })
  .loose();

export const synthesisBody = z.object({ agentId, sessionKey: optionalKey }).loose();
export const synthesisCompleteBody = z.object({ content: z.string().min(1).max(5_000_000), agentId, sessionKey: optionalKey, leaseId: z.string().max(64).optional() }).loose();

export const searchBody = z
  .object({ query: z.string().max(10_000), sessionKey: optionalKey, currentSessionKey: optionalKey, agentId, project, limit: z.number().optional() })
  .loose();

export const expandBody = z.object({ id: z.string().min(1).max(128), includeTranscript: z.boolean().optional(), transcriptCharLimit: z.number().int().min(1).max(100_000).optional() }).loose();

export const bypassBody = z.object({ enabled: z.boolean() }).loose();

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
    if (SUBAGENT_EVENTS.has(body.hook_event_name) && !body.agent_id?.trim()) ctx.addIssue({ code: 'custom', path: ['agent_id'], message: `is required for ${body.hook_event_name}` });
    if (body.agent_id !== undefined && /\p{Cs}/u.test(body.agent_id)) ctx.addIssue({ code: 'custom', path: ['agent_id'], message: 'must be well-formed Unicode (no lone surrogates)' });
  });
