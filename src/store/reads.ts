// Read queries the store worker answers. Each takes the database and plain arguments and returns
// plain data (structured-clone safe) for the main thread.

import type { Database } from 'sql.js';
import { BatonError } from '../core/errors';
import { all, one } from './db';
import * as q from './queries';
import * as m from './memoryQueries';
import * as rules from './ruleQueries';
import { sessionSubagents } from './subagentQueries';
import { sessionSearch, type SessionSearchArgs } from './sessionSearch';
import { writableSessionRow } from './ownership';
import * as jobs from './jobs';
import { spendSums, type SpendWindow } from './spendQueries';
import type { TranscriptFileCursor } from '../core/fileCursor';
import type { ParentWriter } from '../core/agents';

/** A read of one key: the caller's scope, and the agent whose row the request names, if any (docs/security.md). */
interface KeyRead {
  scope: q.Scope;
  key: string;
  agentId?: string;
}

function sessionRowOrThrow(db: Database, a: KeyRead) {
  const { scope, key } = a;
  const row = q.findSessionRow(db, scope, key, a.agentId);
  if (!row) throw new BatonError('not_found', `session ${q.stripSessionPrefix(key)} not found`);
  return row;
}

export const READ_QUERIES = {
  getSession: (db: Database, a: KeyRead) => q.getSession(db, a.scope, a.key, a.agentId),
  /** The session a parent key means for a child written by `writer` (queries.ts parentSessionRow). */
  parentSession: (db: Database, a: { writer: ParentWriter; key: string }) => q.getParentSession(db, a.writer, a.key),
  /** The session a write by this writer would touch (ownership.ts), or null. */
  writableSession: (db: Database, a: { agentId: string; key: string }) => {
    const row = writableSessionRow(db, a.agentId, a.key);
    return row ? q.getSessionById(db, row.id) : null;
  },
  /** Where the last read of a transcript file for the session stopped (src/core/fileCursor.ts), or null. */
  transcriptFile: (db: Database, a: { agentId: string; key: string; path: string }) => {
    const row = writableSessionRow(db, a.agentId, a.key);
    const found = row ? one<{ cursor: string }>(db, 'SELECT cursor FROM transcript_files WHERE session_id = ? AND path = ?', [row.id, a.path]) : undefined;
    return found ? (JSON.parse(found.cursor) as TranscriptFileCursor) : null;
  },
  listSessions: (db: Database, a: { scope: q.Scope } & q.ListOptions) => q.listSessions(db, a.scope, a),
  /** What the readable sessions spent in a window, summed per group and model (spendQueries.ts). */
  spendSums: (db: Database, a: { scope: q.Scope } & SpendWindow) => spendSums(db, a.scope, a),
  tree: (db: Database, a: { scope: q.Scope; project?: string; limit?: number }) => q.sessionTree(db, a.scope, a),
  transcript: (db: Database, a: KeyRead) => {
    const row = sessionRowOrThrow(db, a);
    return { sessionKey: row.session_key, agentId: row.agent_id, content: q.transcriptContent(db, row.id), turnCount: row.turn_count };
  },
  turns: (db: Database, a: KeyRead & { from?: number; limit?: number }) => {
    const row = sessionRowOrThrow(db, a);
    return { sessionKey: row.session_key, total: row.turn_count, turns: q.readTurns(db, row.id, a.from ?? 1, a.limit ?? 500) };
  },
  tail: (db: Database, a: KeyRead & { chars: number; afterSeq?: number }) => {
    const row = sessionRowOrThrow(db, a);
    return q.transcriptTail(db, row.id, a.chars, a.afterSeq ?? 0);
  },
  search: (db: Database, a: { scope: q.Scope; markers?: { open: string; close: string } } & q.SearchOptions) =>
    q.searchTranscriptsOrQuestion(db, a.scope, a, a.markers),
  /** Everything `POST /api/sessions/search` needs from the store, in one round trip. */
  sessionSearch: (db: Database, a: { scope: q.Scope } & SessionSearchArgs) => sessionSearch(db, a.scope, a),
  listConstraints: (db: Database, a: { scope: q.Scope; sessionKey?: string; agentId?: string; includeInactive?: boolean; limit?: number }) =>
    rules.listConstraints(db, a.scope, a),
  getConstraint: (db: Database, a: { scope: q.Scope; id: number }) => rules.getConstraint(db, a.scope, a.id),
  listEntities: (db: Database, a: { scope: q.Scope; sessionKey?: string; agentId?: string; includeInactive?: boolean; limit?: number }) =>
    rules.listEntities(db, a.scope, a),
  getEntity: (db: Database, a: { scope: q.Scope; id: number }) => rules.getEntity(db, a.scope, a.id),
  /** The sub-agents of a readable session (its own agent's children and runs). */
  subagents: (db: Database, a: KeyRead) => {
    const row = sessionRowOrThrow(db, a);
    return { sessionKey: row.session_key, children: sessionSubagents(db, row.agent_id, row.session_key) };
  },
  latestCheckpoint: (db: Database, a: KeyRead) => {
    const row = sessionRowOrThrow(db, a);
    return q.latestCheckpoint(db, row.id, row.session_key);
  },
  inheritSources: (db: Database, a: { writer: ParentWriter; parentKey: string; tailChars: number; turnPool?: q.TurnPool }) =>
    q.inheritSources(db, a.writer, a.parentKey, a.tailChars, a.turnPool),
  recall: (db: Database, a: { scope: q.Scope } & m.RecallOptions) => m.recallMemories(db, a.scope, a),
  summarizedTo: (db: Database, a: { agentId: string; sessionKey: string }) => m.summarizedTo(db, a.agentId, a.sessionKey),
  contextEpoch: (db: Database, a: { agentId: string; sessionKey: string }) => m.contextEpoch(db, a.agentId, a.sessionKey),
  headSources: (db: Database, a: { agentId: string; since: string; headLimit: number }) => m.headSources(db, a.agentId, a),
  topMemories: (db: Database, a: { scope: q.Scope; limit?: number }) => m.topMemories(db, a.scope, a),
  entityContext: (db: Database, a: { agentId: string; prompt: string; minScore: number }) => m.entityContext(db, a.agentId, a.prompt, a.minScore),
  summaries: (db: Database, a: { scope: q.Scope; sessionKey?: string; agentId?: string; limit?: number }) => m.listSummaries(db, a.scope, a),
  expandSummary: (db: Database, a: { scope: q.Scope; id: string; includeTranscript?: boolean; transcriptCharLimit?: number }) =>
    m.expandSummary(db, a.scope, a),
  compactionCount: (db: Database, a: { agentId: string; key: string }) =>
    Number(
      one<{ n: number }>(
        db,
        "SELECT COUNT(*) AS n FROM checkpoints c JOIN sessions s ON s.id = c.session_id WHERE s.agent_id = ? AND s.session_key = ? AND c.source = 'compaction'",
        [a.agentId, q.stripSessionPrefix(a.key)],
      )!.n,
    ),
  listRuns: (db: Database, a: { scope: q.Scope } & q.RunFilter) => q.listRuns(db, a.scope, a),
  getRun: (db: Database, a: { scope: q.Scope; id: string }) => q.getRun(db, a.scope, a.id),
  getJob: (db: Database, a: { scope: q.Scope; id: string }) => jobs.getJob(db, a.scope, a.id),
  nextJob: (db: Database, _args: object = {}) => jobs.nextJob(db),
  openJobs: (db: Database, a: { limit?: number } = {}) => jobs.openJobs(db, a.limit),
  jobCursor: (db: Database, a: { agentId: string; key: string; kind: string }) => jobs.jobCursor(db, { ...a, key: q.stripSessionPrefix(a.key) }),
  agentPolicy: (db: Database, a: { agentId: string }) =>
    one<{ read_policy: string }>(db, 'SELECT read_policy FROM agents WHERE id = ?', [a.agentId])?.read_policy ?? null,
  tokenByHash: (db: Database, a: { secretHash: string }) => {
    const row = one<{ id: string; agent_id: string; permissions: string; revoked_at: string | null }>(
      db,
      'SELECT id, agent_id, permissions, revoked_at FROM tokens WHERE secret_hash = ?',
      [a.secretHash],
    );
    return row && !row.revoked_at ? { id: row.id, agentId: row.agent_id, permissions: JSON.parse(row.permissions) as string[] } : null;
  },
  stats: (db: Database, _args: object = {}) => {
    const count = (table: string) => Number(one<{ n: number }>(db, `SELECT COUNT(*) AS n FROM ${table}`)!.n);
    return {
      sessions: count('sessions'),
      turns: count('transcript_turns'),
      segments: count('transcript_segments'),
      checkpoints: count('checkpoints'),
      memories: count('memories'),
      runs: count('subagent_runs'),
      agents: count('agents'),
      textChars: Number(one<{ n: number | null }>(db, 'SELECT SUM(char_count) AS n FROM sessions')!.n ?? 0),
      pages: Number(db.exec('PRAGMA page_count')[0].values[0][0]),
      pageSize: Number(db.exec('PRAGMA page_size')[0].values[0][0]),
    };
  },
  integrity: (db: Database, _args: object = {}) => all<{ integrity_check: string }>(db, 'PRAGMA integrity_check').map((r) => r.integrity_check),
};

export type ReadQueries = typeof READ_QUERIES;
export type ReadName = keyof ReadQueries;
export type ReadArgs<N extends ReadName> = Parameters<ReadQueries[N]>[1];
export type ReadResult<N extends ReadName> = ReturnType<ReadQueries[N]>;
