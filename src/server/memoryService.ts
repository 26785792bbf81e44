// The memory side of the API: remember/recall, compaction, mid-session checkpoints, temporal
// summaries and the MEMORY.md projection. Deterministic: no language model on these paths.

import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BatonError } from '../core/errors';
import { redactSecrets } from '../core/redact';
import type { StoreAccess } from '../store/store';
import type { RecallOptions } from '../store/memoryQueries';
import { writeFileAtomic } from '../node/fsync';
import { stripSessionPrefix } from '../core/sessionKey';
import { InheritService } from './inheritService';
import { readScope, writeAgent, type Caller } from './security';

const CHECKPOINT_MIN_DELTA = 500;
const LEASE_MS = 10 * 60 * 1000;

export const COMPACTION_GUIDELINES = [
  'Summarise this session so another agent can continue it:',
  '- the goal and the current state of the work;',
  '- decisions taken and why, constraints that must keep holding;',
  '- files, commands and identifiers that matter (exact names);',
  '- open questions and the next step.',
  'Keep it factual and short; do not include secrets.',
].join('\n');

export interface RecallInput extends RecallOptions {
  sessionKey?: string;
  agentId?: string;
}

/** First `max` characters of a text on a word boundary. */
function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max);
  return cut.slice(0, Math.max(cut.lastIndexOf(' '), max - 20)) + '…';
}

export class MemoryService {
  private readonly leases = new Map<string, { id: string; until: number }>();

  constructor(
    private readonly store: StoreAccess,
    private readonly dataDir: string,
  ) {}

  /** True when the hook's session is bypassed: memory hooks then answer as no-ops. */
  async bypassed(caller: Caller, sessionKey: string | undefined): Promise<boolean> {
    if (!sessionKey) return false;
    const s = await this.store.read('getSession', { scope: readScope(caller), key: sessionKey });
    return s?.bypassed ?? false;
  }

  async remember(
    caller: Caller,
    input: { content: string; sessionKey?: string; agentId?: string; project?: string; type?: string; tags?: string; who?: string; importance?: number },
  ) {
    const agentId = writeAgent(caller, input.agentId);
    const { id } = await this.store.write('addMemory', {
      agentId,
      sessionKey: input.sessionKey ? stripSessionPrefix(input.sessionKey) : null,
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

  async recall(caller: Caller, input: RecallInput) {
    let scope = readScope(caller);
    if (scope === 'all' && input.agentId) scope = { agentId: input.agentId };
    const results = await this.store.read('recall', { scope, ...input, limit: Math.max(1, Math.min(input.limit ?? 10, 50)) });
    const shaped = results.map((r) => ({ ...r, content: redactSecrets(r.content) }));
    const message =
      shaped.length === 0
        ? 'No matching memories found.'
        : ['Relevant memories:', ...shaped.map((r) => `- ${r.content}${r.createdAt ? ` (${r.createdAt.slice(0, 10)})` : ''}`)].join('\n');
    return {
      results: shaped,
      memories: shaped,
      count: shaped.length,
      query: input.query,
      method: 'keyword',
      meta: { totalReturned: shaped.length, hasSupplementary: false, noHits: shaped.length === 0 },
      message,
    };
  }

  preCompaction() {
    return { guidelines: COMPACTION_GUIDELINES, summaryPrompt: COMPACTION_GUIDELINES };
  }

  /** A compaction summary becomes a memory, a temporal node and the session's newest checkpoint. */
  async compactionComplete(caller: Caller, input: { summary: string; sessionKey?: string; project?: string; agentId?: string; compactionPath?: string }) {
    // Only a session this caller may write gets the checkpoint (another agent's key is not ours).
    const agentId = writeAgent(caller, input.agentId);
    const key = input.sessionKey ? stripSessionPrefix(input.sessionKey) : null;
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
      const rules = await new InheritService(this.store).extractRules(agentId, session.key, (previous?.extractionCursor ?? 0) + 1);
      await this.store.write('addCheckpoint', {
        agentId,
        key: session.key,
        digest: input.summary,
        focalEntities: [...new Set([...rules.entities, ...(previous?.focalEntities ?? [])])].slice(0, 12),
        source: 'compaction',
      });
    }
    const contextEpoch = session ? await this.store.read('compactionCount', { agentId, key: session.key }) : 1;
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
    const rules = await new InheritService(this.store).extractRules(range.agentId, range.key, range.fromSeq);
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

  async summaries(caller: Caller, opts: { sessionKey?: string; limit?: number }) {
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
    return { enabled: true, model: 'projection', schedule: 'on-request', thresholds: { sessionLedgerDays: 30, globalHeadLimit: 20 }, deterministic: true };
  }

  private memoryFile(agentId: string): string {
    return path.join(this.dataDir, 'memory', agentId.replace(/[^A-Za-z0-9_.-]/g, '_'), 'MEMORY.md');
  }

  /** The MEMORY.md projection; takes the agent head's lease until synthesis/complete (or expiry). */
  async synthesis(caller: Caller, input: { agentId?: string; sessionKey?: string }) {
    const agentId = writeAgent(caller, input.agentId);
    const scope = { agentId };
    const since = new Date(Date.now() - 30 * 86_400_000).toISOString();
    const [memories, summaries, ledger, open] = await Promise.all([
      this.store.read('topMemories', { scope, limit: 20 }),
      this.store.read('summaries', { scope, limit: 50 }),
      this.store.read('listSessions', { scope, since, limit: 200 }),
      this.store.read('listSessions', { scope, status: 'active', limit: 50 }),
    ]);
    const heads = summaries.filter((s) => s.kind === 'compaction' || s.kind === 'session').slice(0, 20);
    const index = [
      '## Temporal Index',
      ...summaries.map((s) => `- ${s.created_at.slice(0, 16)} ${s.kind} ${s.id}${s.session_key ? ` (session ${s.session_key})` : ''}`),
    ].join('\n');
    const sections = [
      '# Memory',
      '',
      '## Global Head (Tier 1)',
      ...(memories.length ? memories.map((m) => `- ${redactSecrets(clip(m.content, 300))}`) : ['- (none yet)']),
      '',
      '## Thread Heads (Tier 2)',
      ...(heads.length ? heads.map((h) => `- ${h.session_key ?? h.id}: ${redactSecrets(clip(h.content, 300))}`) : ['- (none yet)']),
      '',
      '## Session Ledger (Last 30 Days)',
      ...(ledger.sessions.length
        ? ledger.sessions.map(
            (s) => `- ${s.createdAt.slice(0, 10)} ${s.key} (${s.harness}${s.project ? `, ${s.project}` : ''}) ${s.status}, ${s.turnCount} turns`,
          )
        : ['- (none)']),
      '',
      '## Open Threads',
      ...(open.sessions.length ? open.sessions.map((s) => `- ${s.key} (${s.harness}) active since ${s.createdAt.slice(0, 16)}`) : ['- (none)']),
      '',
      '## Durable Notes & Constraints',
      '- (see entity constraints in the inherited context)',
      '',
      index,
      '',
    ];
    const leaseId = crypto.randomUUID();
    this.leases.set(agentId, { id: leaseId, until: Date.now() + LEASE_MS });
    return { prompt: sections.join('\n'), model: 'projection', indexBlock: index, leaseId, agentId };
  }

  /** Writes MEMORY.md (backing up the old one); 409 while another writer holds the agent head's lease. */
  async synthesisComplete(caller: Caller, input: { content: string; agentId?: string; leaseId?: string }) {
    const agentId = writeAgent(caller, input.agentId);
    const lease = this.leases.get(agentId);
    if (lease && lease.until > Date.now() && lease.id !== input.leaseId) {
      throw new BatonError('conflict', `another writer holds the MEMORY.md lease for agent "${agentId}"`);
    }
    const file = this.memoryFile(agentId);
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    if (fs.existsSync(file)) fs.copyFileSync(file, `${file}.${new Date().toISOString().replace(/[:.]/g, '-')}.bak`);
    writeFileAtomic(file, input.content);
    this.leases.delete(agentId);
    return { success: true, path: file };
  }
}
