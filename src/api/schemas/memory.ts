// The memory routes: remember and recall, synthesis, summaries and search.

import { z } from 'zod';
import { agentId, clampedLimit, bypassedReply, harness, intQuery, nullableString, optionalKey, project, runtimePath, textQuery, agentQuery } from './common';

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
    /** Clamped into 1..50; without it 10 (25 for an aggregate). */
    limit: clampedLimit(z.number().int(), 1, 50),
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

/**
 * The general recall (POST /api/memory/recall): the hook recall's query, session, agent and project
 * fields, held strictly since no hook has to be kept going: a blank query or a limit outside 1..50
 * is a 400, not an empty answer or a clamp.
 */
export const memoryRecallBody = recallBody
  .pick({ query: true, sessionKey: true, agentId: true, project: true })
  .extend({
    query: recallBody.shape.query.refine((q) => q.trim().length > 0, 'must not be empty'),
    limit: z.number().int().min(1).max(50).optional(),
  })
  .loose();

export const synthesisBody = z.object({ agentId, sessionKey: optionalKey, leaseId: z.string().max(64).optional() }).loose();
export const synthesisCompleteBody = z
  .object({ content: z.string().min(1).max(5_000_000), agentId, sessionKey: optionalKey, leaseId: z.string().max(64).optional() })
  .loose();

export const searchBody = z
  .object({ query: z.string().max(10_000), sessionKey: optionalKey, currentSessionKey: optionalKey, agentId, project, limit: clampedLimit(z.number(), 1, 20) })
  .loose();

export const expandBody = z
  .object({ id: z.string().min(1).max(128), includeTranscript: z.boolean().optional(), transcriptCharLimit: z.number().int().min(1).max(100_000).optional() })
  .loose();

export const summariesQuery = z.object({ sessionKey: textQuery, agentId: agentQuery, limit: intQuery(100, 1, 1000) });

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

const memoryHit = z.object({ id: z.string(), content: z.string() }).loose();

/** What a recall answers, through either door. */
const recallResponse = z
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
  .loose();

/** The memory routes of routes.ts. */
export const MEMORY_SCHEMAS = {
  remember: {
    body: rememberBody,
    response: z.object({ success: z.boolean(), memoryId: z.string().optional(), id: z.string().optional(), ...bypassedReply }).loose(),
  },
  recall: { body: recallBody, response: recallResponse },
  memoryRecall: { body: memoryRecallBody, response: recallResponse },
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
};
