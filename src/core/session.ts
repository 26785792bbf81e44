// A session as every layer sees it: the store reads it, the API sends it (with its claim's expiry,
// src/api/schemas.ts), the CLI and VS Code show it. One schema, so a field added here reaches every
// reader, and the type is derived from it (docs/architecture.md, "Adding a session field").

import { z } from 'zod';
import type { LineageSource } from './types';
import { sessionSpendSchema } from './spend';

const nullableString = z.string().nullable();

export const sessionRecordSchema = z.object({
  key: z.string(),
  agentId: z.string(),
  harness: z.string(),
  project: nullableString,
  parentSessionKey: nullableString,
  lineageSource: z.custom<LineageSource>((v) => typeof v === 'string').nullable(),
  harnessAgentId: nullableString,
  harnessAgentType: nullableString,
  /** What a sub-agent was asked to do, from its spawn call; null when the harness did not say. */
  task: nullableString,
  executionMode: z.enum(['SYNC', 'ASYNC_POLL', 'ASYNC_CALLBACK']).nullable(),
  status: z.enum(['active', 'completed', 'failed', 'ended']),
  runtimePath: nullableString,
  claimedAt: nullableString,
  bypassed: z.boolean(),
  title: nullableString,
  createdAt: z.string(),
  updatedAt: z.string(),
  endedAt: nullableString,
  endReason: nullableString,
  turnCount: z.number(),
  charCount: z.number(),
  childCount: z.number(),
  /** Models, tokens and cost: the session's own requests and rolled up over its descendants (core/spend.ts). */
  spend: sessionSpendSchema,
});

export type SessionRecord = z.infer<typeof sessionRecordSchema>;
