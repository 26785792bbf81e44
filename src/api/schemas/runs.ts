// The run routes: recording, spawning, listing and delivering sub-agent runs.

import { z } from 'zod';
import { agentId, executionMode, intQuery, key, nullableString, optionalGivenKey, textQuery } from './common';

export const runBody = z
  .object({
    id: z.string().min(1).max(64).optional(),
    runner: z.string().trim().min(1).max(64).optional(),
    status: z.enum(['pending', 'running', 'completed', 'failed']).optional(),
    executionMode: z.enum(['SYNC', 'ASYNC_POLL', 'ASYNC_CALLBACK']).optional(),
    sessionKey: optionalGivenKey,
    parentSessionKey: optionalGivenKey,
    workspacePath: z.string().max(4096).optional(),
    specId: z.string().max(256).optional(),
    prompt: z.string().max(1_000_000).optional(),
    files: z.array(z.string().max(4096)).max(1000).optional(),
    /** The tools granted to a language-model child at spawn (docs/runs.md, "Tools of a sub-agent"). */
    tools: z.array(z.string().min(1).max(128)).max(64).optional(),
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
    parentSessionKey: optionalGivenKey,
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

export const listRunsQuery = z.object({
  runner: textQuery,
  status: textQuery,
  since: textQuery,
  specId: textQuery,
  parent: textQuery,
  limit: intQuery(100, 1, 1000),
});

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
    tools: z.array(z.string()).optional(),
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

/** The run routes of routes.ts. */
export const RUN_SCHEMAS = {
  upsertRun: { body: runBody, response: runView },
  spawnRun: { body: spawnRunBody, response: runView },
  listRuns: { query: listRunsQuery, response: z.object({ runs: z.array(runView), count: z.number() }).loose() },
  getRun: { response: runView },
  deliverRuns: { body: deliverBody, response: z.object({ runs: z.array(runView), count: z.number() }).loose() },
};
