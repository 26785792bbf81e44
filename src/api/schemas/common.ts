// The building blocks the schemas of every domain share: the session key's rules, the common
// fields, the query-string parsers and the body parser that names the failing field.

import { z } from 'zod';
import { BatonError } from '../../core/errors';
import { stripSessionPrefix } from '../../core/sessionKey';

/**
 * A session key. Every stored session must be readable back as /api/sessions/<key>, so:
 * - not "." or ".." (nor "session:." / "session:.."): URL normalisation removes those path
 *   segments, even percent-encoded, so no request could ever name such a session;
 * - no lone UTF-16 surrogates: they have no UTF-8 form, so the store could not keep the key as
 *   given and would answer with a different one. Rejected (400), never silently replaced.
 * This is the key as given: Claude Code's session_id and the run routes keep it verbatim.
 */
export const givenKey = z
  .string()
  .trim()
  .min(1)
  .max(512)
  .refine((k) => !['', '.', '..'].includes(stripSessionPrefix(k)), 'must not be "." or ".." (such a key could never be read back as /api/sessions/<key>)')
  .refine((k) => !/\p{Cs}/u.test(k), 'must be well-formed Unicode (no lone surrogates)');
/**
 * A session key as the store keeps it: `session:<key>` (the sessions & hooks API's form) arrives
 * in the handler as `<key>`, so nothing downstream strips the prefix again (docs/architecture.md).
 */
export const key = givenKey.transform(stripSessionPrefix);
export const optionalKey = key.optional();
export const optionalGivenKey = givenKey.optional();
/** The session a constraint or entity body names: trimmed and stripped of its prefix, no other rule (as before). */
export const ruleSessionKey = z.string().trim().min(1).max(512).transform(stripSessionPrefix).optional();
/**
 * A count a body may ask for, clamped into [min, max] (a fraction rounded toward zero) once, here:
 * asking for too many gets the most there is, never a 400. Absent stays absent (the service's default).
 */
export function clampedLimit(count: z.ZodNumber, min: number, max: number) {
  return count.optional().transform((n) => (n === undefined ? undefined : Math.max(min, Math.min(Math.trunc(n), max))));
}
export const text = z.string().max(10_000_000);
export const harness = z.string().trim().min(1).max(64);
export const runtimePath = z.string().trim().min(1).max(64).optional();
export const agentId = z.string().trim().min(1).max(128).optional();
export const project = z.string().max(4096).optional();
export const inlineTranscript = z.union([z.string().max(10_000_000), z.array(z.unknown()), z.record(z.string(), z.unknown())]).optional();

export function parseBody<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue.path.length ? issue.path.join('.') : 'body';
  const problem = issue.code === 'invalid_type' && issue.message.includes('received undefined') ? 'is required' : issue.message;
  throw new BatonError('invalid_request', `${field}: ${problem}`);
}

// --- Query strings: every value arrives as a string.

/** A whole number within bounds, else 400 naming the parameter. */
export const intQuery = (fallback: number, min: number, max: number) =>
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
export const flagQuery = z
  .string()
  .optional()
  .transform((v) => v === '1' || v === 'true');
export const textQuery = z.string().max(4096).optional();
/**
 * Whose row of the key a read means (keys are per agent, docs/security.md "Reads by key name the
 * agent"): the admin reads that agent's row; an agent token may name only an agent it reads (else
 * 404). Without it: the caller's own row, else the newest it may read.
 */
export const agentQuery = z.string().trim().min(1).max(128).optional();

export const nullableString = z.string().nullable();
export const executionMode = z.enum(['SYNC', 'ASYNC_POLL', 'ASYNC_CALLBACK']);

export const bypassedReply = { bypassed: z.literal(true).optional(), inject: z.string().optional(), sessionKey: z.string().optional() };
