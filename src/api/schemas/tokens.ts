// The token routes: creating and revoking agent tokens.

import { z } from 'zod';

export const tokenBody = z
  .object({
    agentId: z.string().trim().min(1).max(128),
    permissions: z.array(z.enum(['remember', 'recall', 'admin', 'hooks'])).min(1),
    /** A secret to keep when it is still a live token of this agent with exactly these permissions (a repeated install changes nothing). */
    reuse: z.string().min(1).max(200).optional(),
    readPolicy: z.enum(['shared', 'isolated']).optional(),
    label: z.string().max(200).optional(),
  })
  .loose();

/** The token routes of routes.ts. */
export const TOKEN_SCHEMAS = {
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
};
