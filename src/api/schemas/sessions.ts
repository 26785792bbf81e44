// The session routes: lists, the tree, one session's record, transcript, turns and inherited
// block, its sub-agents, archiving turns and the bypass switch.

import { z } from 'zod';
import { INHERIT_PROFILES } from '../../core/inheritProfiles';
import { sessionRecordSchema } from '../../core/session';
import { spendReportSchema } from '../../core/spendReport';
import { agentId, agentQuery, flagQuery, intQuery, nullableString, optionalKey, textQuery } from './common';

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
export const spendQuery = z.object({
  /** An ISO 8601 time or date: only requests at or after it. */
  since: z
    .string()
    .trim()
    .max(40)
    .refine((v) => !Number.isNaN(Date.parse(v)), 'since: an ISO 8601 date or time (2026-11-01, 2026-11-01T09:00:00Z)')
    .optional(),
  project: textQuery,
  /** How many top sessions (default 10). */
  top: intQuery(10, 1, 1000),
});
export const turnsQuery = z.object({ from: intQuery(1, 1, 1e9), limit: intQuery(200, 1, 2000), agentId: agentQuery });

export const inheritedQuery = z.object({
  /** Preview the block a child of this type would get (its profile chosen as for a real child). */
  agentType: z.string().trim().max(128).optional(),
  /** Preview one profile, whatever the type. */
  profile: z.enum(INHERIT_PROFILES).optional(),
  /** Preview for a child with this task: the parent's turns chosen for it (docs/inheritance.md). */
  task: z.string().trim().max(2_000).optional(),
  /** The admin: the agent the child would be written for (its parent is that agent's row); an agent token: another agent it reads. */
  agentId: agentQuery,
});

/** A session as every client sees it (GET /api/sessions/:key, lists, the tree): the record and its claim's expiry. */
export const sessionView = sessionRecordSchema.extend({ expiresAt: nullableString }).loose();

export interface TreeNodeView extends z.infer<typeof sessionView> {
  children: TreeNodeView[];
}
const treeNode: z.ZodType<TreeNodeView> = z.lazy(() => sessionView.extend({ children: z.array(treeNode) }).loose()) as z.ZodType<TreeNodeView>;

export const inheritSections = z
  .object({
    header: z.string(),
    checkpoint: nullableString,
    recentContext: nullableString,
    focalEntities: z.array(z.string()),
    constraints: z.array(z.string()),
  })
  .loose();

/** The session routes of routes.ts. */
export const SESSION_SCHEMAS = {
  listSessions: { query: listSessionsQuery, response: z.object({ sessions: z.array(sessionView), count: z.number(), total: z.number() }).loose() },
  sessionTree: { query: projectQuery, response: z.object({ roots: z.array(treeNode), count: z.number() }).loose() },
  spend: { query: spendQuery, response: spendReportSchema },
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
        /** With a task: the task, the parent's turns shown and those chosen for their relevance to it. */
        selection: z
          .object({ task: z.string(), turns: z.array(z.number()), relevant: z.array(z.number()) })
          .nullable()
          .optional(),
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
      /** The holder's transcript file, relative to the data directory (absent when it could not be written). */
      transcriptPath: z.string().optional(),
    }),
  },
  bypass: { body: bypassBody, response: z.object({ key: z.string(), bypassed: z.boolean() }) },
};
