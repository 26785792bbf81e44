// Codex's lineage signals (docs/harnesses.md): SubagentStart carries the root session_id and the
// child's own rollout, whose session_meta names the spawning thread (`parent_thread_id`); the hook
// mapping sends it as the explicit parent, and again at SubagentStop (re-parenting, recorded as
// 'codex-subagent'). No recency fallback. Pure.

import type { HarnessLineage } from '../../core/lineage';

export const codexLineage: HarnessLineage = {
  reparentSource: 'codex-subagent',
};
