// The read-scope rule in SQL, shared by every read of sessions, memories and rules (docs/security.md).

import type { Scope } from '../core/agents';

/** 'all' for admin callers; otherwise the caller's agent plus every agent whose read policy is shared. */
export function scopeSql(scope: Scope, column = 's.agent_id'): { sql: string; params: string[] } {
  if (scope === 'all') return { sql: '1', params: [] };
  // An isolated reader sees only its own rows; others see their own and the shared agents' rows.
  return {
    sql: `(${column} = ? OR (${column} IN (SELECT id FROM agents WHERE read_policy = 'shared') AND NOT EXISTS (SELECT 1 FROM agents WHERE id = ? AND read_policy = 'isolated')))`,
    params: [scope.agentId, scope.agentId],
  };
}
