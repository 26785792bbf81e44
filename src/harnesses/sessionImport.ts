// What every `baton import <harness>` shares once the harness's own code has read its history:
// writing a session (new, or only the turns the store lacks) through the API, counting it, and
// importing the lineage level by level so that every parent is written before its children.

import * as fs from 'node:fs';
import type { SqlJsStatic } from 'sql.js';
import type { ApiAccess, ApiClient } from '../api/client';
import { DEFAULT_AGENT } from '../core/agents';
import { BatonError } from '../core/errors';
import { normalizeWith, type TranscriptFormat, type TranscriptParser } from '../core/normalize';
import type { Turn } from '../core/types';

/** What an import is given: the API to write through, and where progress and warnings go. */
export interface ImportIo {
  /** Opens the API to write through (the running server's, or in-process); called once the source is known good. */
  open(): Promise<ApiAccess>;
  onProgress?(done: number, total: number): void;
  onWarning?(message: string): void;
  /** sql.js, for sources that are SQLite databases (the store's loader: src/harnesses may not import src/store). */
  loadSqlJs?(): Promise<SqlJsStatic>;
}

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

/** What every importer reports, whatever it read (a harness may add its own fields: files, format…). */
export type ImportCounts = Omit<ImportResult, 'source'>;

/** Files written at the same time (within one level of the lineage). */
const CONCURRENCY = 8;

/** Bodies above this go by file path, or not at all (the server caps request bodies, 8 MB by default). */
export const INLINE_LIMIT = 7 * 1024 * 1024;

/** One session as an import writes it. */
export interface SessionWrite {
  key: string;
  project?: string;
  title?: string;
  /** Sub-agents: the parent's key, and the harness's agent id and type. */
  parentKey?: string;
  agentId?: string;
  agentType?: string;
  /** How a new session ends: `ended`, or `completed` for a sub-agent whose run returned. */
  status?: 'ended' | 'completed';
  /** A file's text reduced to what Baton reads, or the message list the harness's hooks send inline. */
  transcript: string | unknown[];
  /** The file `transcript` was read from: over the inline limit, the server reads that file itself (it must be under its transcript folders). */
  file?: string;
}

/**
 * The turns of a transcript an import reduced to its harness's own records, read with that
 * harness's format only: the registry (which knows every format) lists the importers, so an
 * importer importing it would be a circle; the reduced text holds no other harness's records, so
 * the turns are the same as the registry's reading.
 */
export function importedTurns(text: string, harness: string, own: { parser?: TranscriptParser; fallbackFormat: TranscriptFormat }): Turn[] {
  return normalizeWith(text, { harness }, { parsers: own.parser ? [own.parser] : [], fallbackFor: () => own.fallbackFormat });
}

/** The running totals of an import, and the warning that goes both into them and to the caller. */
export function importTally(source: string, onWarning?: (message: string) => void): { result: ImportResult; warn(message: string): void } {
  const result: ImportResult = { source, via: 'store', sessions: 0, subagents: 0, created: 0, turnsAdded: 0, skipped: 0, warnings: [] };
  return {
    result,
    warn: (message) => {
      result.warnings.push(message);
      onWarning?.(message);
    },
  };
}

/**
 * Creates (and ends) a new session, or adds the missing turns of a known one, through the API
 * (the running server's, or the same handlers in-process): returns turns added and whether it was
 * new. With `keepLive`, a session the live hooks recorded (not ended by an import) is left as it is.
 */
export async function writeImportedSession(
  api: ApiClient,
  harness: string,
  session: SessionWrite,
  options: { keepLive?: boolean } = {},
): Promise<{ appended: number; created: boolean; live: boolean }> {
  // The import writes as the default agent: a session of the key in another agent is not this one.
  const known = await api.callOrNull('getSession', { params: { key: session.key } });
  const created = known === null || known.agentId !== DEFAULT_AGENT;
  if (options.keepLive && !created && known.endReason !== 'import') return { appended: 0, created, live: true };
  let source: { transcript: string | unknown[] } | { transcriptPath: string } = { transcript: session.transcript };
  if (Buffer.byteLength(JSON.stringify(session.transcript)) > INLINE_LIMIT) {
    if (!session.file) throw new BatonError('payload_too_large', `its transcript is larger than ${INLINE_LIMIT} bytes`);
    source = { transcriptPath: fs.realpathSync(session.file) };
  }
  const base = { harness, sessionKey: session.key, project: session.project };
  if (created) {
    await api.call('sessionStart', {
      body: {
        ...base,
        source: 'import',
        // A past session being imported: no model reads this start's reply, so nothing is told to it.
        injectMemories: false,
        title: session.title?.slice(0, 500),
        ...(session.parentKey ? { parentSessionKey: session.parentKey, harnessAgentId: session.agentId, harnessAgentType: session.agentType } : {}),
      },
    });
  }
  const reply = created
    ? await api.call('sessionEnd', { body: { ...base, ...source, status: session.status ?? 'ended', reason: 'import' } })
    : await api.call('userPromptSubmit', { body: { ...base, ...source } });
  return { appended: reply.appended ?? 0, created, live: false };
}

/** writeImportedSession, counted into `result`; a failed write is a warning about `origin` and a skip, never a throw. */
export async function writeAndCount(
  api: ApiClient,
  harness: string,
  session: SessionWrite,
  origin: string,
  tally: { result: ImportResult; warn(message: string): void },
): Promise<void> {
  const { result, warn } = tally;
  try {
    const written = await writeImportedSession(api, harness, session);
    result.sessions++;
    if (session.parentKey) result.subagents++;
    if (written.created) result.created++;
    result.turnsAdded += written.appended;
  } catch (err) {
    warn(`${origin}: skipped (${(err as Error).message})`);
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
