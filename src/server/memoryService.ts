// The memory side of the API: remember/recall, compaction, mid-session checkpoints, temporal
// summaries and the MEMORY.md projection. Deterministic: no language model on these paths.

import * as crypto from 'node:crypto';
import * as path from 'node:path';
import { BatonError } from '../core/errors';
import { redactSecrets } from '../core/redact';
import type { StoreAccess } from '../store/store';
import type { RecallOptions } from '../store/memoryQueries';
import { silentLogger, type Logger } from '../core/logger';
import type { InheritService } from './inheritService';
import { readScope, requirePermission, writeAgent, type Caller } from './security';
import { DEFAULT_AGENT } from '../core/agents';
import { aggregateBrief, recallList, type AggregateBudget } from '../core/recallBrief';
import { renderProjection } from '../core/memoryProjection';
import { rememberEndedSession } from './sessionMemory';
import { writeMemoryFile } from './memoryFile';

const CHECKPOINT_MIN_DELTA = 500;
/** How long a synthesis holds the MEMORY.md head when the server is not told otherwise. */
export const DEFAULT_LEASE_MS = 10 * 60 * 1000;

export interface MemoryServiceOptions {
  logger?: Logger;
  /** How long a synthesis holds the agent's MEMORY.md head (docs/memory.md). */
  leaseMs?: number;
}

export const COMPACTION_GUIDELINES = [
  'Summarise this session so another agent can continue it:',
  '- the goal and the current state of the work;',
  '- decisions taken and why, constraints that must keep holding;',
  '- files, commands and identifiers that matter (exact names);',
  '- open questions and the next step.',
  'Keep it factual and short; do not include secrets.',
].join('\n');

export interface RecallInput extends Omit<RecallOptions, 'notRecalledIn'> {
  sessionKey?: string;
  agentId?: string;
  includeRecalled?: boolean;
  aggregate?: boolean;
  aggregateBudget?: AggregateBudget;
  saveAggregate?: boolean;
}

/** First `max` characters of a text on a word boundary. */
function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max);
  return cut.slice(0, Math.max(cut.lastIndexOf(' '), max - 20)) + '…';
}

export class MemoryService {
  private readonly logger: Logger;
  private readonly leaseMs: number;

  constructor(
    private readonly store: StoreAccess,
    private readonly dataDir: string,
    /** Extracts the rules of the turns a checkpoint covers. */
    private readonly inherit: InheritService,
    options: MemoryServiceOptions = {},
  ) {
    this.logger = options.logger ?? silentLogger;
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  }

  /** After a session ends: its memories and summary node (sessionMemory.ts); never fails the end. */
  async sessionEnded(agentId: string, key: string) {
    return rememberEndedSession(this.store, this.logger, agentId, key);
  }

  /**
   * True when the hook's session is bypassed: memory hooks then answer as no-ops. The session is
   * the hook's writer's own of the key (the token's agent, or the one the admin names, else the
   * default one): another agent's bypass of its own session of the key decides nothing here
   * (docs/security.md, "Sessions belong to their agent").
   */
  async bypassed(caller: Caller, sessionKey: string | undefined, agentId?: string): Promise<boolean> {
    if (!sessionKey) return false;
    const s = await this.store.read('writableSession', { agentId: caller.agentId ?? agentId ?? DEFAULT_AGENT, key: sessionKey });
    return s?.bypassed ?? false;
  }

  async remember(
    caller: Caller,
    input: { content: string; sessionKey?: string; agentId?: string; project?: string; type?: string; tags?: string; who?: string; importance?: number },
  ) {
    const agentId = writeAgent(caller, input.agentId);
    const { id } = await this.store.write('addMemory', {
      agentId,
      sessionKey: input.sessionKey ?? null,
      project: input.project ?? null,
      content: input.content,
      type: input.type ?? null,
      tags: input.tags ?? null,
      who: input.who ?? null,
      importance: input.importance ?? 0.8,
      sourceType: 'remember',
    });
    return { success: true, memoryId: id, id };
  }

  /**
   * Recall (docs/memory.md): the query as typed, then its question form; with a sessionKey, memories
   * the session's context already holds in its current epoch are left out (unless includeRecalled)
   * and those returned are written to the ledger. An aggregate recall answers one brief within its
   * budget, and saveAggregate keeps that brief as a memory. Every door recalls here (the hook,
   * POST /api/memory/recall and the tools and CLI over it): one ranking, one ledger. `sessionMustExist`
   * (the general route) refuses a session the writer has no row of (404) instead of keeping a
   * ledger for it; the hook takes keys of sessions its harness has not reported yet.
   */
  async recall(caller: Caller, input: RecallInput, opts: { sessionMustExist?: boolean } = {}) {
    let scope = readScope(caller);
    if (scope === 'all' && input.agentId) scope = { agentId: input.agentId };
    const aggregate = input.aggregate === true || input.saveAggregate === true;
    // Saving a brief writes a memory: that needs the remember permission as well.
    if (input.saveAggregate) requirePermission(caller, 'remember');
    const ledgerAgent = caller.agentId ?? input.agentId ?? DEFAULT_AGENT;
    const sessionKey = input.sessionKey;
    if (sessionKey && opts.sessionMustExist && !(await this.store.read('writableSession', { agentId: ledgerAgent, key: sessionKey })))
      throw new BatonError('not_found', `session ${sessionKey} not found`);
    const epoch = sessionKey ? await this.store.read('contextEpoch', { agentId: ledgerAgent, sessionKey }) : undefined;
    const limit = input.limit ?? (aggregate ? 25 : 10);
    const { hits, supplementary } = await this.store.read('recall', {
      scope,
      query: input.query,
      keywordQuery: input.keywordQuery,
      project: input.project,
      type: input.type,
      tags: input.tags,
      who: input.who,
      since: input.since,
      until: input.until,
      limit,
      notRecalledIn: sessionKey && epoch !== undefined && !input.includeRecalled ? { agentId: ledgerAgent, sessionKey, epoch } : undefined,
    });
    const shaped = hits.map((r) => ({ ...r, content: redactSecrets(r.content) }));
    if (sessionKey && epoch !== undefined && shaped.length) {
      await this.store.write('recordRecalled', { agentId: ledgerAgent, sessionKey, epoch, memoryIds: shaped.map((r) => r.id) });
    }
    const brief = aggregate ? aggregateBrief(input.query, shaped, input.aggregateBudget ?? 'medium') : undefined;
    let aggregateMemoryId: string | undefined;
    if (brief && input.saveAggregate && brief.included > 0) {
      const saved = await this.store.write('addMemory', {
        agentId: writeAgent(caller, input.agentId),
        sessionKey: sessionKey ?? null,
        project: input.project ?? null,
        content: brief.text,
        type: 'aggregate',
        tags: [...new Set(shaped.map((r) => r.type).filter((t): t is string => !!t))].join(',') || null,
        importance: 0.6,
        sourceType: 'recall-aggregate',
      });
      aggregateMemoryId = saved.id;
    }
    return {
      results: shaped,
      memories: shaped,
      count: shaped.length,
      query: input.query,
      method: 'keyword',
      meta: { totalReturned: shaped.length, hasSupplementary: supplementary, noHits: shaped.length === 0 },
      message: brief ? brief.text : recallList(shaped),
      ...(brief ? { aggregate: brief } : {}),
      ...(aggregateMemoryId ? { aggregateMemoryId } : {}),
      ...(epoch !== undefined ? { contextEpoch: epoch } : {}),
    };
  }

  /** The recall shape with nothing in it, for the no-op cases (a bypassed session, an internal call). */
  emptyRecall(query: string) {
    return {
      results: [],
      memories: [],
      count: 0,
      query,
      method: 'keyword',
      meta: { totalReturned: 0, hasSupplementary: false, noHits: true },
      message: '',
    };
  }

  preCompaction() {
    return { guidelines: COMPACTION_GUIDELINES, summaryPrompt: COMPACTION_GUIDELINES };
  }

  /** A compaction summary becomes a memory, a temporal node and the session's newest checkpoint. */
  async compactionComplete(caller: Caller, input: { summary: string; sessionKey?: string; project?: string; agentId?: string; compactionPath?: string }) {
    // Only a session this caller may write gets the checkpoint (another agent's key is not ours).
    const agentId = writeAgent(caller, input.agentId);
    const key = input.sessionKey ?? null;
    const session = key ? await this.store.read('writableSession', { agentId, key }) : null;
    const node = await this.store.write('addSummary', {
      agentId,
      kind: 'compaction',
      sourceType: 'compaction',
      sourceRef: key,
      sessionKey: key,
      project: input.project ?? session?.project ?? null,
      content: input.summary,
      score: 0.95,
      // The markdown artifact of this compaction (docs/memory.md, "Session artifacts").
      meta: { source: 'compaction-complete', ...(input.compactionPath ? { compaction_path: input.compactionPath } : {}) },
    });
    const memory = await this.store.write('addMemory', {
      agentId,
      sessionKey: key,
      project: input.project ?? session?.project ?? null,
      content: input.summary,
      type: 'compaction',
      importance: 0.95,
      sourceType: 'compaction',
      sourceId: node.id,
    });
    if (session) {
      // Rules stated since the last checkpoint must outlive the transcript the summary replaces.
      const previous = await this.store.read('latestCheckpoint', { scope: { agentId }, key: session.key });
      const rules = await this.inherit.extractRules(agentId, session.key, (previous?.extractionCursor ?? 0) + 1);
      await this.store.write('addCheckpoint', {
        agentId,
        key: session.key,
        digest: input.summary,
        focalEntities: [...new Set([...rules.entities, ...(previous?.focalEntities ?? [])])].slice(0, 12),
        source: 'compaction',
      });
    }
    // The context epoch is the number of compactions (their summary nodes): recall's ledger starts afresh.
    const contextEpoch = key ? await this.store.read('contextEpoch', { agentId, sessionKey: key }) : 1;
    return { success: true, memoryId: memory.id, summaryId: node.id, contextEpoch };
  }

  /**
   * What a mid-session checkpoint would cover now: the turns after `cursor` (by default the newest
   * checkpoint's), or null when it is skipped: no such session, bypassed, no transcript, or fewer
   * than 500 new characters.
   */
  async checkpointDue(caller: Caller, input: { sessionKey: string; agentId?: string; project?: string }, cursor?: number) {
    const session = await this.store.read('writableSession', { agentId: writeAgent(caller, input.agentId), key: input.sessionKey });
    if (!session || session.bypassed || session.turnCount === 0) return null;
    const scope = { agentId: session.agentId };
    const from = cursor ?? (await this.store.read('latestCheckpoint', { scope, key: session.key }))?.extractionCursor ?? 0;
    const delta = await this.store.read('tail', { scope, key: session.key, chars: 200_000, afterSeq: from });
    if (delta.length < CHECKPOINT_MIN_DELTA) return null;
    return { agentId: session.agentId, key: session.key, project: input.project ?? session.project, fromSeq: from + 1, toSeq: session.turnCount };
  }

  /** The checkpoint of turns fromSeq..toSeq: a summary node scored 0.85, the rules stated there, the advanced cursor. */
  async writeCheckpoint(range: { agentId: string; key: string; project: string | null; fromSeq: number; toSeq: number }) {
    const scope = { agentId: range.agentId };
    const turns = await this.store.read('turns', { scope, key: range.key, from: range.fromSeq, limit: Math.min(2000, range.toSeq - range.fromSeq + 1) });
    const digest = this.deterministicDigest(turns.turns);
    const node = await this.store.write('addSummary', {
      agentId: range.agentId,
      kind: 'checkpoint',
      sourceType: 'checkpoint',
      sourceRef: range.key,
      sessionKey: range.key,
      project: range.project,
      content: digest,
      score: 0.85,
      meta: { source: 'session-checkpoint-extract', fromSeq: range.fromSeq, toSeq: range.toSeq },
    });
    const rules = await this.inherit.extractRules(range.agentId, range.key, range.fromSeq);
    await this.store.write('addCheckpoint', {
      agentId: range.agentId,
      key: range.key,
      digest,
      focalEntities: rules.entities,
      extractionCursor: range.toSeq,
      source: 'checkpoint-extract',
    });
    return { summaryId: node.id, extractionCursor: range.toSeq };
  }

  /** What the new turns were about: the prompts asked and the last answer, clipped. */
  private deterministicDigest(turns: Array<{ role: string; text: string }>): string {
    const prompts = turns.filter((t) => t.role === 'user').map((t) => `- asked: ${clip(t.text, 200)}`);
    const lastAnswer = [...turns].reverse().find((t) => t.role === 'assistant');
    const tools = turns.filter((t) => t.role === 'tool').length;
    return [...prompts.slice(-8), lastAnswer ? `- latest answer: ${clip(lastAnswer.text, 400)}` : '', tools ? `- tool calls/results: ${tools}` : '']
      .filter(Boolean)
      .join('\n');
  }

  async summaries(caller: Caller, opts: { sessionKey?: string; agentId?: string; limit?: number }) {
    const rows = await this.store.read('summaries', { scope: readScope(caller), ...opts });
    return {
      summaries: rows.map((r) => ({
        id: r.id,
        kind: r.kind,
        depth: r.depth,
        source_type: r.source_type,
        source_ref: r.source_ref,
        meta_json: r.meta_json,
        created_at: r.created_at,
      })),
    };
  }

  async expand(caller: Caller, input: { id: string; includeTranscript?: boolean; transcriptCharLimit?: number }) {
    const expanded = await this.store.read('expandSummary', { scope: readScope(caller), ...input });
    if (!expanded) throw new BatonError('not_found', `summary node ${input.id} not found`);
    if (expanded.transcript) expanded.transcript.excerpt = redactSecrets(expanded.transcript.excerpt);
    return expanded;
  }

  synthesisConfig() {
    return {
      enabled: true,
      model: 'projection',
      schedule: 'on-request',
      thresholds: { sessionLedgerDays: 30, globalHeadLimit: 20 },
      leaseMs: this.leaseMs,
      deterministic: true,
    };
  }

  /**
   * The agent whose MEMORY.md head a synthesis is about: the one named, the token's own, or else the
   * agent of the given session (so a session's key alone resolves its head).
   */
  private async headAgent(caller: Caller, input: { agentId?: string; sessionKey?: string }): Promise<string> {
    if (!input.agentId && !caller.agentId && input.sessionKey) {
      const session = await this.store.read('getSession', { scope: readScope(caller), key: input.sessionKey });
      if (session) return session.agentId;
    }
    return writeAgent(caller, input.agentId);
  }

  /**
   * The MEMORY.md projection (core/memoryProjection.ts). Takes the agent head's lease, stored in the
   * database: while another writer holds a live one, a synthesis is refused (409) — after a restart too.
   */
  async synthesis(caller: Caller, input: { agentId?: string; sessionKey?: string; leaseId?: string }) {
    const agentId = await this.headAgent(caller, input);
    const sessionKey = input.sessionKey ?? null;
    const lease = await this.store.write('takeHeadLease', { agentId, sessionKey, leaseId: input.leaseId, leaseMs: this.leaseMs });
    const now = new Date();
    const sources = await this.store.read('headSources', { agentId, since: new Date(now.getTime() - 30 * 86_400_000).toISOString(), headLimit: 20 });
    const redacted = <T extends { content: string }>(rows: T[]) => rows.map((r) => ({ ...r, content: redactSecrets(r.content) }));
    const { markdown, indexBlock } = renderProjection({
      ...sources,
      head: redacted(sources.head),
      openQuestions: redacted(sources.openQuestions),
      constraintMemories: redacted(sources.constraintMemories),
      constraints: redacted(sources.constraints),
      summaries: redacted(sources.summaries),
      agentId,
      sessionKey,
      generatedAt: now.toISOString(),
    });
    return { prompt: markdown, model: 'projection', indexBlock, leaseId: lease.leaseId, leaseExpiresAt: lease.expiresAt, agentId, sessionKey };
  }

  /**
   * Writes the agent's own MEMORY.md (keeping the previous version as its one .bak, memoryFile.ts);
   * 409 while another writer holds the agent head's lease.
   */
  async synthesisComplete(caller: Caller, input: { content: string; agentId?: string; sessionKey?: string; leaseId?: string }) {
    const agentId = await this.headAgent(caller, input);
    // The head's lease is checked and ended in the database, in one step, before the file is written.
    const contentHash = crypto.createHash('sha256').update(input.content).digest('hex');
    const head = await this.store.write('writeHead', { agentId, leaseId: input.leaseId, sessionKey: input.sessionKey, contentHash });
    const file = await writeMemoryFile(path.join(this.dataDir, 'memory'), agentId, input.content, head.previousHash);
    return { success: true, path: file };
  }
}
