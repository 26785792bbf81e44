// GitHub Copilot CLI's hooks mapped onto the sessions & hooks API (docs/harnesses.md, "GitHub
// Copilot CLI"). Baton installs the camelCase events: their payloads carry `sessionId`, `cwd` and,
// inside a sub-agent, its `agentId` and the `parentAgentId` that started it, but not the event's
// name, which the installed command gives (`--event`, HookRun.event).
// - The session is keyed by its sessionId, a sub-agent by its agentId (which its own hooks also
//   send as their sessionId); a sub-agent's parent is its parentAgentId, exact at any depth.
// - subagentStart opens the child before its first model request and hands it the inherited block
//   as a top-level `additionalContext`, ended by a `## Task` heading: Copilot CLI puts it before the
//   sub-agent's task, and the sub-agent's own first prompt hook stores the task from behind it.
// - The session's log ($COPILOT_HOME/session-state/<id>/events.jsonl) holds its sub-agents' events
//   too: the server reads the session's own lines (events.ts), and the hook sends each sub-agent's
//   turns itself, taken from the log by agentId. Copilot CLI writes the log in batches, shortly
//   after a hook starts: a hook that reads it first waits (briefly) until the log records the
//   hook's own start, so everything before the event is in it.

import * as path from 'node:path';
import { taskBehindContext, TASK_HEADING } from '../../core/handedContext';
import { asObj, parseJsonLines, type Obj } from '../../core/normalize';
import { ESSENTIAL_RESERVE_MS, existing, HookInputError, payloadFilesOf, Steps } from '../claudeStyleHooks';
import type { ApiPoster, HarnessHooks, HookOutput, HookRun } from '../harness';
import type { PayloadFiles } from '../../node/payloadFiles';
import { cliTurns, isSystemNotification, loggedSubagents, turnMessages, type LoggedSubagent } from './events';
import { EVENTS_FILE, sessionStateDir } from './paths';

export const HARNESS = 'copilot-cli';

/**
 * The camelCase events Baton's hook file installs, each with its name on the command line (the
 * payloads do not name their event): a session's start, prompts, its sub-agents' start and stop,
 * the end of each turn and of the session.
 */
export const COPILOT_CLI_EVENTS = ['sessionStart', 'userPromptSubmitted', 'subagentStart', 'subagentStop', 'agentStop', 'sessionEnd'] as const;

/** The most of a session's log a hook reads to find a sub-agent's task and turns (it is parsed whole). */
const LOG_MAX_BYTES = 16 * 1024 * 1024;

/** How long a hook waits for the log to record its own start, at most (within the hook's budget). */
const CATCH_UP_MS = 400;
const CATCH_UP_POLL_MS = 25;

/** Without the hook command's reporting (tests): failed steps go unrecorded. */
const UNREPORTED: HookRun = { stepFailed: () => undefined };

export interface CopilotCliPayload {
  sessionId?: string;
  cwd?: string;
  source?: string;
  prompt?: string;
  agentId?: string;
  agentType?: string;
  agentName?: string;
  parentAgentId?: string;
  transcriptPath?: string;
  response?: string;
  reason?: string;
  /** When Copilot CLI fired the hook (epoch ms): the log's hook.start record of this hook carries it too. */
  timestamp?: number;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value ? value : undefined;
}

function payloadOf(raw: Record<string, unknown>): CopilotCliPayload {
  return {
    sessionId: text(raw.sessionId),
    cwd: text(raw.cwd),
    source: text(raw.source),
    prompt: typeof raw.prompt === 'string' ? raw.prompt : undefined,
    agentId: text(raw.agentId),
    agentType: text(raw.agentType),
    agentName: text(raw.agentName),
    parentAgentId: text(raw.parentAgentId),
    transcriptPath: text(raw.transcriptPath),
    response: typeof raw.response === 'string' ? raw.response : undefined,
    reason: text(raw.reason),
    timestamp: typeof raw.timestamp === 'number' ? raw.timestamp : undefined,
  };
}

/** True once the log holds this hook's own start: every event before it is written. */
function recordsHook(records: Obj[], event: string, p: CopilotCliPayload): boolean {
  return records.some((r) => {
    if (r.type !== 'hook.start') return false;
    const data = asObj(r.data);
    const input = asObj(data?.input);
    return data?.hookType === event && input?.timestamp === p.timestamp && input?.agentId === p.agentId;
  });
}

/** The context for the model, where Copilot CLI reads it (top level), and in the shared shape. */
function context(event: string, inject: unknown, suffix = ''): HookOutput | null {
  if (typeof inject !== 'string' || !inject.trim()) return null;
  const text = inject + suffix;
  return { hookSpecificOutput: { hookEventName: event, additionalContext: text }, additionalContext: text };
}

class CopilotCliHook {
  readonly steps: Steps;
  readonly project: string | undefined;
  /** The one read of the log this hook makes (records()): every step after the first uses it. */
  private logRead: Promise<Obj[] | undefined> | undefined;

  constructor(
    readonly event: string,
    readonly p: CopilotCliPayload,
    readonly client: ApiPoster,
    run: HookRun,
    readonly files: PayloadFiles,
    /**
     * The session's log: the payload's transcriptPath, else where Copilot CLI keeps the session's
     * (a sub-agent's prompt names neither). It may not exist yet: Copilot CLI creates it late.
     */
    readonly logPath: string | undefined,
  ) {
    this.steps = new Steps(run);
    this.project = p.cwd ? path.resolve(p.cwd) : undefined;
  }

  static create(event: string, raw: Record<string, unknown>, client: ApiPoster, run: HookRun): CopilotCliHook {
    const p = payloadOf(raw);
    if (!p.sessionId) throw new HookInputError('sessionId: is required');
    const own = p.agentId ? undefined : path.join(sessionStateDir(), p.sessionId, EVENTS_FILE);
    return new CopilotCliHook(event, p, client, run, payloadFilesOf(run), p.transcriptPath ?? own);
  }

  /** The key of the session the hook fired in: the sub-agent's agentId inside a sub-agent, else the sessionId. */
  get key(): string {
    return this.p.agentId ?? this.p.sessionId!;
  }

  base(sessionKey = this.key) {
    return { harness: HARNESS, sessionKey, project: this.project };
  }

  /**
   * The log's records once it holds this hook's start (Copilot CLI writes it in batches, and
   * creates it at its first), or as they are when that takes longer than the wait allows
   * (undefined while there is no readable log).
   */
  records(): Promise<Obj[] | undefined> {
    this.logRead ??= this.readCaughtUp();
    return this.logRead;
  }

  private async readCaughtUp(): Promise<Obj[] | undefined> {
    const until = Date.now() + Math.max(0, Math.min(CATCH_UP_MS, this.steps.left() - ESSENTIAL_RESERVE_MS));
    for (;;) {
      const body = await this.files.text(this.logPath, LOG_MAX_BYTES);
      const records = body === null ? undefined : parseJsonLines(body);
      if (records && (this.p.timestamp === undefined || recordsHook(records, this.event, this.p))) return records;
      if (!this.logPath || Date.now() >= until) return records;
      await new Promise((resolve) => setTimeout(resolve, CATCH_UP_POLL_MS));
    }
  }

  /** The log, once caught up with this hook, when it may be named on to the API (else undefined). */
  async log(): Promise<string | undefined> {
    await this.records();
    return existing(this.files, this.logPath);
  }

  /** A sub-agent's turns from the log, sent as the hooks of other harnesses send message lists (stored turns are skipped). */
  async syncSubagent(agentId: string): Promise<void> {
    const records = await this.records();
    const turns = records ? cliTurns(records, agentId) : [];
    if (turns.length) await this.client.call('userPromptSubmit', { body: { ...this.base(agentId), transcript: turnMessages(turns) } });
  }

  /**
   * The session the log is of: its folder's name. Inside a nested sub-agent the payload's sessionId
   * is an id Copilot CLI uses nowhere else, so it is never taken for the session.
   */
  get rootId(): string | undefined {
    return this.logPath ? path.basename(path.dirname(this.logPath)) : this.p.agentId ? undefined : this.p.sessionId;
  }

  /** The session's own transcript brought up to date from its log (the server reads its own lines). */
  async refreshSession(): Promise<void> {
    const root = this.rootId;
    const log = await this.log();
    if (root && log) await this.client.call('userPromptSubmit', { body: { ...this.base(root), transcriptPath: log } });
  }

  async handle(): Promise<HookOutput | null> {
    const p = this.p;
    switch (this.event) {
      case 'sessionStart': {
        const r = await this.client.call('sessionStart', { body: { ...this.base(), source: p.source } });
        return context(this.event, r.inject);
      }
      case 'userPromptSubmitted':
        return this.prompt();
      case 'subagentStart':
        return this.subagentStart();
      case 'subagentStop': {
        if (!p.agentId) throw new HookInputError('agentId: is required for subagentStop');
        await this.steps.optional('sync-subagent', () => this.syncSubagent(p.agentId!));
        await this.steps.essential('end-child', () =>
          this.client.call('sessionEnd', {
            body: { ...this.base(p.agentId), status: 'completed', reason: 'subagent-stop', lastAssistantMessage: p.response, background: true },
          }),
        );
        return null;
      }
      case 'agentStop':
        // A sub-agent's turn ended: its turns so far; the session's: its transcript.
        if (p.agentId) await this.steps.optional('sync-subagent', () => this.syncSubagent(p.agentId!), 0);
        else await this.steps.optional('transcript', () => this.refreshSession(), 0);
        return null;
      case 'sessionEnd':
        // Copilot CLI may fire it twice (-p with background sub-agents, the first before they end):
        // the second changes no turn or lineage, and moves the end to when the session really ended.
        await this.steps.withTranscriptOrWithout('transcript', 'end', await this.log(), (file) =>
          this.client.call('sessionEnd', { body: { ...this.base(), transcriptPath: file, reason: p.reason, background: true } }),
        );
        return null;
      default:
        return null;
    }
  }

  async prompt(): Promise<HookOutput | null> {
    const p = this.p;
    if (p.agentId) {
      // A sub-agent's first prompt is its task behind the block handed to it at subagentStart.
      const task = p.prompt ? taskBehindContext(p.prompt) : undefined;
      if (task?.trim()) await this.client.call('userPromptSubmit', { body: { ...this.base(), userPrompt: task } });
      return null;
    }
    // A background sub-agent's completion notice comes as a prompt: it is not the user's (the log keeps it as a system turn).
    if (isSystemNotification(p.prompt)) {
      await this.steps.optional('transcript', () => this.refreshSession(), 0);
      return null;
    }
    // The prompt is in the payload: the log is named as it is, without waiting for it.
    const log = await existing(this.files, this.logPath);
    const r = await this.steps.withTranscriptOrWithout('transcript', 'prompt', log, (file) =>
      this.client.call('userPromptSubmit', { body: { ...this.base(), transcriptPath: file, userPrompt: p.prompt } }),
    );
    return context(this.event, r.inject);
  }

  async subagentStart(): Promise<HookOutput | null> {
    const p = this.p;
    if (!p.agentId) throw new HookInputError('agentId: is required for subagentStart');
    // A nested sub-agent's hook names an internal sessionId: its spawner is parentAgentId.
    const parent = p.parentAgentId ?? p.sessionId!;
    const records = await this.records();
    // The parent brought up to date first (the block is built from it); when that fails the child
    // still opens, inheriting what the store holds.
    await this.steps.optional('refresh-parent', () => (parent === this.rootId ? this.refreshSession() : this.syncSubagent(parent)));
    const logged: LoggedSubagent | undefined = records ? loggedSubagents(records).find((s) => s.agentId === p.agentId) : undefined;
    const r = await this.steps.essential('open-child', () =>
      this.client.call('sessionStart', {
        body: {
          ...this.base(p.agentId),
          parentSessionKey: logged?.parentAgentId ?? parent,
          harnessAgentId: p.agentId,
          harnessAgentType: p.agentType ?? logged?.agentType ?? p.agentName,
          title: logged?.description?.slice(0, 500),
          // The `task` call's prompt, when the log already holds it: the block is chosen for it.
          ...(logged?.prompt ? { task: logged.prompt.slice(0, 20_000) } : {}),
        },
      }),
    );
    // Its task is stored by its own first prompt hook, from behind the heading.
    return context(this.event, r.inject, `\n\n${TASK_HEADING}`);
  }
}

/** One Copilot CLI hook: `event` is the name the installed command gives (HookRun.event). */
export async function handleCopilotCliEvent(raw: Record<string, unknown>, client: ApiPoster, run: HookRun = UNREPORTED): Promise<HookOutput | null> {
  const event = run.event ?? '';
  if (!(COPILOT_CLI_EVENTS as readonly string[]).includes(event)) throw new HookInputError('--event: names no Copilot CLI event Baton installs');
  return CopilotCliHook.create(event, raw, client, run).handle();
}

export const copilotCliHooks: HarnessHooks = {
  events: COPILOT_CLI_EVENTS,
  handle: (payload, client, run) => handleCopilotCliEvent(payload, client, run),
};

/** This harness's entry in the hook command (dist/hook.js), found by the build under these names: HARNESS and hooks (scripts/dev/hookMappingsPlugin.mjs). */
export { copilotCliHooks as hooks };
