// Which rows a write may touch: the one rule every write command goes through
// (docs/security.md, "Sessions belong to their agent").
//
// Keys are per agent: agent A's session "k" and agent B's session "k" are two sessions. A write
// acts for one agent (an agent token's own, or the one the admin token names, else the default
// agent) and touches exactly that agent's row of the key; when it has none, the write creates
// one. Another agent's row of the same key is never changed or taken over by a write, whatever
// either agent's read policy: reading a shared agent's session never means writing into it.
// Runs have ids of their own, not keys: a run is changed only by its agent or by the admin.

import type { Database } from 'sql.js';
import { DEFAULT_AGENT } from '../core/agents';
import { BatonError } from '../core/errors';
import { findOwnSessionRow, stripSessionPrefix } from './queries';

export { DEFAULT_AGENT };

/** The one row of `key` that a write acting for `agentId` may touch, if it exists. */
export function writableSessionRow(db: Database, agentId: string | undefined, key: string) {
  return findOwnSessionRow(db, agentId ?? DEFAULT_AGENT, key);
}

export function requireWritableSessionRow(db: Database, agentId: string | undefined, key: string) {
  const row = writableSessionRow(db, agentId, key);
  if (!row) throw new BatonError('not_found', `session ${stripSessionPrefix(key)} not found`);
  return row;
}

/** Whether a write acting for `agentId` (or by the admin, `anyAgent`) may change a run owned by `owner`. */
export function mayWriteRun(args: { agentId?: string; anyAgent?: boolean }, owner: string): boolean {
  return args.anyAgent === true || (args.agentId ?? DEFAULT_AGENT) === owner;
}
