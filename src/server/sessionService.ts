// The session side of the API: hook lifecycle (start with lineage and inherited context, prompt
// submit, end), session reads, search, tree, inherited-block previews and bypass. HTTP-free, so
// the VS Code extension and the MCP endpoint use the same code as the routes.

import { BatonError } from '../core/errors';
import { assembleInheritBlock, type InheritBlock, type InheritSettings } from '../core/inherit';
import { chooseProfile, type ChosenProfile, type InheritProfile } from '../core/inheritProfiles';
import { redactSecrets } from '../core/redact';
import { formatSubagentDigest } from '../core/subagentDigest';
import type { ExecutionMode, Turn } from '../core/types';
import type { SessionRecord } from '../core/session';
import { repriceSessionSpend } from '../core/spend';
import { DEFAULT_PRICES, type PriceTable } from '../core/prices';
import type { ParentWriter } from '../core/agents';
import { claimExpiresAt, stripSessionPrefix } from '../core/sessionKey';
import type { StoreAccess } from '../store/store';
import type { ClaimGuard } from '../store/claimGuard';
import type { ReadResult } from '../store/reads';
import type { TurnPool } from '../store/queries';
import type { ServerConfig } from './config';
import { readScope, writeAgent, type Caller } from './security';
import { readTranscriptLines, type ByteWindow, type TranscriptRead } from './transcriptSource';
import { readTranscriptOffThread } from './transcriptReader';
import { decideLineage, normalizeTranscript, parentFromKey, reparentSource } from '../harnesses/registry';
import { tailMark, type TranscriptFileCursor } from '../core/fileCursor';
import { hashText } from '../core/hash';
import { messageListFrom, START_STATE } from '../core/normalize';
import { assembleForkBlock } from '../core/forkBlock';
import { SpawnIntents, type SpawnIntent } from './spawnIntents';

export interface SessionStartInput {
  harness: string;
  sessionKey?: string;
  project?: string;
  agentId?: string;
  harnessAgentId?: string;
  harnessAgentType?: string;
  parentSessionKey?: string | null;
  propagatedParent?: string | null;
  executionMode?: ExecutionMode;
  runtimePath?: string;
  title?: string;
  source?: string;
  /** False when the caller does not hand this start's `inject` to the model: no memories are taken for it. */
  injectMemories?: boolean;
  /** `discarded`: the host drops context answered to a child started again under its id (a resume), so none is built. */
  resumeContext?: 'discarded';
  /** The child's task: its block holds the parent's turns chosen for it (docs/inheritance.md). */
  task?: string;
}

/** A spawn call a harness reported before its sub-agent's start (docs/inheritance.md, "The child's task"). */
export interface SpawnInput {
  harness: string;
  agentId?: string;
  sessionKey: string;
  rootKey?: string;
  toolUseId: string;
  agentType?: string;
  task?: string;
  fork?: boolean;
  spawningText?: string;
}

export interface TranscriptWriteInput {
  harness: string;
  sessionKey: string;
  project?: string;
  agentId?: string;
  runtimePath?: string;
  transcriptPath?: string;
  transcript?: unknown;
  transcriptChunk?: TranscriptChunk;
  /** `transcript` holds only the messages after this point of the session's list (docs/api.md). */
  transcriptFrom?: InlineCursor;
  userMessage?: string;
  userPrompt?: string;
  lastAssistantMessage?: string;
}

/**
 * Bytes of a transcript file a hook read itself, because the file is not under the server's
 * roots (docs/security.md, "Transcripts outside the roots"): from `offset`, which must be where
 * the session's last chunk of that path stopped (its tail mark too), or 0 to send it from the start.
 */
export interface TranscriptChunk {
  path: string;
  offset: number;
  /** base64 */
  data: string;
  tailMark: string;
  /** Whether `data` reaches the end of the file as the hook saw it (else more follows next time). */
  eof: boolean;
}

export interface SearchInput {
  query: string;
  sessionKey?: string;
  currentSessionKey?: string;
  agentId?: string;
  project?: string;
  limit?: number;
}

/** Who a child written by this caller (for `agentId`, the agent a request names) resolves its parent for. */
export function parentWriter(caller: Caller, agentId: string | undefined): ParentWriter {
  return { agentId: writeAgent(caller, agentId), admin: caller.agentId === null };
}

/** The documented session-status shape: every field of the record, when its claim expires, and its spend priced with the configured table. */
export function sessionStatus(s: SessionRecord, ttlMs?: number, prices?: PriceTable) {
  // The store priced it with the shipped table: only a configured one prices it again.
  const repriced = prices && prices !== DEFAULT_PRICES ? { spend: repriceSessionSpend(s.spend, prices) } : {};
  return { ...s, expiresAt: claimExpiresAt(s.claimedAt, ttlMs), ...repriced };
}

/** The cursor key (and identity) of a session's inline message lists. */
const INLINE_PATH = ':inline';

/** Where a session's inline message lists stopped: how many messages, and the mark of the last. */
export interface InlineCursor {
  messages: number;
  mark: string;
}

/** Recognises a message again in the next list: a hash of its JSON. */
function messageMark(message: unknown): string {
  return hashText(JSON.stringify(message) ?? '');
}

/** The identity of a transcript whose bytes a hook sends: the server never opened it. */
const CLIENT_IDENTITY = 'client';

export class SessionService {
  /** Spawn calls waiting for their sub-agent's start. */
  private readonly intents = new SpawnIntents();

  constructor(
    private readonly store: StoreAccess,
    private readonly config: ServerConfig,
  ) {}

  /**
   * A harness is about to start a sub-agent: its task, spawner and (for a fork) the spawning text
   * are kept for the start. Answers once the starts before it of the same type were claimed.
   */
  async recordSpawn(caller: Caller, input: SpawnInput): Promise<{ recorded: boolean; waitedMs: number }> {
    const agentId = writeAgent(caller, input.agentId);
    const rootKey = input.rootKey ?? input.sessionKey;
    const { waitedMs } = await this.intents.record({
      agentId,
      harness: input.harness,
      rootKey,
      spawnerKey: input.sessionKey,
      toolUseId: input.toolUseId,
      agentType: input.agentType?.trim() || 'general-purpose',
      task: input.task?.trim() || null,
      fork: input.fork === true,
      spawningText: input.spawningText?.trim() || null,
    });
    return { recorded: true, waitedMs };
  }

  /**
   * The spawn call a starting child answers to, when its harness reported one. A child that already
   * exists (started again: a resume) takes none: the intent waiting is a new sibling's.
   */
  private async claimSpawn(agentId: string, input: SessionStartInput, sessionKey: string): Promise<SpawnIntent | null> {
    const root = input.parentSessionKey;
    if (!root || !input.harnessAgentId || !this.intents.pending(agentId, input.harness, root)) return null;
    if (await this.store.read('writableSession', { agentId, key: sessionKey })) return null;
    return this.intents.claim(agentId, input.harness, root, input.harnessAgentType, input.harnessAgentId);
  }

  get inheritSettings(): InheritSettings {
    return { inheritContext: this.config.inheritContext, tailChars: this.config.tailChars, maxTokens: this.config.inheritMaxTokens };
  }

  /**
   * The profile and budget a child of `agentType` in `agentId` inherits with: the agent's own
   * budget and default profile when configured, else the server's (docs/inheritance.md, "Profiles").
   */
  profileFor(agentId: string, agentType: string | null | undefined, requested?: InheritProfile): ChosenProfile {
    const own = this.config.inheritAgents[agentId];
    const rules = own?.defaultProfile ? { ...this.config.inheritProfiles, defaultProfile: own.defaultProfile } : this.config.inheritProfiles;
    return chooseProfile(rules, agentType, own?.maxTokens ?? this.config.inheritMaxTokens, requested);
  }

  private blockFrom(sources: ReadResult<'inheritSources'>, chosen: ChosenProfile, task?: string, spawn?: SpawnIntent | null): InheritBlock | null {
    if (!sources) return null;
    // A fork holds the parent's conversation already: it gets only what its copy lacks.
    if (chosen.profile === 'fork') return assembleForkBlock(sources, { spawningText: spawn?.spawningText ?? null, maxTokens: chosen.maxTokens });
    return assembleInheritBlock({ ...sources, task }, { ...this.inheritSettings, maxTokens: chosen.maxTokens, profile: chosen.profile });
  }

  /** The parent's turns a child's task chooses from: read only when there is a task. */
  private turnPoolFor(task: string | undefined): TurnPool | undefined {
    return task?.trim() ? { maxTurns: this.config.inheritPoolTurns, maxChars: this.config.inheritPoolChars } : undefined;
  }

  async sessionStart(caller: Caller, input: SessionStartInput, newKey: () => string) {
    const agentId = writeAgent(caller, input.agentId);
    const sessionKey = input.sessionKey ?? newKey();
    // The spawn call names the exact spawner (a nested sub-agent's, which the start does not) and the task.
    const spawn = await this.claimSpawn(agentId, input, sessionKey);
    const explicitParent = spawn?.spawnerKey ?? input.parentSessionKey ?? null;
    const task = input.task?.trim() || spawn?.task || undefined;
    const started = await this.store.write('startSession', {
      agentId,
      key: sessionKey,
      harness: input.harness,
      project: input.project ?? null,
      explicitParent,
      propagatedParent: input.propagatedParent ?? null,
      harnessAgentId: input.harnessAgentId ?? null,
      harnessAgentType: input.harnessAgentType ?? null,
      task: task ?? null,
      // The harnesses' lineage signals are decided here, not in the store (it knows no harness).
      lineage: decideLineage({
        harness: input.harness,
        sessionKey,
        explicitParent,
        propagatedParent: input.propagatedParent ?? null,
        harnessAgentId: input.harnessAgentId ?? null,
      }),
      executionMode: input.executionMode ?? null,
      runtimePath: input.runtimePath,
      title: input.title ?? null,
      readableAgent: caller.agentId ?? 'all',
      claimTtlMs: this.config.claimTtlMs,
      inheritTailChars: this.config.tailChars,
      // Read only for a child with a task: this one's, or the one stored at its earlier start.
      inheritTurnPool: { maxTurns: this.config.inheritPoolTurns, maxChars: this.config.inheritPoolChars },
      // Taken (and ledgered) in the same write: a concurrent second start cannot take them again.
      startMemories:
        this.config.startMemories && input.injectMemories !== false
          ? { maxTokens: this.config.startMemoriesMaxTokens, maxMemories: this.config.startMemoriesLimit }
          : undefined,
    });
    if (started.bypassed) return { sessionKey, agentId: started.agentId, bypassed: true, inject: '' };
    if (input.source === 'clear' && input.project && !started.parentSessionKey) {
      // Claude Code sends no SessionEnd on /clear: the session it replaces ends now.
      await this.store.write('endPreviousSessions', {
        agentId: started.agentId,
        project: input.project,
        harness: input.harness,
        exceptKey: sessionKey,
        reason: 'clear',
      });
    }
    // After a compaction the harness starts the session again (Claude Code: source `compact`).
    if (input.source === 'compact') await this.store.write('markCompacted', { agentId: started.agentId, key: sessionKey });
    // startSession returned the parent's sources with the write: no second round trip to the store.
    // A fork (Codex says so only in its spawn call) inherits as the `fork` agent type does.
    const chosen = this.profileFor(started.agentId, spawn?.fork ? 'fork' : input.harnessAgentType);
    // A child started again under its id (a resume) whose host discards what is answered gets no second block.
    const resumed = started.skipped && Boolean(input.harnessAgentId) && input.resumeContext === 'discarded';
    const inherited = started.parentSessionKey && !resumed ? this.blockFrom(started.inheritSources ?? null, chosen, started.task ?? task, spawn) : null;
    const told = started.startMemories;
    // The memories come after a child's inherited block, within a budget of their own.
    const inject = [inherited?.text ?? '', told?.text ?? ''].filter((part) => part.trim()).join('\n\n');
    return {
      sessionKey,
      agentId: started.agentId,
      parentSessionKey: started.parentSessionKey,
      lineageSource: started.lineageSource,
      ...(started.skipped ? { skipped: true } : {}),
      ...(resumed ? { resumed: true } : {}),
      ...(task ? { task } : {}),
      inject,
      inherited: inherited
        ? {
            chars: inherited.chars,
            estimatedTokens: inherited.estimatedTokens,
            sections: inherited.sections,
            profile: chosen.profile,
            budget: inherited.budget,
            ...(inherited.selection ? { selection: inherited.selection } : {}),
          }
        : null,
      memories: (told?.memories ?? []).map((m) => ({ ...m, content: redactSecrets(m.content) })),
      ...(told?.memories.length ? { contextEpoch: told.contextEpoch } : {}),
    };
  }

  /** prompt submit and session end: the transcript delta, with the payload's own turns when the file lags. */
  async writeTranscript(
    caller: Caller,
    input: TranscriptWriteInput,
    end?: { reason: string | null; status: 'ended' | 'completed' | 'failed'; parentSessionKey?: string; followUpJob?: string },
  ) {
    const agentId = writeAgent(caller, input.agentId);
    const fromPayload: Turn[] = [];
    // The last reply closes the previous exchange, so it comes before the new prompt.
    if (input.lastAssistantMessage?.trim()) fromPayload.push({ role: 'assistant', text: input.lastAssistantMessage.trim() });
    const prompt = (input.userMessage ?? input.userPrompt)?.trim();
    if (prompt) fromPayload.push({ role: 'user', text: prompt });
    const write = (turns: Turn[], read?: TranscriptRead) =>
      this.store.write('touchSession', {
        agentId,
        key: input.sessionKey,
        harness: input.harness,
        project: input.project ?? null,
        runtimePath: input.runtimePath,
        turns,
        fromPayload,
        continuation: read?.continuation,
        // A file read from its start becomes the source the cursor describes; an inline list keeps the old rule (a shorter copy does not move it).
        file: read?.cursor ? { path: read.path, cursor: read.cursor, complete: read.complete, adopt: read.path !== INLINE_PATH } : undefined,
        end: end && { ...end, reparentSource: reparentSource(input.harness) },
        claimTtlMs: this.config.claimTtlMs,
      });
    if (Array.isArray(input.transcript)) return this.writeMessageList(agentId, input, input.transcript, write);
    if (input.transcriptFrom) throw new BatonError('invalid_request', 'transcriptFrom goes with a transcript message list');
    if (input.transcript !== undefined && input.transcript !== null) {
      const raw = typeof input.transcript === 'string' ? input.transcript : JSON.stringify(input.transcript);
      return write(normalizeTranscript(raw, { harness: input.harness }));
    }
    if (input.transcriptChunk) return this.writeChunk(agentId, input, input.transcriptChunk, write);
    if (!input.transcriptPath) return write([]);
    const transcriptPath = input.transcriptPath;
    const key = input.sessionKey;
    // From where the last read stopped when the file is still that one; once again in full when
    // it was rewritten, or when the session's cursor moved on since (docs/storage.md).
    // Read, checked and parsed on the transcript worker: the main thread only answers with the cursor.
    const readFile = (full: boolean) =>
      readTranscriptOffThread(
        { transcriptPath, roots: this.config.transcriptRoots, harness: input.harness, maxBytes: this.config.maxTranscriptBytes, full },
        (path) => this.store.read('transcriptFile', { agentId, key, path }),
      );
    // Another hook of the session may have written in between (stale): its read moved the cursor,
    // so read on from there once more before reading the whole file again.
    for (let attempt = 0; attempt < 2; attempt++) {
      const read = await readFile(false);
      const written = await write(read.turns, read);
      if (!written.stale) return written;
    }
    const again = await readFile(true);
    return write(again.turns, again);
  }

  /**
   * An inline message list: only what follows the messages the session's last list covered is
   * parsed. A client that knows that point (`transcriptFrom`, from the last reply) sends only the
   * messages after it; a whole list whose covered part is unchanged skips that part.
   */
  private async writeMessageList<T extends { stale?: boolean; fileKept?: boolean }>(
    agentId: string,
    input: TranscriptWriteInput,
    list: unknown[],
    write: (turns: Turn[], read?: TranscriptRead) => Promise<T>,
  ): Promise<T & { transcriptCursor: InlineCursor }> {
    const key = input.sessionKey;
    const from = await this.store.read('transcriptFile', { agentId, key, path: INLINE_PATH });
    const given = input.transcriptFrom;
    const conflict = () => new BatonError('conflict', 'transcriptFrom does not match what is stored; send the whole message list');
    let start: number | null = null;
    if (given) {
      if (!from || from.offset !== given.messages || from.tail !== given.mark) throw conflict();
      start = 0;
    } else if (from && from.offset > 0 && list.length >= from.offset && messageMark(list[from.offset - 1]) === from.tail) {
      start = from.offset;
    }
    const total = given ? given.messages + list.length : list.length;
    const last = list.length > 0 ? messageMark(list[list.length - 1]) : (from?.tail ?? '');
    const read = (resumed: TranscriptFileCursor | null, messages: unknown[]): TranscriptRead => {
      const parsed = messageListFrom(messages, resumed?.parse ?? START_STATE);
      return {
        path: INLINE_PATH,
        turns: parsed.turns,
        cursor: { identity: INLINE_PATH, offset: total, tail: last, format: 'messages-json', parse: parsed.state },
        complete: true,
        ...(resumed ? { continuation: { sourceTurns: resumed.sourceTurns, sourceHash: resumed.sourceHash, sourceChars: resumed.sourceChars } } : {}),
      };
    };
    const cursorOf = (written: T): InlineCursor => (written.fileKept ? { messages: total, mark: last } : { messages: 0, mark: '' });
    if (start !== null) {
      const resumed = read(from, list.slice(start));
      const written = await write(resumed.turns, resumed);
      if (!written.stale) return { ...written, transcriptCursor: cursorOf(written) };
      if (given) throw conflict();
    }
    const whole = read(null, list);
    const written = await write(whole.turns, whole);
    return { ...written, transcriptCursor: cursorOf(written) };
  }

  /** A transcript chunk a hook read itself: applied from where the session's last chunk of that path stopped. */
  private async writeChunk<T extends { stale?: boolean }>(
    agentId: string,
    input: TranscriptWriteInput,
    chunk: TranscriptChunk,
    write: (turns: Turn[], read?: TranscriptRead) => Promise<T>,
  ): Promise<T> {
    const key = input.sessionKey;
    const from = chunk.offset === 0 ? null : await this.store.read('transcriptFile', { agentId, key, path: chunk.path });
    const conflict = () => new BatonError('conflict', 'transcriptChunk does not continue what is stored; send it from the offset transcript-cursor names');
    if (
      chunk.offset !== 0 &&
      (!from || from.identity !== CLIENT_IDENTITY || from.offset !== chunk.offset || tailMark(Buffer.from(from.tail, 'base64')) !== chunk.tailMark)
    ) {
      throw conflict();
    }
    const data = Buffer.from(chunk.data, 'base64');
    const window: ByteWindow & { path: string } = {
      path: chunk.path,
      identity: CLIENT_IDENTITY,
      // Past the data when the hook has more: its last line may be torn.
      size: chunk.offset + data.length + (chunk.eof ? 0 : 1),
      read: async (offset, length) => data.subarray(Math.max(0, offset - chunk.offset), Math.max(0, offset - chunk.offset) + length),
    };
    const read = await readTranscriptLines(window, from, input.harness, data.length + 1);
    if (read === 'restart') {
      await this.store.write('forgetTranscriptFile', { agentId, key, path: chunk.path });
      throw conflict();
    }
    const written = await write(read.turns, read);
    if (written.stale) {
      await this.store.write('forgetTranscriptFile', { agentId, key, path: chunk.path });
      throw conflict();
    }
    return written;
  }

  /** Where the session's chunks of a hook-read transcript stopped: the offset and tail mark to continue from (0 and '' to start over). */
  async transcriptCursor(caller: Caller, input: { sessionKey: string; agentId?: string; path: string }) {
    const agentId = writeAgent(caller, input.agentId);
    const from = await this.store.read('transcriptFile', { agentId, key: input.sessionKey, path: input.path });
    if (!from || from.identity !== CLIENT_IDENTITY) return { offset: 0, tailMark: '' };
    return { offset: from.offset, tailMark: tailMark(Buffer.from(from.tail, 'base64')) };
  }

  async entityInject(agentId: string, prompt: string): Promise<string> {
    if (!prompt.trim()) return '';
    const context = await this.store.read('entityContext', { agentId, prompt, minScore: this.config.promptMinScore });
    if (context.length === 0) return '';
    return ['## Entity context', ...context.map((c) => `- ${c.entity} (${c.kind}): ${redactSecrets(c.content)}`)].join('\n');
  }

  /**
   * A session by key; `agentId` names whose row (docs/security.md, "Reads by key name the agent"):
   * the admin gets that agent's row, an agent token that agent's row only when it may read it (else
   * 404, as for a key that does not exist). Without it: the caller's own row, else the newest it reads.
   */
  async getSession(caller: Caller, key: string, agentId?: string): Promise<SessionRecord> {
    const session = await this.store.read('getSession', { scope: readScope(caller), key, agentId });
    if (!session) throw new BatonError('not_found', `session ${stripSessionPrefix(key)} not found`);
    return session;
  }

  /**
   * The session a parent key means for a new child of this caller, written for `agentId` (the
   * agent a request names; docs/security.md, "Parents belong to the child's agent"). The admin's
   * child lives in the named agent, else the default one, and its parent is that agent's own row;
   * an agent token's is its own row, else the newest row of the key it may read.
   */
  async parentSession(caller: Caller, key: string, agentId?: string): Promise<SessionRecord> {
    const session = await this.store.read('parentSession', { writer: parentWriter(caller, agentId), key });
    if (!session) throw new BatonError('not_found', `session ${stripSessionPrefix(key)} not found`);
    return session;
  }

  async transcript(caller: Caller, key: string, agentId?: string) {
    const t = await this.store.read('transcript', { scope: readScope(caller), key, agentId });
    if (t.turnCount === 0) throw new BatonError('not_found', `no transcript for session ${stripSessionPrefix(key)}`);
    return { sessionKey: t.sessionKey, agentId: t.agentId, content: t.content };
  }

  async search(caller: Caller, input: SearchInput) {
    let scope = readScope(caller);
    if (scope === 'all' && input.agentId) scope = { agentId: input.agentId };
    if (scope !== 'all' && input.agentId && input.agentId !== scope.agentId) throw new BatonError('forbidden', `this token reads as agent "${scope.agentId}"`);
    const limit = input.limit ?? 5;
    const found = await this.store.read('sessionSearch', {
      scope,
      query: input.query,
      sessionKey: input.sessionKey,
      currentSessionKey: input.currentSessionKey,
      parentNamedByKey: input.currentSessionKey ? parentFromKey(input.currentSessionKey) : null,
      project: input.project,
      limit,
    });
    const searchedParent = found.searchedParent;
    const out = found.hits.map((h) => ({
      sessionKey: h.sessionKey,
      title: h.title,
      project: h.project,
      updatedAt: h.updatedAt,
      excerpt: redactSecrets(h.excerpt),
      rank: h.rank,
      harness: h.harness,
      parentSessionKey: h.parentSessionKey,
      turnSeq: h.turnSeq,
      agentId: h.agentId,
    }));
    // A query that names a session finds that session, even when its words are not in any transcript.
    const named = found.named?.session;
    if (named && !out.some((h) => h.sessionKey === named.key)) {
      out.unshift({
        sessionKey: named.key,
        title: named.title ?? null,
        project: named.project,
        updatedAt: named.updatedAt,
        excerpt: redactSecrets(found.named!.tail.replace(/\s+/g, ' ')),
        rank: 0,
        harness: named.harness,
        parentSessionKey: named.parentSessionKey,
        turnSeq: 1,
        agentId: named.agentId,
      });
      out.splice(limit);
    }
    return { query: input.query, hits: out, count: out.length, ...(searchedParent ? { searchedSession: searchedParent } : {}) };
  }

  /**
   * Records a session a compaction names before any hook did (no turns yet), so the summary has a
   * session to become the checkpoint of (docs/inheritance.md, "Checkpoint summary"). A known session is
   * left as it is: no claim, no timestamp moves.
   */
  async recordNamedSession(caller: Caller, input: { harness: string; sessionKey: string; project?: string; agentId?: string }): Promise<void> {
    const agentId = writeAgent(caller, input.agentId);
    if (await this.store.read('writableSession', { agentId, key: input.sessionKey })) return;
    await this.store.write('touchSession', {
      agentId,
      key: input.sessionKey,
      harness: input.harness,
      project: input.project ?? null,
      turns: [],
      fromPayload: [],
      claimTtlMs: this.config.claimTtlMs,
    });
  }

  /** Marks a compaction of the session: its next prompt gets the "Sub-agents of this session" section. */
  async markCompacted(caller: Caller, input: { sessionKey?: string; agentId?: string }): Promise<void> {
    if (input.sessionKey) await this.store.write('markCompacted', { agentId: writeAgent(caller, input.agentId), key: input.sessionKey });
  }

  /** The section for a prompt after a compaction (taken once), '' when none is due or there were no sub-agents. */
  async subagentsAfterCompaction(agentId: string, key: string): Promise<string> {
    const due = await this.store.write('takeSubagentsDue', { agentId, key });
    return due ? formatSubagentDigest(due.children, true) : '';
  }

  /** What the session's sub-agents did: each child's type, task, status and result, and the section text. */
  async subagents(caller: Caller, key: string, agentId?: string) {
    const { sessionKey, children } = await this.store.read('subagents', { scope: readScope(caller), key, agentId });
    return { sessionKey, children, count: children.length, text: formatSubagentDigest(children, false) };
  }

  /**
   * The runtime-path claim guard of a write route that is not a lifecycle hook (docs/inheritance.md,
   * "Rules"): the session it writes and the path it writes from, which the store checks in the same
   * step as each of the route's writes (store/claimGuard.ts). No key, no path: no guard.
   */
  claimGuard(caller: Caller, input: { sessionKey?: string; agentId?: string; runtimePath?: string }): ClaimGuard | null {
    if (!input.sessionKey || !input.runtimePath) return null;
    return {
      agentId: writeAgent(caller, input.agentId),
      key: stripSessionPrefix(input.sessionKey),
      runtimePath: input.runtimePath,
      ttlMs: this.config.claimTtlMs,
    };
  }

  /**
   * The exact block a new child of the session would receive now; of a given agent type or
   * profile, on request. `agentId` names the agent: for the admin, the agent the child would be
   * written for (its parent is that agent's row of the key, as at session start); for an agent
   * token, another agent it may read, whose row is then shown.
   */
  async inheritedPreview(caller: Caller, key: string, child: { agentType?: string; profile?: InheritProfile; agentId?: string; task?: string } = {}) {
    const named = caller.agentId !== null && child.agentId !== undefined && child.agentId !== caller.agentId;
    const session = named ? await this.getSession(caller, key, child.agentId) : await this.parentSession(caller, key, child.agentId);
    // The child would live in the caller's agent (a write's agent); the admin previews for the parent's.
    const chosen = this.profileFor(caller.agentId ?? session.agentId, child.agentType, child.profile);
    // Exactly the row found above: its agent's own row of the key.
    const exactly = { agentId: session.agentId, admin: true };
    const block = this.blockFrom(
      await this.store.read('inheritSources', {
        writer: exactly,
        parentKey: session.key,
        tailChars: this.config.tailChars,
        turnPool: this.turnPoolFor(child.task),
      }),
      chosen,
      child.task,
    );
    return {
      sessionKey: session.key,
      block: block?.text ?? '',
      empty: block === null,
      sections: block?.sections ?? null,
      constraintOrigins: block?.constraintOrigins ?? [],
      chars: block?.chars ?? 0,
      estimatedTokens: block?.estimatedTokens ?? 0,
      budget: block?.budget ?? null,
      profile: { name: chosen.profile, maxTokens: chosen.maxTokens, reason: chosen.reason, agentType: child.agentType ?? null },
      profiles: { defaultProfile: this.config.inheritProfiles.defaultProfile, byAgentType: this.config.inheritProfiles.byAgentType },
      settings: this.inheritSettings,
      parentUpdatedAt: session.updatedAt,
      selection: block?.selection ?? null,
    };
  }
}
