// What follows a session's end once its transcript is stored (docs/memory.md, "At session end"):
// the rules stated in it become constraints, its decisions and facts become memories, and its
// artifacts (transcript.jsonl, manifest, a queued summary) are written. Each step after the
// first degrades on its own. Run inline by a caller that asks for it (the CLI, the API), or as a
// job queued in the same write as the end when the caller is a hook the harness waits on.

import type { Logger } from '../core/logger';
import type { SessionArtifacts } from './artifacts';
import type { InheritService } from './inheritService';
import type { MemoryService } from './memoryService';
import { orElse } from './orElse';

/** The job kind of the work after a session's end, queued with the end (store/lifecycle.ts touchSession). */
export const SESSION_END_JOB = 'session-end';

export interface SessionEndWorkers {
  inherit: InheritService;
  memory: MemoryService;
  artifacts: SessionArtifacts;
  logger: Logger;
}

/** The work after the end of `key`: the artifacts' paths and summary job, or null when there are none. */
export async function finishEndedSession(w: SessionEndWorkers, agentId: string, key: string) {
  // Rules stated anywhere in the session become its constraints (docs/inheritance.md).
  await orElse(w.logger, 'session-end rule extraction', () => w.inherit.extractRules(agentId, key, 1), null);
  // Decisions, facts, open questions… as memories, and the session's summary node (docs/memory.md).
  await w.memory.sessionEnded(agentId, key);
  // The canonical transcript.jsonl, the manifest and a queued summary job (docs/memory.md).
  return orElse(w.logger, 'session-end artifacts', () => w.artifacts.sessionEnded(agentId, key), null);
}
