// What a session leaves behind when it ends (docs/memory.md, "Extraction at session end"): its
// decisions, constraints, preferences, facts and open questions become typed memories, and a
// summary node joins the summary tree under the parent session's. The transcript is already
// stored when this runs, so a failure here is logged and never fails the session end.

import { errorClassOf } from '../core/errors';
import type { Logger } from '../core/logger';
import { extractSession } from '../core/memoryExtraction';
import type { StoreAccess } from '../store/store';

/** At most this many turns are read (pages of 2,000): a bound on one extraction's cost. */
const MAX_TURNS = 100_000;

export interface SessionMemoryResult {
  summaryId: string | null;
  memories: number;
  skipped: boolean;
}

async function extractAndStore(store: StoreAccess, agentId: string, key: string): Promise<SessionMemoryResult> {
  const session = await store.read('writableSession', { agentId, key });
  if (!session || session.turnCount === 0) return { summaryId: null, memories: 0, skipped: true };
  // Nothing new since the last summary: skip reading the turns (the store command checks again).
  if ((await store.read('summarizedTo', { agentId, sessionKey: session.key })) >= session.turnCount) return { summaryId: null, memories: 0, skipped: true };
  const scope = { agentId };
  const turns: Array<{ seq: number; role: string; text: string }> = [];
  for (let from = 1; turns.length < MAX_TURNS;) {
    const got = await store.read('turns', { scope, key: session.key, from, limit: 2000 });
    turns.push(...got.turns);
    if (got.turns.length < 2000) break;
    from = got.turns[got.turns.length - 1].seq + 1;
  }
  const toSeq = turns.length ? turns[turns.length - 1].seq : 0;
  const extracted = extractSession({ key: session.key, harness: session.harness, project: session.project, title: session.title ?? null }, turns);
  const stored = await store.write('recordSessionMemory', {
    agentId,
    key: session.key,
    toSeq,
    project: session.project,
    who: session.harness,
    summary: extracted.summary,
    memories: extracted.memories,
  });
  return { summaryId: stored.summaryId, memories: stored.memoryIds.length, skipped: stored.skipped };
}

/** Extracts the ended session's memories; never throws (a failure is logged by its class only). */
export async function rememberEndedSession(store: StoreAccess, logger: Logger, agentId: string, key: string): Promise<SessionMemoryResult | null> {
  try {
    return await extractAndStore(store, agentId, key);
  } catch (err) {
    logger.warn(`session-end memory extraction failed: ${errorClassOf(err)}`);
    return null;
  }
}
