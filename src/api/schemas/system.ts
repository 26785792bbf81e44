// The server's own routes: health, background jobs and the store's recovery events.

import { z } from 'zod';
import { nullableString } from './common';

/** The health, job and recovery routes of routes.ts. */
export const SYSTEM_SCHEMAS = {
  health: { response: z.object({ status: z.literal('ok') }) },
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
};
