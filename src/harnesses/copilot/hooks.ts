// VS Code agent mode's hooks mapped onto the sessions & hooks API (docs/harnesses.md, "VS Code
// agent mode"). The chat session id is the session key. A sub-agent is a `runSubagent` tool call:
// - PreToolUse(runSubagent) carries its task (`tool_input: {prompt, description}`) and the call id
//   `call_X__vscode-N`: noted (subagentState.ts), nothing stored yet;
// - SubagentStart (`agent_id` = `call_X`, the parent's session_id) opens the child session
//   `<session>/agent-call_X` under that exact parent, with the task as its first prompt, and
//   hands the inherited block back as additionalContext (it reaches the sub-agent's first request);
// - SubagentStop ends the child; PostToolUse(runSubagent) records its result (tool_response).
// Every hook fired inside a sub-agent carries the parent's session id only: its own prompt
// (UserPromptSubmit with the recorded task's text) and its tool calls go to the running child; with
// several running, each takes its own from the transcript at its end (toolOfChild).

import * as path from 'node:path';
import { parseJsonLines, type Obj } from '../../core/normalize';
import { resolveDataDir } from '../../node/paths';
import type { PayloadFiles } from '../../node/payloadFiles';
import { existing, HookInputError, payloadFilesOf, Steps, subagentKey } from '../claudeStyleHooks';
import type { ApiPoster, HarnessHooks, HookOutput, HookRun } from '../harness';
import { normalizeCopilotPayload, responseText, samePrompt, subagentCallId, subagentTask, type CopilotPayload } from './payload';
import { SubagentNotes, type SubagentNote } from './subagentState';
import { copilotTurns, runSubagentArguments } from './transcript';

export const HARNESS = 'copilot';

/** The events VS Code agent mode runs hooks for, all installed. */
export const COPILOT_EVENTS = ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'PreCompact', 'SubagentStart', 'SubagentStop', 'Stop'] as const;

/** The tool through which agent mode starts a sub-agent. */
export const RUN_SUBAGENT = 'runSubagent';

function context(event: string, inject: unknown): HookOutput | null {
  return typeof inject === 'string' && inject.trim() ? { hookSpecificOutput: { hookEventName: event, additionalContext: inject } } : null;
}

/** Without the hook command's reporting (tests, the server's HTTP hooks): failed steps go unrecorded. */
const UNREPORTED: HookRun = { stepFailed: () => undefined };

/**
 * The most of VS Code's hook transcript that is read (it is parsed whole, on the event loop): a
 * larger one counts as unreadable, and the hook goes on with what its payload says.
 */
const TRANSCRIPT_MAX_BYTES = 16 * 1024 * 1024;

/** The sub-agents running now: a tool hook (which names no sub-agent) is one of theirs. */
function runningChildren(notes: SubagentNote[]): SubagentNote[] {
  return notes.filter((n) => n.phase === 'running');
}

class CopilotHook {
  readonly sessionId: string;
  readonly project: string | undefined;
  readonly notes: SubagentNotes;
  /** Failed steps go to hooks.log and the hook health report (docs/harnesses.md, "Degrade, never drop"). */
  readonly steps: Steps;

  private constructor(
    readonly p: CopilotPayload,
    readonly client: ApiPoster,
    run: HookRun,
    dataDir: string,
    /** The payload's files are read only through this (inside the server: under its transcript roots). */
    readonly files: PayloadFiles,
    /** The payload's transcript_path when it is a file `files` may read. */
    readonly transcriptPath: string | undefined,
  ) {
    this.steps = new Steps(run);
    this.sessionId = p.session_id!;
    this.project = typeof p.cwd === 'string' && p.cwd ? path.resolve(p.cwd) : undefined;
    this.notes = new SubagentNotes(dataDir, this.sessionId);
  }

  static async create(p: CopilotPayload, client: ApiPoster, run: HookRun, dataDir: string): Promise<CopilotHook> {
    if (!p.session_id || typeof p.session_id !== 'string') throw new HookInputError('session_id: is required');
    const files = payloadFilesOf(run);
    const transcriptPath = typeof p.transcript_path === 'string' ? await existing(files, p.transcript_path) : undefined;
    return new CopilotHook(p, client, run, dataDir, files, transcriptPath);
  }

  get base() {
    return { harness: HARNESS, sessionKey: this.sessionId, project: this.project };
  }

  childKey(callId: string): string {
    return subagentKey(this.sessionId, callId);
  }

  /**
   * The parent's prompt-submit write with its transcript file. A server that refuses the file for
   * what it is (outside its transcript folders, e.g. a VS Code started with another
   * --user-data-dir) gets the write again without it: the payload's own text still counts.
   */
  parentWrite(extra: { userPrompt?: string; lastAssistantMessage?: string }) {
    const body = { ...this.base, ...extra };
    return this.steps.withTranscriptOrWithout('transcript', extra.userPrompt !== undefined ? 'prompt' : 'last-message', this.transcriptPath, (file) =>
      this.client.call('userPromptSubmit', { body: { ...body, transcriptPath: file } }),
    );
  }

  /**
   * The parent's transcript brought up to date from its file (the inherited block is built from
   * it), with the turn's last reply when there is one. Without a reply of its own it only prepares:
   * when it fails the hook goes on (a sub-agent still opens, inheriting what is stored).
   */
  async refreshParent(extra: { lastAssistantMessage?: string } = {}): Promise<void> {
    if (extra.lastAssistantMessage?.trim()) {
      await this.parentWrite(extra);
      return;
    }
    if (this.transcriptPath)
      await this.steps.optional('refresh-parent', () => this.client.call('userPromptSubmit', { body: { ...this.base, transcriptPath: this.transcriptPath } }));
  }

  /** Opens (or re-opens) the child session of a runSubagent call under this chat session; its task becomes its first prompt. */
  async openChild(callId: string, note: SubagentNote | undefined, agentType?: string, opts: { told: boolean } = { told: true }) {
    const started = await this.client.call('sessionStart', {
      body: {
        // A child opened only to be ended (its SubagentStart was missed) reaches no model: no memories for it.
        ...(opts.told ? {} : { injectMemories: false }),
        harness: HARNESS,
        sessionKey: this.childKey(callId),
        parentSessionKey: this.sessionId,
        harnessAgentId: callId,
        harnessAgentType: agentType ?? note?.agentType ?? note?.agentName,
        title: note?.description?.slice(0, 500),
        // The runSubagent call's prompt: the inherited block is chosen for it (docs/inheritance.md).
        ...(note?.prompt ? { task: note.prompt.slice(0, 20_000) } : {}),
        project: this.project,
      },
    });
    if (note?.prompt)
      await this.client.call('userPromptSubmit', {
        body: { harness: HARNESS, sessionKey: this.childKey(callId), project: this.project, userPrompt: note.prompt },
      });
    await this.notes.update(callId, { phase: 'running', agentType });
    return started;
  }

  /** A tool call or result seen inside a running sub-agent, added to its transcript. */
  async childTool(child: SubagentNote, message: Record<string, unknown>): Promise<void> {
    await this.client.call('userPromptSubmit', {
      body: { harness: HARNESS, sessionKey: this.childKey(child.callId), project: this.project, transcript: [message] },
    });
  }

  /**
   * A tool call or result fired inside a sub-agent (its hook carries the parent's session id only).
   * With one sub-agent running it is that one's. With several running in parallel it could be any
   * of them: nothing is stored now, and each of them takes its own tool calls from the transcript
   * when it ends (backfillChild), where VS Code chains them to their runSubagent call.
   */
  async toolOfChild(message: Record<string, unknown>): Promise<void> {
    const running = runningChildren(await this.notes.all());
    if (running.length === 1) return this.childTool(running[0], message);
    for (const child of running) if (!child.ambiguous) await this.notes.update(child.callId, { ambiguous: true });
  }

  /** A sub-agent that ran beside others: its turns as the transcript chains them to its call (stored turns are skipped by hash). */
  async backfillChild(callId: string): Promise<void> {
    if (!(await this.notes.get(callId))?.ambiguous) return;
    // Pruned or unreadable: the child keeps its task and result.
    const records = await this.transcriptRecords();
    const turns = records ? copilotTurns(records, callId) : [];
    if (turns.length === 0) return;
    await this.client.call('userPromptSubmit', {
      body: {
        harness: HARNESS,
        sessionKey: this.childKey(callId),
        project: this.project,
        transcript: turns.map((t) => ({ role: t.role, content: t.text })),
      },
    });
    await this.notes.update(callId, { ambiguous: false });
  }

  async handle(): Promise<HookOutput | null> {
    const p = this.p;
    const event = p.hook_event_name ?? '';
    switch (event) {
      case 'SessionStart': {
        const r = await this.client.call('sessionStart', { body: { ...this.base, source: p.source } });
        return context(event, r.inject);
      }
      case 'UserPromptSubmit': {
        // The sub-agent's own prompt arrives with the parent's session id: it is the child's.
        const child = (await this.notes.all()).find((n) => n.phase !== 'stopped' && samePrompt(n.prompt, p.prompt));
        if (child) {
          // Before SubagentStart (which records the task as the child's first prompt) there is nothing to add.
          if (child.phase === 'running')
            await this.client.call('userPromptSubmit', {
              body: { harness: HARNESS, sessionKey: this.childKey(child.callId), project: this.project, userPrompt: p.prompt },
            });
          return null;
        }
        const r = await this.parentWrite({ userPrompt: p.prompt });
        return context(event, r?.inject);
      }
      case 'PreToolUse': {
        if (p.tool_name === RUN_SUBAGENT && typeof p.tool_use_id === 'string') {
          const task = subagentTask(p.tool_input);
          await this.notes.update(subagentCallId(p.tool_use_id), { ...task, phase: 'pending' });
          return null;
        }
        await this.toolOfChild({ role: 'assistant', tool_calls: [{ function: { name: p.tool_name ?? 'tool', arguments: p.tool_input ?? {} } }] });
        return null;
      }
      case 'PostToolUse': {
        if (p.tool_name === RUN_SUBAGENT && typeof p.tool_use_id === 'string') {
          await this.recordResult(subagentCallId(p.tool_use_id), responseText(p.tool_response));
          await this.refreshParent();
          return null;
        }
        const text = responseText(p.tool_response);
        if (text?.trim()) await this.toolOfChild({ role: 'tool', content: text });
        return null;
      }
      case 'SubagentStart': {
        if (!p.agent_id) throw new HookInputError('agent_id: is required for SubagentStart');
        const callId = subagentCallId(p.agent_id);
        await this.refreshParent();
        const r = await this.openChild(callId, (await this.notes.get(callId)) ?? (await this.noteFromTranscript(callId)), p.agent_type);
        return context(event, r.inject);
      }
      case 'SubagentStop': {
        if (!p.agent_id) throw new HookInputError('agent_id: is required for SubagentStop');
        const callId = subagentCallId(p.agent_id);
        const note = await this.notes.get(callId);
        if (!note || note.phase === 'pending') await this.openChild(callId, note, p.agent_type, { told: false });
        await this.backfillChild(callId);
        if (note?.phase !== 'stopped') await this.endChild(callId, p.last_assistant_message, 'subagent-stop');
        await this.notes.update(callId, { phase: 'stopped' });
        return null;
      }
      case 'Stop':
        // VS Code 1.139 sends no last_assistant_message: the reply is read from the transcript, so it
        // is kept even when the server may not read that file itself.
        await this.refreshParent({ lastAssistantMessage: p.last_assistant_message ?? (await this.lastReplyFromTranscript()) });
        return null;
      case 'PreCompact':
        await this.refreshParent();
        await this.client.call('preCompaction', { body: this.base });
        return null;
      case 'SessionEnd':
        await this.client.call('sessionEnd', { body: { ...this.base, transcriptPath: this.transcriptPath, background: true } });
        return null;
      default:
        return null;
    }
  }

  /** The hook transcript's records as VS Code has flushed them; undefined without a readable file (it is pruned soon after a session). */
  async transcriptRecords(): Promise<Obj[] | undefined> {
    const text = await this.files.text(this.transcriptPath, TRANSCRIPT_MAX_BYTES);
    if (text === null) return undefined;
    try {
      return parseJsonLines(text);
    } catch {
      return undefined;
    }
  }

  /** The chat session's own last reply in its transcript (a sub-agent's replies are not its). */
  async lastReplyFromTranscript(): Promise<string | undefined> {
    const records = await this.transcriptRecords();
    return records
      ? copilotTurns(records)
          .filter((t) => t.role === 'assistant')
          .at(-1)?.text
      : undefined;
  }

  /** Without PreToolUse's note (its hook did not run): the task as the parent's transcript recorded the call. */
  async noteFromTranscript(callId: string): Promise<SubagentNote | undefined> {
    const records = await this.transcriptRecords();
    const args = records ? runSubagentArguments(records, callId) : undefined;
    return args ? { callId, ...subagentTask(args), phase: 'pending', createdAt: Date.now() } : undefined;
  }

  async endChild(callId: string, result: string | undefined, reason: string): Promise<void> {
    await this.client.call('sessionEnd', {
      body: {
        harness: HARNESS,
        sessionKey: this.childKey(callId),
        project: this.project,
        status: 'completed',
        reason,
        lastAssistantMessage: result,
        background: true,
      },
    });
  }

  /** The runSubagent call returned: its text is the child's result; the child ends if SubagentStop did not end it. */
  async recordResult(callId: string, result: string | undefined): Promise<void> {
    const note = await this.notes.get(callId);
    if (!note || note.phase === 'pending') await this.openChild(callId, note);
    await this.backfillChild(callId);
    if (note?.phase === 'stopped') {
      if (result?.trim())
        await this.client.call('userPromptSubmit', {
          body: { harness: HARNESS, sessionKey: this.childKey(callId), project: this.project, lastAssistantMessage: result },
        });
    } else {
      await this.endChild(callId, result, 'subagent-result');
    }
    await this.notes.remove(callId);
  }
}

/** One VS Code agent-mode hook: the payload (either spelling) mapped onto the API; returns what to print. */
export async function handleCopilotEvent(raw: Record<string, unknown>, client: ApiPoster, run: HookRun = UNREPORTED): Promise<HookOutput | null> {
  return (await CopilotHook.create(normalizeCopilotPayload(raw), client, run, run.dataDir ?? resolveDataDir())).handle();
}

export const copilotHooks: HarnessHooks = {
  events: COPILOT_EVENTS,
  handle: (payload, client, run) => handleCopilotEvent(payload, client, run),
};

/** This harness's entry in the hook command (dist/hook.js), found by the build under these names: HARNESS and hooks (scripts/dev/hookMappingsPlugin.mjs). */
export { copilotHooks as hooks };
