// OpenClaw's lineage signal: a sub-agent's session key names its parent (docs/harnesses.md).
// `agent:{id}:subagent:{uuid}` → `agent:{id}:main`. Pure.

import type { HarnessLineage } from '../../core/lineage';

const OPENCLAW_SUBAGENT = /^agent:([^:]+):subagent:([^:]+)$/;

/** `agent:{id}:subagent:{uuid}` → `agent:{id}:main`. */
export function openClawParentKey(key: string): string | null {
  const m = OPENCLAW_SUBAGENT.exec(key);
  return m ? `agent:${m[1]}:main` : null;
}

export const openClawLineage: HarnessLineage = {
  parentFromKey(key) {
    const parentKey = openClawParentKey(key);
    return parentKey ? { parentKey, source: 'openclaw-key' } : null;
  },
};
