// The rule routes: an agent's constraints and the entities they are about.

import { z } from 'zod';
import { agentId, agentQuery, intQuery, nullableString, ruleSessionKey, textQuery } from './common';

/** `all=1` (or `true`): inactive rows too, folded to a boolean here so no handler reads the string. */
const includeInactive = textQuery.transform((v) => v === '1' || v === 'true');

export const listConstraintsQuery = z.object({ sessionKey: textQuery, agentId: agentQuery, all: includeInactive, limit: intQuery(200, 1, 1000) });

export const addConstraintBody = z
  .object({
    content: z.string().trim().min(1).max(2000),
    sessionKey: ruleSessionKey,
    entity: z.string().trim().min(1).max(256).optional(),
    importance: z.number().min(0).max(1).optional(),
    agentId,
  })
  .strict();

export const listEntitiesQuery = listConstraintsQuery;

const entityName = z.string().trim().min(1).max(256);
/** Other names a prompt may call the entity by, matched like its name (docs/memory.md); on edit, the whole new list. */
const entityAliases = z.array(entityName).max(32).optional();
export const addEntityBody = z
  .object({
    name: entityName,
    kind: z.string().trim().min(1).max(64).optional(),
    description: z.string().trim().max(2000).optional(),
    aliases: entityAliases,
    /** Keeps the entity in this session's focus: a child of the session sees it among the focal entities. */
    sessionKey: ruleSessionKey,
    agentId,
  })
  .strict();

export const editEntityBody = z
  .object({
    name: entityName.optional(),
    kind: z.string().trim().min(1).max(64).optional(),
    description: z.string().trim().max(2000).optional(),
    aliases: entityAliases,
    active: z.boolean().optional(),
    agentId,
  })
  .strict();

export const editConstraintBody = z
  .object({ content: z.string().trim().min(1).max(2000).optional(), active: z.boolean().optional(), importance: z.number().min(0).max(1).optional(), agentId })
  .strict();

const constraintView = z
  .object({
    id: z.number(),
    agentId: z.string(),
    entity: z.string(),
    content: z.string(),
    importance: z.number(),
    active: z.boolean(),
    sessionKey: nullableString,
    createdAt: z.string(),
    origin: z.object({ kind: z.enum(['extracted', 'hand']).nullable(), seq: z.number().nullable(), role: nullableString }),
  })
  .loose();
const entityView = z
  .object({
    id: z.number(),
    agentId: z.string(),
    name: z.string(),
    kind: z.string(),
    description: nullableString,
    aliases: z.array(z.string()),
    active: z.boolean(),
    constraints: z.number(),
    createdAt: z.string(),
    updatedAt: nullableString,
    focus: z.object({ origin: nullableString, seq: z.number().nullable(), importance: z.number() }).optional(),
  })
  .loose();

/** The constraint and entity routes of routes.ts. */
export const RULE_SCHEMAS = {
  listConstraints: { query: listConstraintsQuery, response: z.object({ constraints: z.array(constraintView), count: z.number() }).loose() },
  addConstraint: { body: addConstraintBody, response: constraintView },
  editConstraint: { body: editConstraintBody, response: constraintView },
  listEntities: { query: listEntitiesQuery, response: z.object({ entities: z.array(entityView), count: z.number() }).loose() },
  addEntity: { body: addEntityBody, response: entityView },
  editEntity: { body: editEntityBody, response: entityView },
};
