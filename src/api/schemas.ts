// The schemas of Baton's HTTP API, per route id of routes.ts: request body, query and response
// (zod). Request bodies allow unknown fields (harness payloads carry extras); known fields must
// have the right type, and errors name the field. The server validates every request against
// them; the typed client derives its types from them; docs/api.md is generated from them. The route
// table is assembled here from one file per domain under schemas/ (docs/architecture.md).

import type { z } from 'zod';
import { HOOK_SCHEMAS } from './schemas/hooks';
import { MEMORY_SCHEMAS } from './schemas/memory';
import { RULE_SCHEMAS } from './schemas/rules';
import { RUN_SCHEMAS } from './schemas/runs';
import { SESSION_SCHEMAS } from './schemas/sessions';
import { SYSTEM_SCHEMAS } from './schemas/system';
import { TOKEN_SCHEMAS } from './schemas/tokens';
import type { RouteId } from './routes';

export { parseBody } from './schemas/common';
export * from './schemas/hooks';
export * from './schemas/memory';
export * from './schemas/rules';
export * from './schemas/runs';
export * from './schemas/sessions';
export * from './schemas/tokens';

/** For every route of routes.ts: what its body and query must be, and what it answers. */
export const SCHEMAS = {
  ...SYSTEM_SCHEMAS,
  ...HOOK_SCHEMAS,
  ...MEMORY_SCHEMAS,
  ...SESSION_SCHEMAS,
  ...RUN_SCHEMAS,
  ...RULE_SCHEMAS,
  ...TOKEN_SCHEMAS,
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
