// Archival in the store (docs/archival.md, "Headless archival"): a range of a session's turns is
// copied whole into a new holder session, a child of that session, and the parent gets one System
// turn, the marker (`[archived turn]`, the holder's key, the summary). One write, so a failure
// leaves nothing half-done. Nothing is removed from the parent: its transcript keeps its shape and
// the holder's turns stay readable through the holder.

import { archiveRangeProblem, archivedMarker, nextHolderKey, summaryOfTurns, type ArchiveSummary } from '../core/archival';
import { BatonError } from '../core/errors';
import { turnHash } from '../core/hash';
import type { CommandContext } from './commands';
import { recordTranscript, upsertSession } from './commands';
import { all } from './db';
import { requireWritableSessionRow, writableSessionRow } from './ownership';
import { readTurns, stripSessionPrefix } from './queries';

export const HOLDER_TYPE = 'holder';
export const HOLDER_HARNESS = 'baton';

export interface ArchiveTurnsArgs {
  agentId?: string;
  key: string;
  from: number;
  to: number;
  /** The summary text; none: a deterministic summary of the turns. */
  summary?: string;
  /** The holder's key; none: the next `<key>/holder-N`. */
  holderKey?: string;
  title?: string;
}

export interface ArchiveTurnsResult {
  sessionKey: string;
  holderKey: string;
  from: number;
  to: number;
  archived: number;
  marker: string;
}

export function archiveTurns(ctx: CommandContext, args: ArchiveTurnsArgs): ArchiveTurnsResult {
  const parent = requireWritableSessionRow(ctx.db, args.agentId, args.key);
  const problem = archiveRangeProblem(args.from, args.to, parent.turn_count);
  if (problem) throw new BatonError('invalid_request', `range: ${problem}`);
  const agentId = parent.agent_id;
  const key = parent.session_key;
  const holderKey = args.holderKey ? stripSessionPrefix(args.holderKey) : nextHolderKey(key, holderKeysInUse(ctx, agentId, key));
  if (holderKey === key) throw new BatonError('invalid_request', 'holderKey: must differ from the session archived');
  if (writableSessionRow(ctx.db, agentId, holderKey)) throw new BatonError('conflict', `holderKey: session ${holderKey} already exists`);

  const turns = readTurns(ctx.db, parent.id, args.from, args.to - args.from + 1);
  upsertSession(ctx, {
    agentId,
    key: holderKey,
    harness: HOLDER_HARNESS,
    project: parent.project,
    parentSessionKey: key,
    lineageSource: 'explicit',
    harnessAgentType: HOLDER_TYPE,
    title: args.title ?? `archived turns ${args.from}-${args.to} of ${key}`,
    status: 'active',
  });
  // The holder is new, so the whole range is "the source so far": every turn is kept, repeats included.
  recordTranscript(ctx, { agentId, key: holderKey, turns: turns.map((t) => ({ role: t.role, text: t.text, at: t.at ?? undefined })) });

  const summary: ArchiveSummary = args.summary?.trim()
    ? { kind: 'paragraph', text: args.summary.trim() }
    : { kind: 'structured', value: summaryOfTurns(turns) };
  const marker = archivedMarker(holderKey, summary);
  // Appended as it is, without moving the parent's source cursor (its harness's transcript is untouched).
  ctx.emit({
    t: 'turns',
    agentId,
    key,
    turns: [{ role: 'system', text: marker, at: ctx.now(), hash: turnHash('system', marker) }],
    cursor: { sourceTurns: parent.source_turns, sourceHash: parent.source_hash, pending: JSON.parse(parent.pending_turns) as string[] },
    at: ctx.now(),
  });
  return { sessionKey: key, holderKey, from: args.from, to: args.to, archived: turns.length, marker };
}

/** The agent's sessions keyed `<key>/holder-…`, wherever they hang now: a key in use is never reused. */
function holderKeysInUse(ctx: CommandContext, agentId: string, key: string): string[] {
  const prefix = `${key}/holder-`;
  return all<{ session_key: string }>(ctx.db, 'SELECT session_key FROM sessions WHERE agent_id = ? AND substr(session_key, 1, ?) = ?', [
    agentId,
    prefix.length,
    prefix,
  ]).map((r) => r.session_key);
}
