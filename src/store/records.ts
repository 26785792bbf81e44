// Journal records: small, deterministic mutations. A command (see commands.ts) reads the database,
// decides, and emits records; each record is applied at once and journaled. Replaying the same
// records on the snapshot they were taken after rebuilds exactly the same state, so records carry
// every value they need (times, ids) and never consult the clock.

import type { Database } from 'sql.js';
import type { ExecutionMode, LineageSource, ReadPolicy, Role, RunStatus, SessionStatus } from '../core/types';
import type { TranscriptCursor } from '../core/transcriptDelta';
import type { TranscriptFileCursor } from '../core/fileCursor';
import { renderTurn } from '../core/normalize';
import { lastId, metaNumber, one, run, setMetaNumber, utf8 } from './db';
import { sealSegment, segmentText, type StoredSegment } from './segmentText';
import { applyJobRecord, type JobRecord } from './jobs';
import { adoptChildrenTallies, applyUsage, moveBetweenParents, type UsageEntry } from './spendTally';

/**
 * Segments grow up to this many characters; a longer turn gets a segment of its own. Search indexes
 * turns, not segments. At 16 KB a sealed segment (see segmentText.ts) fills its database pages
 * well: at 8 KB it deflated to about 3.7 KB, a third of them just over the 4 KB that fits in a
 * page, and the table's pages stood 30% empty (13% now, measured at 2,000 sessions).
 */
export const SEGMENT_CAP = 16 * 1024;

export interface SessionFields {
  harness?: string;
  project?: string | null;
  parentSessionKey?: string | null;
  lineageSource?: LineageSource | null;
  harnessAgentId?: string | null;
  harnessAgentType?: string | null;
  /** What a sub-agent was asked to do (its spawn call's prompt). */
  task?: string | null;
  executionMode?: ExecutionMode | null;
  status?: SessionStatus;
  runtimePath?: string | null;
  claimedAt?: string | null;
  bypassed?: boolean;
  title?: string | null;
  endedAt?: string | null;
  endReason?: string | null;
  /** A compaction happened: the next prompt gets the "Sub-agents of this session" section. */
  childrenDue?: boolean;
}

export interface RunFields {
  agentId?: string;
  sessionKey?: string | null;
  parentSessionKey?: string | null;
  runner?: string;
  status?: RunStatus;
  executionMode?: ExecutionMode;
  workspacePath?: string | null;
  specId?: string | null;
  prompt?: string | null;
  files?: string[];
  /** The tools granted to the child at spawn; null or absent: none was asked for. */
  tools?: string[] | null;
  resultContent?: string | null;
  inputTokens?: number | null;
  outputTokens?: number | null;
  durationMs?: number | null;
  error?: string | null;
  callbackDeliveredAt?: string | null;
  startedAt?: string | null;
  finishedAt?: string | null;
  /** The Baton process that runs it (a run it started itself, src/store/runProcesses.ts). */
  hostPid?: number | null;
  /** Its child: pid (= process group id) and identity (boot and start time). */
  childPid?: number | null;
  childIdentity?: string | null;
}

export type StoreRecord =
  | { t: 'agent'; id: string; readPolicy: ReadPolicy; at: string }
  | { t: 'agentPolicy'; id: string; readPolicy: ReadPolicy }
  | { t: 'session'; agentId: string; key: string; set: SessionFields; at: string }
  | {
      t: 'turns';
      agentId: string;
      key: string;
      turns: Array<{ role: Role; text: string; at?: string; hash: string }>;
      cursor: TranscriptCursor;
      at: string;
    }
  /** Model requests' usage read with a session's turns (spendTally.ts), written in the same command as them. */
  | { t: 'usage'; agentId: string; key: string; entries: UsageEntry[] }
  /** Where a transcript file's read stopped; null forgets it (the next read is a full one). */
  | { t: 'transcriptFile'; agentId: string; key: string; path: string; cursor: TranscriptFileCursor | null; at: string }
  | {
      t: 'checkpoint';
      agentId: string;
      key: string;
      digest: string;
      focalEntities: string[];
      extractionCursor: number;
      source: string | null;
      at: string;
    }
  | {
      t: 'attribute';
      agentId: string;
      entity: string;
      entityKind: string;
      kind: string;
      content: string;
      importance: number;
      sessionKey: string | null;
      /** `extracted` or `hand`; absent in records written before provenance was kept. */
      origin?: string | null;
      sourceSeq?: number | null;
      sourceRole?: string | null;
      at: string;
    }
  | {
      t: 'entitySet';
      agentId: string;
      /** The entity to change; absent: the one named `name`, created when missing. */
      id: number | null;
      name: string | null;
      kind: string | null;
      description: string | null;
      active: boolean | null;
      /** The entity's whole list of aliases; absent (records written before aliases) or null: unchanged. */
      aliases?: string[] | null;
      at: string;
    }
  | { t: 'attributeSet'; agentId: string; id: number; content: string | null; active: boolean | null; importance: number | null; at: string }
  | {
      t: 'memory';
      id: string;
      agentId: string;
      sessionKey: string | null;
      project: string | null;
      content: string;
      type: string | null;
      tags: string | null;
      who: string | null;
      importance: number;
      sourceType: string | null;
      sourceId: string | null;
      at: string;
    }
  | {
      t: 'summary';
      id: string;
      agentId: string;
      kind: string;
      depth: number;
      sourceType: string;
      sourceRef: string | null;
      sessionKey: string | null;
      project: string | null;
      content: string;
      score: number;
      metaJson: string;
      parents: string[];
      /** Existing nodes the new one becomes the parent of (a session's summary over its sub-agents'). */
      children?: string[];
      at: string;
    }
  | { t: 'recalled'; agentId: string; sessionKey: string; epoch: number; memoryIds: string[]; at: string }
  | { t: 'headLease'; agentId: string; leaseId: string; sessionKey: string | null; expiresAt: string; at: string }
  | { t: 'headWritten'; agentId: string; sessionKey: string | null; contentHash: string; at: string }
  | { t: 'run'; id: string; set: RunFields; at: string }
  | { t: 'token'; id: string; agentId: string; permissions: string[]; secretHash: string; label: string | null; at: string }
  | { t: 'tokenRevoke'; id: string; at: string }
  | JobRecord;

const SESSION_COLUMNS: Record<keyof SessionFields, string> = {
  harness: 'harness',
  project: 'project',
  parentSessionKey: 'parent_session_key',
  lineageSource: 'lineage_source',
  harnessAgentId: 'harness_agent_id',
  harnessAgentType: 'harness_agent_type',
  task: 'task',
  executionMode: 'execution_mode',
  status: 'status',
  runtimePath: 'runtime_path',
  claimedAt: 'claimed_at',
  bypassed: 'bypassed',
  title: 'title',
  endedAt: 'ended_at',
  endReason: 'end_reason',
  childrenDue: 'children_due',
};

const RUN_COLUMNS: Record<keyof RunFields, string> = {
  agentId: 'agent_id',
  sessionKey: 'session_key',
  parentSessionKey: 'parent_session_key',
  runner: 'runner',
  status: 'status',
  executionMode: 'execution_mode',
  workspacePath: 'workspace_path',
  specId: 'spec_id',
  prompt: 'prompt',
  files: 'files',
  tools: 'tools',
  resultContent: 'result_content',
  inputTokens: 'input_tokens',
  outputTokens: 'output_tokens',
  durationMs: 'duration_ms',
  error: 'error',
  callbackDeliveredAt: 'callback_delivered_at',
  startedAt: 'started_at',
  finishedAt: 'finished_at',
  hostPid: 'host_pid',
  childPid: 'child_pid',
  childIdentity: 'child_identity',
};

function toSql(value: unknown): string | number | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (Array.isArray(value)) return JSON.stringify(value);
  return value as string | number;
}

function sessionId(db: Database, agentId: string, key: string): number {
  const row = one<{ id: number }>(db, 'SELECT id FROM sessions WHERE agent_id = ? AND session_key = ?', [agentId, key]);
  if (!row) throw new Error(`no session ${key} for agent ${agentId}`);
  return row.id;
}

function applySession(db: Database, rec: Extract<StoreRecord, { t: 'session' }>): void {
  const entries = Object.entries(rec.set).filter(([, v]) => v !== undefined) as Array<[keyof SessionFields, unknown]>;
  const current = one<{ id: number; parent_session_key: string | null }>(
    db,
    'SELECT id, parent_session_key FROM sessions WHERE agent_id = ? AND session_key = ?',
    [rec.agentId, rec.key],
  );
  if (!current) {
    const cols = ['agent_id', 'session_key', 'created_at', 'updated_at', ...entries.map(([k]) => SESSION_COLUMNS[k])];
    const vals = [rec.agentId, rec.key, rec.at, rec.at, ...entries.map(([, v]) => toSql(v))];
    if (!rec.set.harness) {
      cols.push('harness');
      vals.push('unknown');
    }
    run(db, `INSERT INTO sessions (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`, vals);
    adoptChildrenTallies(db, lastId(db));
    return;
  }
  // A new parent takes the session's rolled-up spend from the old one (spendTally.ts).
  const reparented = rec.set.parentSessionKey !== undefined && (rec.set.parentSessionKey ?? null) !== current.parent_session_key;
  const joinNewParent = reparented ? moveBetweenParents(db, current.id) : null;
  const sets = entries.map(([k]) => `${SESSION_COLUMNS[k]} = ?`);
  run(db, `UPDATE sessions SET ${[...sets, 'updated_at = ?'].join(', ')} WHERE agent_id = ? AND session_key = ?`, [
    ...entries.map(([, v]) => toSql(v)),
    rec.at,
    rec.agentId,
    rec.key,
  ]);
  joinNewParent?.();
}

function applyTurns(db: Database, rec: Extract<StoreRecord, { t: 'turns' }>): void {
  const sid = sessionId(db, rec.agentId, rec.key);
  const counts = one<{ turn_count: number; char_count: number }>(db, 'SELECT turn_count, char_count FROM sessions WHERE id = ?', [sid])!;
  let seq = counts.turn_count;
  let chars = counts.char_count;
  // The open segment (the newest; never sealed) is appended to, never read: its length in UTF-16
  // units is where the session's last turn ends, when that turn lives there.
  let open = one<{ id: number; ordinal: number }>(db, 'SELECT id, ordinal FROM transcript_segments WHERE session_id = ? ORDER BY ordinal DESC LIMIT 1', [sid]);
  const lastTurn =
    seq > 0
      ? one<{ segment_id: number; end: number }>(db, 'SELECT segment_id, start + length + 1 AS end FROM transcript_turns WHERE session_id = ? AND seq = ?', [
          sid,
          seq,
        ])
      : undefined;
  let openLength = open && lastTurn?.segment_id === open.id ? lastTurn.end : 0;
  let appended = '';
  /** Appends the lines added to the open segment; a full one is sealed instead, with them (see segmentText.ts). */
  const flushOpen = (seal: boolean) => {
    if (!open) return;
    if (seal) {
      const stored = one<{ text: StoredSegment }>(db, 'SELECT text FROM transcript_segments WHERE id = ?', [open.id])!.text;
      run(db, 'UPDATE transcript_segments SET text = ? WHERE id = ?', [sealSegment(segmentText(stored) + appended), open.id]);
    } else if (appended) {
      run(db, 'UPDATE transcript_segments SET text = text || CAST(? AS TEXT) WHERE id = ?', [utf8(appended), open.id]);
    }
    appended = '';
  };
  let docId = metaNumber(db, 'next_doc_id', 1);
  for (const turn of rec.turns) {
    const line = renderTurn(turn) + '\n';
    if (!open || (openLength > 0 && openLength + line.length > SEGMENT_CAP)) {
      flushOpen(true);
      const ordinal = open ? open.ordinal + 1 : 0;
      run(db, 'INSERT INTO transcript_segments (session_id, ordinal, first_seq, text) VALUES (?, ?, ?, ?)', [sid, ordinal, seq + 1, '']);
      open = { id: lastId(db), ordinal };
      openLength = 0;
    }
    seq += 1;
    run(db, 'INSERT INTO transcript_turns (session_id, seq, role, at, hash, segment_id, start, length, doc_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)', [
      sid,
      seq,
      turn.role,
      turn.at ?? null,
      turn.hash,
      open.id,
      openLength,
      line.length - 1,
      docId,
    ]);
    // Tokenised later, with other turns (see searchIndex.ts).
    docId += 1;
    appended += line;
    openLength += line.length;
    chars += line.length;
  }
  flushOpen(false);
  setMetaNumber(db, 'next_doc_id', docId);
  run(db, 'UPDATE sessions SET turn_count = ?, char_count = ?, source_turns = ?, source_hash = ?, pending_turns = ?, updated_at = ? WHERE id = ?', [
    seq,
    chars,
    rec.cursor.sourceTurns,
    rec.cursor.sourceHash,
    JSON.stringify(rec.cursor.pending),
    rec.at,
    sid,
  ]);
}

/** Where a turn's rendered line lives: a span of one segment's text. */
export interface TurnSpan {
  segment_id: number;
  start: number;
  length: number;
}

/**
 * Reads turns' rendered lines from their segments, each segment once per reader. Slicing happens
 * in JS so the offsets (UTF-16, as written by applyTurns) stay exact.
 */
export function turnLineReader(db: Database): (turn: TurnSpan) => string {
  const segments = new Map<number, string>();
  return (turn) => {
    let text = segments.get(turn.segment_id);
    if (text === undefined) {
      const row = one<{ text: StoredSegment }>(db, 'SELECT text FROM transcript_segments WHERE id = ?', [turn.segment_id]);
      text = row ? segmentText(row.text) : '';
      segments.set(turn.segment_id, text);
    }
    return text.slice(turn.start, turn.start + turn.length);
  };
}

function entityId(db: Database, agentId: string, name: string, kind: string, at: string): number {
  const row = one<{ id: number }>(db, 'SELECT id FROM entities WHERE agent_id = ? AND name = ?', [agentId, name]);
  if (row) return row.id;
  run(db, 'INSERT INTO entities (agent_id, name, kind, created_at) VALUES (?, ?, ?, ?)', [agentId, name, kind, at]);
  return lastId(db);
}

function applyRun(db: Database, rec: Extract<StoreRecord, { t: 'run' }>): void {
  const entries = Object.entries(rec.set).filter(([, v]) => v !== undefined) as Array<[keyof RunFields, unknown]>;
  const exists = one(db, 'SELECT id FROM subagent_runs WHERE id = ?', [rec.id]);
  if (!exists) {
    const cols = ['id', 'created_at', 'updated_at', ...entries.map(([k]) => RUN_COLUMNS[k])];
    run(db, `INSERT INTO subagent_runs (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`, [
      rec.id,
      rec.at,
      rec.at,
      ...entries.map(([, v]) => toSql(v)),
    ]);
    return;
  }
  const sets = entries.map(([k]) => `${RUN_COLUMNS[k]} = ?`);
  run(db, `UPDATE subagent_runs SET ${[...sets, 'updated_at = ?'].join(', ')} WHERE id = ?`, [...entries.map(([, v]) => toSql(v)), rec.at, rec.id]);
}

export function applyRecord(db: Database, rec: StoreRecord): void {
  switch (rec.t) {
    case 'agent':
      run(db, 'INSERT OR IGNORE INTO agents (id, read_policy, created_at) VALUES (?, ?, ?)', [rec.id, rec.readPolicy, rec.at]);
      return;
    case 'agentPolicy':
      run(db, 'UPDATE agents SET read_policy = ? WHERE id = ?', [rec.readPolicy, rec.id]);
      return;
    case 'session':
      applySession(db, rec);
      return;
    case 'turns':
      applyTurns(db, rec);
      return;
    case 'usage':
      applyUsage(db, sessionId(db, rec.agentId, rec.key), rec.entries);
      return;
    case 'transcriptFile': {
      const sid = sessionId(db, rec.agentId, rec.key);
      if (rec.cursor === null) run(db, 'DELETE FROM transcript_files WHERE session_id = ? AND path = ?', [sid, rec.path]);
      else
        run(db, 'INSERT OR REPLACE INTO transcript_files (session_id, path, cursor, updated_at) VALUES (?, ?, ?, ?)', [
          sid,
          rec.path,
          JSON.stringify(rec.cursor),
          rec.at,
        ]);
      return;
    }
    case 'checkpoint': {
      const sid = sessionId(db, rec.agentId, rec.key);
      run(db, 'INSERT INTO checkpoints (session_id, digest, focal_entities, extraction_cursor, source, created_at) VALUES (?, ?, ?, ?, ?, ?)', [
        sid,
        rec.digest,
        JSON.stringify(rec.focalEntities),
        rec.extractionCursor,
        rec.source,
        rec.at,
      ]);
      run(db, 'UPDATE sessions SET updated_at = ? WHERE id = ?', [rec.at, sid]);
      return;
    }
    case 'attribute': {
      const eid = entityId(db, rec.agentId, rec.entity, rec.entityKind, rec.at);
      run(
        db,
        'INSERT INTO entity_attributes (entity_id, kind, content, importance, active, session_key, origin, source_seq, source_role, created_at) VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?, ?)',
        [eid, rec.kind, rec.content, rec.importance, rec.sessionKey, rec.origin ?? null, rec.sourceSeq ?? null, rec.sourceRole ?? null, rec.at],
      );
      return;
    }
    case 'entitySet': {
      const id = rec.id ?? entityId(db, rec.agentId, rec.name ?? '', rec.kind ?? 'entity', rec.at);
      run(
        db,
        `UPDATE entities SET name = COALESCE(?, name), kind = COALESCE(?, kind), description = COALESCE(?, description), active = COALESCE(?, active),
         aliases = COALESCE(?, aliases), updated_at = ? WHERE id = ? AND agent_id = ?`,
        [
          rec.id === null ? null : rec.name,
          rec.kind,
          rec.description,
          rec.active === null ? null : rec.active ? 1 : 0,
          rec.aliases ? JSON.stringify(rec.aliases) : null,
          rec.at,
          id,
          rec.agentId,
        ],
      );
      // Tells the prompt-time index of names (memoryQueries.ts) that names, aliases or flags changed.
      run(db, "UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'entity_edits'");
      return;
    }
    case 'attributeSet':
      run(
        db,
        `UPDATE entity_attributes SET content = COALESCE(?, content), active = COALESCE(?, active), importance = COALESCE(?, importance), updated_at = ?
         WHERE id = ? AND entity_id IN (SELECT id FROM entities WHERE agent_id = ?)`,
        [rec.content, rec.active === null ? null : rec.active ? 1 : 0, rec.importance, rec.at, rec.id, rec.agentId],
      );
      return;
    case 'memory':
      run(
        db,
        `INSERT INTO memories (id, agent_id, session_key, project, content, type, tags, who, importance, source_type, source_id, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [rec.id, rec.agentId, rec.sessionKey, rec.project, rec.content, rec.type, rec.tags, rec.who, rec.importance, rec.sourceType, rec.sourceId, rec.at],
      );
      return;
    case 'summary':
      run(
        db,
        `INSERT INTO summary_nodes (id, agent_id, kind, depth, source_type, source_ref, session_key, project, content, score, meta_json, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [rec.id, rec.agentId, rec.kind, rec.depth, rec.sourceType, rec.sourceRef, rec.sessionKey, rec.project, rec.content, rec.score, rec.metaJson, rec.at],
      );
      for (const parent of rec.parents) run(db, 'INSERT OR IGNORE INTO summary_links (parent_id, child_id) VALUES (?, ?)', [parent, rec.id]);
      for (const child of rec.children ?? []) run(db, 'INSERT OR IGNORE INTO summary_links (parent_id, child_id) VALUES (?, ?)', [rec.id, child]);
      return;
    case 'recalled':
      for (const memoryId of rec.memoryIds) {
        run(db, 'INSERT OR IGNORE INTO recall_ledger (agent_id, session_key, epoch, memory_id, recalled_at) VALUES (?, ?, ?, ?, ?)', [
          rec.agentId,
          rec.sessionKey,
          rec.epoch,
          memoryId,
          rec.at,
        ]);
      }
      return;
    case 'headLease':
      run(db, 'INSERT OR IGNORE INTO memory_heads (agent_id) VALUES (?)', [rec.agentId]);
      run(db, 'UPDATE memory_heads SET lease_id = ?, lease_session_key = ?, lease_expires_at = ? WHERE agent_id = ?', [
        rec.leaseId,
        rec.sessionKey,
        rec.expiresAt,
        rec.agentId,
      ]);
      return;
    case 'headWritten':
      // Writing the head ends whatever lease was held on it.
      run(db, 'INSERT OR IGNORE INTO memory_heads (agent_id) VALUES (?)', [rec.agentId]);
      run(
        db,
        `UPDATE memory_heads SET lease_id = NULL, lease_session_key = NULL, lease_expires_at = NULL, written_at = ?, written_hash = ?, written_session_key = ?
         WHERE agent_id = ?`,
        [rec.at, rec.contentHash, rec.sessionKey, rec.agentId],
      );
      return;
    case 'run':
      applyRun(db, rec);
      return;
    case 'token':
      run(db, 'INSERT INTO tokens (id, agent_id, permissions, secret_hash, label, created_at) VALUES (?, ?, ?, ?, ?, ?)', [
        rec.id,
        rec.agentId,
        JSON.stringify(rec.permissions),
        rec.secretHash,
        rec.label,
        rec.at,
      ]);
      return;
    case 'tokenRevoke':
      run(db, 'UPDATE tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL', [rec.at, rec.id]);
      return;
    case 'job':
    case 'jobSet':
      applyJobRecord(db, rec);
      return;
  }
}

/** Applies one journal frame in a transaction and advances applied_seq; used by live writes and replay alike. */
export function appliedSeq(db: Database): number {
  return metaNumber(db, 'applied_seq', 0);
}

/**
 * Advances applied_seq to `seq` after `added` more writes were applied. The database also counts
 * the writes its history accounts for ('accounted_seqs'): in a database built write by write from
 * seq 1 the count equals applied_seq, and one rebuilt from only part of the journal (a snapshot that
 * lost the writes before it) falls short, which an open reports as damage (docs/storage.md,
 * "Verifying snapshots").
 */
export function setAppliedSeq(db: Database, seq: number, added: number): void {
  setMetaNumber(db, 'applied_seq', seq);
  run(db, "UPDATE meta SET value = CAST(CAST(value AS INTEGER) + ? AS TEXT) WHERE key = 'accounted_seqs'", [added]);
}

/** How many writes the database's history accounts for; null in a database from before the count was kept. */
export function accountedSeqs(db: Database): number | null {
  const value = metaNumber(db, 'accounted_seqs', -1);
  return value < 0 ? null : value;
}

/**
 * Starts the count where it cannot be checked: a database from before it was kept (trusted as it
 * stands), or one opened with an accepted loss (the writes given up are accounted for by the loss).
 */
export function settleAccountedSeqs(db: Database, seq: number): void {
  setMetaNumber(db, 'accounted_seqs', seq);
}
