// Reads of the rules a sub-agent inherits: constraints (entity attributes of kind `constraint`)
// with where each came from, and entities (focal things a session keeps naming, or added by hand).
// docs/inheritance.md describes both.

import type { Database } from 'sql.js';
import type { Scope } from '../core/agents';
import type { ConstraintSource } from '../core/constraintBudget';
import { stripSessionPrefix } from '../core/sessionKey';
import { all } from './db';
import { scopeSql } from './scopeSql';

export interface ConstraintOrigin {
  /** `extracted` from a turn, `hand` (added through the API, CLI or MCP), or null for rows older than provenance. */
  kind: 'extracted' | 'hand' | null;
  /** The turn a rule was extracted from, and who said it. */
  seq: number | null;
  role: string | null;
}

export type ConstraintView = {
  id: number;
  agentId: string;
  entity: string;
  content: string;
  importance: number;
  active: boolean;
  sessionKey: string | null;
  createdAt: string;
  origin: ConstraintOrigin;
};

interface ConstraintRow {
  id: number;
  agent_id: string;
  entity: string;
  content: string;
  importance: number;
  active: number;
  session_key: string | null;
  created_at: string;
  origin: string | null;
  source_seq: number | null;
  source_role: string | null;
}

const CONSTRAINT_COLUMNS = `a.id, e.agent_id, e.name AS entity, a.content, a.importance, a.active, a.session_key, a.created_at, a.origin, a.source_seq, a.source_role`;

function toConstraint(r: ConstraintRow): ConstraintView {
  return {
    id: r.id,
    agentId: r.agent_id,
    entity: r.entity,
    content: r.content,
    importance: r.importance,
    active: r.active === 1,
    sessionKey: r.session_key,
    createdAt: r.created_at,
    origin: { kind: r.origin === 'extracted' || r.origin === 'hand' ? r.origin : null, seq: r.source_seq, role: r.source_role },
  };
}

/** How the preview names where a rule came from: "user, turn 12", "added by hand", "rule of entity X". */
export function constraintOrigin(c: { origin: ConstraintOrigin; sessionKey: string | null; entity: string }, parentKey: string): string {
  if (c.origin.kind === 'hand') return 'added by hand';
  if (c.sessionKey !== parentKey) return `rule of ${c.entity}`;
  if (c.origin.kind === 'extracted' && c.origin.seq !== null) return `${c.origin.role === 'user' ? 'user' : 'agent'}, turn ${c.origin.seq}`;
  return 'stated in this session';
}

/** Where a rule came from, for the order the inherited block takes rules in (core/constraintBudget.ts). */
export function constraintSource(c: { origin: ConstraintOrigin; sessionKey: string | null }, parentKey: string): ConstraintSource {
  if (c.origin.kind === 'hand') return 'hand';
  if (c.sessionKey !== parentKey) return 'entity';
  return c.origin.kind === 'extracted' && c.origin.role === 'user' ? 'user' : 'agent';
}

/** Active constraints of the given entities (by name) within an agent, most important first. */
export function activeConstraints(db: Database, agentId: string, entityNames: string[]): ConstraintView[] {
  if (entityNames.length === 0) return [];
  return all<ConstraintRow>(
    db,
    `SELECT ${CONSTRAINT_COLUMNS} FROM entity_attributes a JOIN entities e ON e.id = a.entity_id
     WHERE e.agent_id = ? AND e.name IN (${entityNames.map(() => '?').join(', ')}) AND e.active = 1 AND a.kind = 'constraint' AND a.active = 1
     ORDER BY a.importance DESC, a.id`,
    [agentId, ...entityNames],
  ).map(toConstraint);
}

/** Active constraints recorded for a session (stated in it or added by hand), most important first. */
export function sessionConstraints(db: Database, agentId: string, sessionKey: string): ConstraintView[] {
  return all<ConstraintRow>(
    db,
    `SELECT ${CONSTRAINT_COLUMNS} FROM entity_attributes a JOIN entities e ON e.id = a.entity_id
     WHERE e.agent_id = ? AND a.session_key = ? AND a.kind = 'constraint' AND a.active = 1
     ORDER BY a.importance DESC, a.id`,
    [agentId, sessionKey],
  ).map(toConstraint);
}

/** Constraints readable in the scope, newest first; of one session, or inactive ones too, on request. */
export function listConstraints(
  db: Database,
  scope: Scope,
  opts: { sessionKey?: string; agentId?: string; includeInactive?: boolean; limit?: number; id?: number },
): ConstraintView[] {
  const s = scopeSql(scope, 'e.agent_id');
  const where = [s.sql, "a.kind = 'constraint'"];
  const params: Array<string | number> = [...s.params];
  if (opts.sessionKey) {
    where.push('a.session_key = ?');
    params.push(stripSessionPrefix(opts.sessionKey));
  }
  // Only this agent's (keys are per agent: with sessionKey, that agent's session of the key).
  if (opts.agentId !== undefined) {
    where.push('e.agent_id = ?');
    params.push(opts.agentId);
  }
  if (opts.id !== undefined) {
    where.push('a.id = ?');
    params.push(opts.id);
  }
  if (!opts.includeInactive) where.push('a.active = 1');
  return all<ConstraintRow>(
    db,
    `SELECT ${CONSTRAINT_COLUMNS} FROM entity_attributes a JOIN entities e ON e.id = a.entity_id
     WHERE ${where.join(' AND ')} ORDER BY a.id DESC LIMIT ?`,
    [...params, Math.max(1, Math.min(opts.limit ?? 200, 1000))],
  ).map(toConstraint);
}

/** One constraint by id within the scope, inactive ones included. */
export function getConstraint(db: Database, scope: Scope, id: number): ConstraintView | null {
  return listConstraints(db, scope, { id, includeInactive: true, limit: 1 })[0] ?? null;
}

export type EntityView = {
  id: number;
  agentId: string;
  name: string;
  kind: string;
  description: string | null;
  /** Other names a prompt may call it by (docs/memory.md, "Entity context at each prompt"). */
  aliases: string[];
  active: boolean;
  /** Active constraints attached to it. */
  constraints: number;
  createdAt: string;
  updatedAt: string | null;
  /** Listing a session's entities: how it came into that session's focus (first turn named, importance). */
  focus?: { origin: string | null; seq: number | null; importance: number };
};

interface EntityRow {
  id: number;
  agent_id: string;
  name: string;
  kind: string;
  description: string | null;
  aliases: string;
  active: number;
  constraints: number;
  created_at: string;
  updated_at: string | null;
  focus_origin?: string | null;
  focus_seq?: number | null;
  focus_importance?: number | null;
}

const ENTITY_COLUMNS = `e.id, e.agent_id, e.name, e.kind, e.description, e.aliases, e.active, e.created_at, e.updated_at,
  (SELECT COUNT(*) FROM entity_attributes a WHERE a.entity_id = e.id AND a.kind = 'constraint' AND a.active = 1) AS constraints`;

function toEntity(r: EntityRow): EntityView {
  return {
    id: r.id,
    agentId: r.agent_id,
    name: r.name,
    kind: r.kind,
    description: r.description,
    aliases: JSON.parse(r.aliases) as string[],
    active: r.active === 1,
    constraints: r.constraints,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    ...(r.focus_importance !== undefined && r.focus_importance !== null
      ? { focus: { origin: r.focus_origin ?? null, seq: r.focus_seq ?? null, importance: r.focus_importance } }
      : {}),
  };
}

/**
 * Names a session was told to keep in focus by hand (attributes of kind `focus` with its key);
 * inactive entities excluded. Extracted ones are recorded as focus too, for listing, but reach a
 * child through the rolling span's checkpoints, so an entity of long ago does not stay focal.
 */
export function sessionFocus(db: Database, agentId: string, sessionKey: string): string[] {
  return all<{ name: string }>(
    db,
    `SELECT DISTINCT e.name FROM entity_attributes a JOIN entities e ON e.id = a.entity_id
     WHERE e.agent_id = ? AND a.session_key = ? AND a.kind = 'focus' AND a.active = 1 AND e.active = 1 AND (a.origin IS NULL OR a.origin = 'hand') ORDER BY a.id`,
    [agentId, sessionKey],
  ).map((r) => r.name);
}

/** Entities readable in the scope, by name; those in a session's focus only, or inactive ones too, on request. */
export function listEntities(
  db: Database,
  scope: Scope,
  opts: { sessionKey?: string; agentId?: string; includeInactive?: boolean; limit?: number; id?: number },
): EntityView[] {
  const s = scopeSql(scope, 'e.agent_id');
  const key = opts.sessionKey ? stripSessionPrefix(opts.sessionKey) : null;
  const where = [s.sql];
  const params: Array<string | number> = [...s.params];
  if (opts.agentId !== undefined) {
    where.push('e.agent_id = ?');
    params.push(opts.agentId);
  }
  if (key) {
    where.push(`e.id IN (SELECT entity_id FROM entity_attributes WHERE session_key = ? AND kind IN ('focus', 'constraint') AND active = 1)`);
    params.push(key);
  }
  if (opts.id !== undefined) {
    where.push('e.id = ?');
    params.push(opts.id);
  }
  if (!opts.includeInactive) where.push('e.active = 1');
  // A session's listing says how each entity came into its focus: its first focus row there.
  const focus = key
    ? `, f.origin AS focus_origin, f.source_seq AS focus_seq, f.importance AS focus_importance FROM entities e
       LEFT JOIN entity_attributes f ON f.id = (SELECT MIN(x.id) FROM entity_attributes x WHERE x.entity_id = e.id AND x.session_key = ? AND x.kind = 'focus')`
    : ' FROM entities e';
  return all<EntityRow>(db, `SELECT ${ENTITY_COLUMNS}${focus} WHERE ${where.join(' AND ')} ORDER BY e.name LIMIT ?`, [
    ...(key ? [key] : []),
    ...params,
    Math.max(1, Math.min(opts.limit ?? 200, 1000)),
  ]).map(toEntity);
}

export function getEntity(db: Database, scope: Scope, id: number): EntityView | null {
  return listEntities(db, scope, { id, includeInactive: true, limit: 1 })[0] ?? null;
}

/** Names of an agent's deactivated entities: they never become focal again until reactivated. */
export function inactiveEntityNames(db: Database, agentId: string): Set<string> {
  return new Set(all<{ name: string }>(db, 'SELECT name FROM entities WHERE agent_id = ? AND active = 0', [agentId]).map((r) => r.name));
}
