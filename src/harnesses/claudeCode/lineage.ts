// Claude Code's lineage signals (docs/harnesses.md): SubagentStart carries the parent's session_id
// (the hook mapping sends it as the explicit parent); a sub-agent's agent-<id>.meta.json names its
// spawner (`parentAgentId`), sent at SubagentStop; a sub-agent that arrives with only its agent id
// falls back to the most recent session of the same project. Pure.

import type { HarnessLineage } from '../../core/lineage';

export const claudeCodeLineage: HarnessLineage = {
  decide: (input) => (input.harnessAgentId ? { kind: 'recency' } : null),
  reparentSource: 'claude-code-subagent',
};
