// What every `baton import <harness>` of transcript files shares once the harness's own code has
// found the files and reduced each to what Baton reads: writing a session (new, or only the turns
// the store lacks) through the API, and importing the lineage level by level so that every parent
// is written before its children. Used by the Claude Code and Codex imports.

import * as fs from 'node:fs';
import type { ApiAccess, ApiClient } from '../api/client';
import { DEFAULT_AGENT } from '../core/agents';

/** One transcript file to import as one Baton session. */
export interface ImportedSession {
  /** Baton session key, as the harness's live hooks key the session. */
  key: string;
  file: string;
  /** Sub-agents only. */
  parentKey?: string;
  agentId?: string;
  agentType?: string;
  /** 0 for main sessions, 1 for their sub-agents, 2 for sub-agents of sub-agents… */
  depth: number;
}

export interface ImportResult {
  source: string;
  /** How the data was written: through the running server, or by opening the store. */
  via: 'server' | 'store';
  /** Sessions written (new or already known), sub-agents included. */
  sessions: number;
  subagents: number;
  /** Sessions that did not exist before this import. */
  created: number;
  turnsAdded: number;
  /** Files skipped: unreadable, not a transcript of the harness, or without any turn. */
  skipped: number;
  warnings: string[];
}

/** Files written at the same time (within one level of the lineage). */
const CONCURRENCY = 8;

/** Bodies above this go by file path (the server caps request bodies, 8 MB by default). */
const INLINE_LIMIT = 7 * 1024 * 1024;

/**
 * Creates (and ends) a new session, or adds the missing turns of a known one, through the API
 * (the running server's, or the same handlers in-process): returns turns added and whether it was new.
 * `transcript` is the file reduced to what Baton reads; a large one is read by the server from the
 * file itself (which must then be under its transcript folders).
 */
export async function writeImportedSession(
  api: ApiClient,
  harness: string,
  item: ImportedSession,
  project: string | undefined,
  transcript: string,
): Promise<{ appended: number; created: boolean }> {
  // The import writes as the default agent: a session of the key in another agent is not this one.
  const known = await api.callOrNull('getSession', { params: { key: item.key } });
  const created = known === null || known.agentId !== DEFAULT_AGENT;
  const base = { harness, sessionKey: item.key, project };
  if (created) {
    await api.call('sessionStart', {
      body: {
        ...base,
        source: 'import',
        ...(item.parentKey ? { parentSessionKey: item.parentKey, harnessAgentId: item.agentId, harnessAgentType: item.agentType } : {}),
      },
    });
  }
  const source = Buffer.byteLength(JSON.stringify(transcript)) > INLINE_LIMIT ? { transcriptPath: fs.realpathSync(item.file) } : { transcript };
  const reply = created
    ? await api.call('sessionEnd', { body: { ...base, ...source, status: 'ended', reason: 'import' } })
    : await api.call('userPromptSubmit', { body: { ...base, ...source } });
  return { appended: reply.appended ?? 0, created };
}

/** writeImportedSession, counted into `result`; a failed write is a warning and a skipped file, never a throw. */
export async function writeAndCount(
  api: ApiClient,
  harness: string,
  item: ImportedSession,
  project: string | undefined,
  transcript: string,
  result: ImportResult,
  warn: (message: string) => void,
): Promise<void> {
  try {
    const written = await writeImportedSession(api, harness, item, project, transcript);
    result.sessions++;
    if (item.parentKey) result.subagents++;
    if (written.created) result.created++;
    result.turnsAdded += written.appended;
  } catch (err) {
    warn(`${item.file}: skipped (${(err as Error).message})`);
    result.skipped++;
  }
}

/**
 * Runs `importOne` on every item, level by level (main sessions, then their sub-agents, then
 * theirs), a few files at a time within a level so the store commits them together; closes the
 * API at the end. `importOne` must not throw: a problem skips its file only.
 */
export async function importByLevel<T extends ImportedSession>(
  items: T[],
  writer: ApiAccess,
  importOne: (item: T) => Promise<void>,
  onProgress?: (done: number, total: number) => void,
): Promise<void> {
  let done = 0;
  onProgress?.(0, items.length);
  try {
    const deepest = Math.max(0, ...items.map((i) => i.depth));
    for (let depth = 0; depth <= deepest; depth++) {
      const level = items.filter((i) => i.depth === depth);
      let next = 0;
      const worker = async () => {
        while (next < level.length) {
          await importOne(level[next++]);
          onProgress?.(++done, items.length);
        }
      };
      await Promise.all(Array.from({ length: Math.min(CONCURRENCY, level.length) }, worker));
    }
  } finally {
    await writer.close();
  }
}
