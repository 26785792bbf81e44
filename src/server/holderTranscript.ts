// The on-disk copy of an archive's holder (docs/archival.md, "What the model is sent"): the
// holder's stored turns as a session file under the data directory, written by the archive route
// for every caller, so the VS Code participant and a headless client leave the same file.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { holderTranscriptJsonl, holderTranscriptPath } from '../core/archival';
import { writeFileAtomicAsync } from '../node/fsync';
import type { StoreAccess } from '../store/store';

/** Turns read per page: an archive of any size is read in bounded steps. */
const PAGE = 2_000;

/**
 * Writes the holder's whole stored transcript to agents/…/subagent-<id>/sessions/<id>.jsonl
 * (owner-only, atomically: a reader never sees half a file) and returns its path relative to the
 * data directory, with `/` separators.
 */
export async function writeHolderTranscript(store: StoreAccess, dataDir: string, holder: { agentId: string; key: string; turns: number }): Promise<string> {
  const turns: Array<{ role: string; text: string }> = [];
  for (let from = 1; from <= holder.turns; from += PAGE) {
    const page = await store.read('turns', { scope: { agentId: holder.agentId }, key: holder.key, agentId: holder.agentId, from, limit: PAGE });
    turns.push(...page.turns);
    if (page.turns.length < PAGE) break;
  }
  const parts = holderTranscriptPath(holder.key, holder.agentId);
  const file = path.join(dataDir, ...parts);
  await fs.promises.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await writeFileAtomicAsync(file, holderTranscriptJsonl(turns));
  return parts.join('/');
}
