// OpenClaw (docs/harnesses.md): reports through the API itself (no hook command, nothing to
// install); its sub-agents' session keys name their parent. Session files under ~/.openclaw.

import * as path from 'node:path';
import type { Harness } from '../harness';
import type { HarnessLineage } from '../../core/lineage';

// OpenClaw's lineage signal: a sub-agent's session key names its parent (docs/harnesses.md).
// `agent:{id}:subagent:{uuid}` → `agent:{id}:main`.
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

export const openClaw: Harness = {
  id: 'openclaw',
  displayName: 'OpenClaw',
  transcripts: {
    fallbackFormat: 'messages-json',
    matchesName: (name) => name.toLowerCase().includes('openclaw'),
    roots: (_env, home) => [path.join(home, '.openclaw')],
  },
  lineage: openClawLineage,
};
