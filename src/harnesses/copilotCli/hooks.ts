// GitHub Copilot CLI's hooks mapped onto the sessions & hooks API (docs/harnesses.md, "GitHub
// Copilot CLI"). Baton installs the camelCase events: their payloads carry `sessionId`, `cwd` and,
// inside a sub-agent, its `agentId` and the `parentAgentId` that started it, but not the event's
// name, which the installed command gives (`--event`, HookRun.event).
// - The session is keyed by its sessionId, a sub-agent by its agentId (which its own hooks also
//   send as their sessionId); a sub-agent's parent is its parentAgentId, exact at any depth.
// - subagentStart opens the child before its first model request and hands it the inherited block
//   as a top-level `additionalContext`, which Copilot CLI puts before the sub-agent's task. Its task
//   (the `task` call's prompt) is read from the session's log, where `subagent.started` is already
//   written when the hook runs.
// - The session's log ($COPILOT_HOME/session-state/<id>/events.jsonl) holds its sub-agents' events
//   too: the server reads the session's own lines (events.ts), and the hook sends each sub-agent's
//   turns itself, taken from the log by agentId.

import * as path from 'node:path';
import { INHERIT_HEADING } from '../../core/inherit';
import { parseJsonLines, type Obj } from '../../core/normalize';
import { existing, HookInputError, payloadFilesOf, Steps } from '../claudeStyleHooks';
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
  };
}

/** The context for the model, where Copilot CLI reads it (top level), and in the shared shape. */
function context(event: string, inject: unknown): HookOutput | null {
  if (typeof inject !== 'string' || !inject.trim()) return null;
  return { hookSpecificOutput: { hookEventName: event, additionalContext: inject }, additionalContext: inject };
}

class CopilotCliHook {
  readonly steps: Steps;
  readonly project: string | undefined;

  constructor(
    readonly event: string,
    readonly p: CopilotCliPayload,
    readonly client: ApiPoster,
    run: HookRun,
    readonly files: PayloadFiles,
    /** The session's log when `files` may read it: the payload's transcriptPath, else where Copilot CLI keeps it. */
    readonly log: string | undefined,
  ) {
    this.steps = new Steps(run);
    this.project = p.cwd ? path.resolve(p.cwd) : undefined;
  }

  static async create(event: string, raw: Record<string, unknown>, client: ApiPoster, run: HookRun): Promise<CopilotCliHook> {
    const p = payloadOf(raw);
    if (!p.sessionId) throw new HookInputError('sessionId: is required');
    const files = payloadFilesOf(run);
    // Only the session's own events name no agentId; its log sits where Copilot CLI keeps sessions.
    const own = p.agentId ? undefined : path.join(sessionStateDir(), p.sessionId, EVENTS_FILE);
    const log = await existing(files, p.transcriptPath ?? own);
    return new CopilotCliHook(event, p, client, run, files, log);
  }

  /** The key of the session the hook fired in: the sub-agent's agentId inside a sub-agent, else the sessionId. */
  get key(): string {
    return this.p.agentId ?? this.p.sessionId!;
  }

  base(sessionKey = this.key) {
    return { harness: HARNESS, sessionKey, project: this.project };
  }

  async records(): Promise<Obj[] | undefined> {
    const body = await this.files.text(this.log, LOG_MAX_BYTES);
    return body === null ? undefined : parseJsonLines(body);
  }

  /** A sub-agent's turns from the log, sent as the hooks of other harnesses send message lists (stored turns are skipped). */
  async syncSubagent(agentId: string, records?: Obj[]): Promise<void> {
    const all = records ?? (await this.records());
    const turns = all ? cliTurns(all, agentId) : [];
    if (turns.length) await this.client.call('userPromptSubmit', { body: { ...this.base(agentId), transcript: turnMessages(turns) } });
  }

  /** The session's own transcript brought up to date from its log (the server reads its own lines). */
  async refreshSession(extra: { lastAssistantMessage?: string } = {}) {
    return this.steps.withTranscriptOrWithout('transcript', 'last-message', this.log, (file) =>
      this.client.call('userPromptSubmit', { body: { ...this.base(this.p.sessionId), transcriptPath: file, ...extra } }),
    );
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
            body: { ...this.base(p.agentId), status: 'completed', reason: 'subagent-stop', lastAssistantMessage: p.response },
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
        // Copilot CLI may fire it twice (-p with background sub-agents): ending again changes nothing.
        await this.steps.withTranscriptOrWithout('transcript', 'end', this.log, (file) =>
          this.client.call('sessionEnd', { body: { ...this.base(), transcriptPath: file, reason: p.reason } }),
        );
        return null;
      default:
        return null;
    }
  }

  async prompt(): Promise<HookOutput | null> {
    const p = this.p;
    if (p.agentId) {
      // A sub-agent's first prompt is its task (behind the block Baton handed it), already stored
      // at subagentStart; later prompts are its own.
      if (p.prompt?.trim() && !(await this.isTaskDelivery(p.agentId, p.prompt)))
        await this.client.call('userPromptSubmit', { body: { ...this.base(), userPrompt: p.prompt } });
      return null;
    }
    // A background sub-agent's completion notice comes as a prompt: it is not the user's (the log keeps it as a system turn).
    if (isSystemNotification(p.prompt)) {
      await this.steps.optional('transcript', () => this.refreshSession(), 0);
      return null;
    }
    const r = await this.steps.withTranscriptOrWithout('transcript', 'prompt', this.log, (file) =>
      this.client.call('userPromptSubmit', { body: { ...this.base(), transcriptPath: file, userPrompt: p.prompt } }),
    );
    return context(this.event, r.inject);
  }

  /** True when a sub-agent's prompt is its `task` call's prompt, with or without the inherited block before it. */
  async isTaskDelivery(agentId: string, prompt: string): Promise<boolean> {
    if (prompt.trimStart().startsWith(INHERIT_HEADING)) return true;
    const records = await this.records();
    const task = records
      ? loggedSubagents(records)
          .find((s) => s.agentId === agentId)
          ?.prompt?.trim()
      : undefined;
    return task !== undefined && prompt.trim().endsWith(task);
  }

  async subagentStart(): Promise<HookOutput | null> {
    const p = this.p;
    if (!p.agentId) throw new HookInputError('agentId: is required for subagentStart');
    // A nested sub-agent's hook names an internal sessionId: its spawner is parentAgentId.
    const parent = p.parentAgentId ?? p.sessionId!;
    const records = await this.records();
    // The parent brought up to date first (the block is built from it); when that fails the child
    // still opens, inheriting what the store holds.
    await this.steps.optional('refresh-parent', () => (p.parentAgentId && records ? this.syncSubagent(p.parentAgentId, records) : this.refreshSession()));
    const logged: LoggedSubagent | undefined = records ? loggedSubagents(records).find((s) => s.agentId === p.agentId) : undefined;
    const r = await this.steps.essential('open-child', () =>
      this.client.call('sessionStart', {
        body: {
          ...this.base(p.agentId),
          parentSessionKey: logged?.parentAgentId ?? parent,
          harnessAgentId: p.agentId,
          harnessAgentType: p.agentType ?? logged?.agentType ?? p.agentName,
          title: logged?.description?.slice(0, 500),
        },
      }),
    );
    if (logged?.prompt)
      await this.steps.optional('task', () => this.client.call('userPromptSubmit', { body: { ...this.base(p.agentId), userPrompt: logged.prompt } }), 0);
    return context(this.event, r.inject);
  }
}

/** One Copilot CLI hook: `event` is the name the installed command gives (HookRun.event). */
export async function handleCopilotCliEvent(raw: Record<string, unknown>, client: ApiPoster, run: HookRun = UNREPORTED): Promise<HookOutput | null> {
  const event = run.event ?? '';
  if (!(COPILOT_CLI_EVENTS as readonly string[]).includes(event)) throw new HookInputError('--event: names no Copilot CLI event Baton installs');
  return (await CopilotCliHook.create(event, raw, client, run)).handle();
}

export const copilotCliHooks: HarnessHooks = {
  events: COPILOT_CLI_EVENTS,
  handle: (payload, client, run) => handleCopilotCliEvent(payload, client, run),
};

/** This harness's entry in the hook command (dist/hook.js), found by the build under these names: HARNESS and hooks (scripts/dev/hookMappingsPlugin.mjs). */
export { copilotCliHooks as hooks };
