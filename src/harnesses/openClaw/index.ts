// OpenClaw (docs/harnesses.md): reports through the API itself (no hook command, nothing to
// install); its sub-agents' session keys name their parent. Session files under ~/.openclaw.

import * as path from 'node:path';
import type { Harness } from '../harness';
import { openClawLineage } from './lineage';

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
