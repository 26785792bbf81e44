// One mapping from hook payloads to the sessions & hooks API, for the harnesses whose hooks share
// Claude Code's shape (Claude Code and Codex; docs/harnesses.md shows their payloads). What differs
// between them comes in as quirks from the harness folder:
// - Claude Code's SubagentStart carries the *parent's* transcript_path; Codex's carries the child's.
// - Inside a sub-agent, hooks carry agent_id: the session is then the sub-agent's, not the root's.
// - Nested sub-agents report the root session_id; the exact spawner comes from a file the harness
//   writes beside the sub-agent's transcript (Claude Code: agent-<id>.meta.json `parentAgentId`;
//   Codex: the rollout's session_meta `parent_thread_id`).
// Degrade, never drop: an event is a few independent steps. A step that only prepares (refreshing a
// transcript, re-sending sub-agent files) may fail or run out of its share of the hook's budget;
// it is reported (hooks.log) and the essential step (opening the child, ending the session) still
// runs, with what the store already holds (docs/harnesses.md, "When hooks fail").

import * as path from 'node:path';
import { BatonError } from '../core/errors';
import { EndpointProblem } from '../node/endpointCall';
import { PayloadFiles } from '../node/payloadFiles';
import type { ApiPoster, HookOutput, HookRun } from './harness';

export interface ClaudeStylePayload {
  hook_event_name?: string;
  session_id?: string;
  transcript_path?: string;
  cwd?: string;
  source?: string;
  prompt?: string;
  agent_id?: string;
  agent_type?: string;
  agent_transcript_path?: string;
  last_assistant_message?: string;
  reason?: string;
  compact_summary?: string;
  tool_name?: string;
  tool_input?: unknown;
  tool_use_id?: string;
}

/** A sub-agent about to start, as the harness's spawn call describes it (docs/inheritance.md, "The child's task"). */
export interface SpawnCall {
  agentType: string;
  task: string | null;
  /** True when the child starts with a copy of the spawner's history (its start may not say so). */
  fork?: boolean;
  /** For a fork: the text of the spawning message the harness leaves out of the fork's copy. */
  spawningText?: string | null;
}

/** A payload the mapping cannot use. The message names the field only, never its value (it is logged). */
export class HookInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HookInputError';
  }
}

/** The events Baton's hook command is installed for. */
export const CLAUDE_STYLE_EVENTS = [
  'SessionStart',
  'UserPromptSubmit',
  'SubagentStart',
  'SubagentStop',
  'Stop',
  'PreCompact',
  'PostCompact',
  'SessionEnd',
] as const;

/** A preparing step that did not finish in its share of the budget: the essential step needs the rest. */
export class HookStepTimeout extends Error {
  constructor(ms: number) {
    super(`gave up after ${ms} ms to leave time for the essential step`);
    this.name = 'HookStepTimeout';
  }
}

/** The essential step of an event failed: which step, and the error (the HTTP hook route maps it to a status). */
export class HookStepFailure extends Error {
  constructor(
    readonly step: string,
    readonly error: unknown,
  ) {
    super(`step ${step} failed`);
    this.name = 'HookStepFailure';
  }
}

/** What a preparing step must leave of the hook's budget for the essential one. */
export const ESSENTIAL_RESERVE_MS = 400;

/** Reports a failed step (its error, never the payload); `failed('sync-subagent', err)`. */
export type StepFailed = (step: string, err: unknown) => void;

export interface ClaudeStyleQuirks {
  harness: string;
  /** Whose transcript SubagentStart's transcript_path is. */
  subagentStartTranscript: 'parent' | 'child';
  /** The spawning sub-agent of a nested one, from what the harness wrote (read through `files`); null for the root. */
  spawnerOf(sessionId: string, agentTranscriptPath: string | undefined, files: PayloadFiles): Promise<string | null>;
  /**
   * A prompt the harness itself submits about a sub-agent (Claude Code's `<task-notification>` when
   * a background sub-agent finishes): not the user's words, so it is no prompt of the session.
   */
  isHostNotice?(prompt: string): boolean;
  /**
   * The sub-agent a PreToolUse payload is about to start (the harness's spawn tool), or null for
   * any other tool. `transcriptPath` is the root session's transcript, when it may be read.
   */
  spawnCall?(payload: ClaudeStylePayload, transcriptPath: string | undefined, files: PayloadFiles): Promise<SpawnCall | null>;
  /** The host drops context answered to a sub-agent started again under its id (a resume): none is built. */
  resumeDiscardsContext?: boolean;
  /** Backstop at the end of a turn or session: sub-agent transcripts still being written at their stop. */
  syncSubagents?(
    client: ApiPoster,
    transcriptPath: string | undefined,
    root: string,
    project: string | undefined,
    failed: StepFailed,
    files: PayloadFiles,
  ): Promise<void>;
}

/** A sub-agent's session key mirrors where Claude Code keeps its transcript: <session>/agent-<id>. */
export function subagentKey(sessionId: string, agentId: string): string {
  return `${sessionId}/agent-${agentId}`;
}

/** The file when it may be named on to the API (inside the server: a regular file under its roots); else undefined, whatever the reason. */
export async function existing(files: PayloadFiles, file: string | undefined): Promise<string | undefined> {
  return file && (await files.present(file)) ? file : undefined;
}

/** The files a run's payload names are read through this (the server's, else the hook command's own). */
export function payloadFilesOf(run: HookRun | undefined): PayloadFiles {
  return run?.files ?? PayloadFiles.anywhere();
}

/** How much of a sub-agent's transcript's end is looked at for its final reply. */
const SETTLE_TAIL_BYTES = 1024 * 1024;

/**
 * Claude Code appends a sub-agent's transcript in a few batches and may still be writing it when
 * SubagentStop fires: wait briefly (within the hook's budget) until it holds the final reply. Only
 * a file `files` may read can end the wait early: one outside the roots is never opened, and waits
 * as long as a missing one (docs/security.md, "Reading files a request names").
 */
async function settledTranscript(files: PayloadFiles, file: string | undefined, lastMessage: string | undefined, waitMs: number): Promise<string | undefined> {
  if (!file) return undefined;
  const probe = (lastMessage ?? '').trim().slice(0, 200);
  const text = await tailHolding(files, file, SETTLE_TAIL_BYTES, probe ? JSON.stringify(probe).slice(1, -1) : '', Math.min(400, waitMs));
  return text !== null ? file : existing(files, file);
}

/**
 * The end of a file the harness is still writing, once it holds `probe` (any readable end when
 * `probe` is empty), polling for at most `waitMs`; null when it never did (or the file cannot be
 * read, as one outside the roots never is).
 */
export async function tailHolding(files: PayloadFiles, file: string, maxBytes: number, probe: string, waitMs: number): Promise<string | null> {
  const deadline = Date.now() + Math.max(0, waitMs);
  for (;;) {
    const text = await files.tail(file, maxBytes);
    if (text !== null && (!probe || text.includes(probe))) return text;
    if (Date.now() >= deadline) return null;
    await new Promise((r) => setTimeout(r, 25));
  }
}

function context(event: string, inject: unknown): HookOutput | null {
  return typeof inject === 'string' && inject.trim() ? { hookSpecificOutput: { hookEventName: event, additionalContext: inject } } : null;
}

/**
 * The server turned the request down for what it carried (a transcript it may not or cannot read,
 * too large, failing to parse): sending the same call without the transcript can still succeed.
 * Not a timeout, a lost connection, a bad token or a claim conflict: those would fail again.
 */
export function refusedForContent(err: unknown): boolean {
  if (err instanceof BatonError) return err.code === 'invalid_request' || err.code === 'payload_too_large' || err.code === 'internal';
  return err instanceof EndpointProblem && /: HTTP (400|413|500)\b/.test(err.message);
}

/** Resolves as `work` does, or rejects with HookStepTimeout after `ms` (the work goes on unobserved). */
function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new HookStepTimeout(ms)), ms)));
  work.catch(() => undefined);
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/** The steps of one event: preparing ones report their failure and let the event go on; the essential one throws. */
export class Steps {
  constructor(private readonly run: HookRun) {}

  /** Time a step may take: what is left before `reserveMs` of the deadline (unbounded without a deadline). */
  private share(reserveMs: number): number | undefined {
    return this.run.deadline === undefined ? undefined : this.run.deadline - reserveMs - Date.now();
  }

  /** Time left before the hook's deadline (unbounded without one). */
  left(): number {
    return this.run.deadline === undefined ? Infinity : this.run.deadline - Date.now();
  }

  failed(step: string, err: unknown): void {
    this.run.stepFailed(step, err);
  }

  /** A step whose failure is reported and lets the event go on; `reserveMs` is left for the steps after it. */
  async optional(step: string, work: () => Promise<unknown>, reserveMs = ESSENTIAL_RESERVE_MS): Promise<boolean> {
    const share = this.share(reserveMs);
    try {
      // No time left for it: not even started (a request sent now would only compete with the next step).
      if (share !== undefined && share <= 0) throw new HookStepTimeout(0);
      await (share === undefined ? work() : within(work(), share));
      return true;
    } catch (err) {
      if (err instanceof HookStepFailure) this.failed(err.step, err.error);
      else this.failed(step, err);
      return false;
    }
  }

  async essential<T>(step: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      throw new HookStepFailure(step, err);
    }
  }

  /**
   * A call that names a transcript file, then, if the server refused it for what it carried, the
   * same call without the file: the session still moves on (ended, touched) with what it was sent.
   */
  async withTranscriptOrWithout<T>(
    step: string,
    fallbackStep: string,
    transcriptPath: string | undefined,
    send: (transcriptPath: string | undefined) => Promise<T>,
  ): Promise<T> {
    if (transcriptPath) {
      try {
        return await send(transcriptPath);
      } catch (err) {
        if (!refusedForContent(err)) throw new HookStepFailure(step, err);
        this.failed(step, err);
      }
    }
    return this.essential(fallbackStep, () => send(undefined));
  }
}

const UNREPORTED: HookRun = { stepFailed: () => undefined };

export async function handleClaudeStyleEvent(
  quirks: ClaudeStyleQuirks,
  payload: ClaudeStylePayload,
  client: ApiPoster,
  run: HookRun = UNREPORTED,
): Promise<HookOutput | null> {
  const harness = quirks.harness;
  const event = payload.hook_event_name ?? '';
  const root = payload.session_id;
  if (!root || typeof root !== 'string') throw new HookInputError('session_id: is required');
  const project = payload.cwd ? path.resolve(payload.cwd) : undefined;
  const files = payloadFilesOf(run);
  const transcriptPath = await existing(files, payload.transcript_path);
  const isSubagentEvent = event === 'SubagentStart' || event === 'SubagentStop';
  // A hook fired inside a sub-agent belongs to the sub-agent's session.
  const sessionKey = !isSubagentEvent && payload.agent_id ? subagentKey(root, payload.agent_id) : root;
  const base = { harness, sessionKey, project };
  const steps = new Steps(run);
  const failed: StepFailed = (step, err) => steps.failed(step, err);

  switch (event) {
    case 'SessionStart': {
      const r = await client.call('sessionStart', { body: { ...base, source: payload.source } });
      return context(event, r.inject);
    }
    case 'UserPromptSubmit': {
      // A notice the harness submits is no prompt of the user: the transcript (where it is a
      // system turn) is brought up to date, and nothing is injected for it.
      if (payload.prompt && quirks.isHostNotice?.(payload.prompt)) {
        if (transcriptPath) await steps.optional('transcript', () => client.call('userPromptSubmit', { body: { ...base, transcriptPath } }), 0);
        return null;
      }
      // A refused transcript must not cost the prompt: it is sent again on its own.
      const r = await steps.withTranscriptOrWithout('transcript', 'prompt', transcriptPath, (file) =>
        client.call('userPromptSubmit', { body: { ...base, transcriptPath: file, userPrompt: payload.prompt } }),
      );
      return context(event, r.inject);
    }
    case 'SubagentStart': {
      if (!payload.agent_id) throw new HookInputError('agent_id: is required for SubagentStart');
      // The parent's transcript: bring it up to date first, the block is built from it. When that
      // fails, the child still opens and inherits what the store already holds of the parent.
      if (quirks.subagentStartTranscript === 'parent' && transcriptPath)
        await steps.optional('refresh-parent', () => client.call('userPromptSubmit', { body: { ...base, transcriptPath } }));
      // The child's own transcript: it names the spawner of a nested sub-agent.
      const spawner = quirks.subagentStartTranscript === 'child' ? await quirks.spawnerOf(root, transcriptPath, files) : null;
      const r = await steps.essential('open-child', () =>
        client.call('sessionStart', {
          body: {
            harness,
            sessionKey: subagentKey(root, payload.agent_id!),
            parentSessionKey: spawner ? subagentKey(root, spawner) : root,
            harnessAgentId: payload.agent_id,
            harnessAgentType: payload.agent_type,
            project,
            ...(quirks.resumeDiscardsContext ? { resumeContext: 'discarded' } : {}),
          },
        }),
      );
      return context(event, r.inject);
    }
    case 'PreToolUse': {
      // Only the harness's spawn tool is of interest: the task and spawner of the sub-agent about
      // to start. Never in the tool's way: a failure is reported and the tool runs as it would.
      if (!payload.tool_use_id || !quirks.spawnCall) return null;
      const spawn = await quirks.spawnCall(payload, transcriptPath, files);
      if (!spawn) return null;
      await steps.optional(
        'spawn',
        () =>
          client.call('subagentSpawn', {
            body: {
              harness,
              sessionKey,
              rootKey: root,
              toolUseId: payload.tool_use_id!,
              agentType: spawn.agentType,
              ...(spawn.task ? { task: spawn.task } : {}),
              ...(spawn.fork ? { fork: true } : {}),
              ...(spawn.spawningText ? { spawningText: spawn.spawningText } : {}),
              project,
            },
          }),
        0,
      );
      return null;
    }
    case 'SubagentStop': {
      if (!payload.agent_id) throw new HookInputError('agent_id: is required for SubagentStop');
      const spawner = await quirks.spawnerOf(root, payload.agent_transcript_path, files);
      const agentTranscript = await settledTranscript(
        files,
        payload.agent_transcript_path,
        payload.last_assistant_message,
        steps.left() - ESSENTIAL_RESERVE_MS,
      );
      // A transcript the server refuses still ends the child, with its last message.
      await steps.withTranscriptOrWithout('agent-transcript', 'end-child', agentTranscript, (file) =>
        client.call('sessionEnd', {
          body: {
            harness,
            sessionKey: subagentKey(root, payload.agent_id!),
            transcriptPath: file,
            lastAssistantMessage: payload.last_assistant_message,
            status: 'completed',
            reason: 'subagent-stop',
            project,
            background: true,
            ...(spawner ? { parentSessionKey: subagentKey(root, spawner) } : {}),
          },
        }),
      );
      return null;
    }
    case 'Stop':
      // Two independent steps: the turn's end, then sub-agent files still being written.
      await steps.optional(
        'last-message',
        () =>
          steps.withTranscriptOrWithout('transcript', 'last-message', transcriptPath, (file) =>
            client.call('userPromptSubmit', { body: { ...base, transcriptPath: file, lastAssistantMessage: payload.last_assistant_message } }),
          ),
        0,
      );
      if (!payload.agent_id && quirks.syncSubagents)
        await steps.optional('sync-subagents', () => quirks.syncSubagents!(client, transcriptPath, root, project, failed, files), 0);
      return null;
    case 'PreCompact':
      if (transcriptPath) await steps.optional('transcript', () => client.call('userPromptSubmit', { body: { ...base, transcriptPath } }));
      await steps.essential('pre-compaction', () => client.call('preCompaction', { body: base }));
      return null;
    case 'PostCompact':
      if (payload.compact_summary?.trim()) await client.call('compactionComplete', { body: { ...base, summary: payload.compact_summary } });
      // No summary (Codex): the compaction still happened; the session goes on as after Claude Code's `compact` start.
      // Its reply reaches no model here: no memories are taken for it (docs/memory.md, "At session start").
      else await client.call('sessionStart', { body: { ...base, source: 'compact', injectMemories: false } });
      return null;
    case 'SessionEnd':
      if (!payload.agent_id && quirks.syncSubagents)
        await steps.optional('sync-subagents', () => quirks.syncSubagents!(client, transcriptPath, root, project, failed, files));
      await steps.withTranscriptOrWithout('transcript', 'end', transcriptPath, (file) =>
        client.call('sessionEnd', { body: { ...base, transcriptPath: file, reason: payload.reason, background: true } }),
      );
      return null;
    default:
      return null;
  }
}
