// GitHub Copilot CLI's session log: $COPILOT_HOME/session-state/<sessionId>/events.jsonl, one
// `{type, data, id, timestamp, parentId, agentId?}` per line (docs/harnesses.md, "GitHub Copilot
// CLI"). The session's sub-agents write into the same file, each event tagged with the sub-agent's
// `agentId`; the session's own events carry none. `subagent.started` ties an agentId to the `task`
// call that started it (its toolCallId), whose arguments hold the sub-agent's task. Pure: no I/O.

import {
  asObj,
  asString,
  START_STATE,
  TurnSink,
  toolCallText,
  toolResultText,
  tryParse,
  type LineParseResult,
  type LineParseState,
  type Obj,
  type TranscriptParser,
} from '../../core/normalize';
import type { Turn } from '../../core/types';
import { tokenCount, type TurnUsage } from '../../core/usage';

export const COPILOT_CLI_JSONL = 'copilot-cli-events';

/** The tool through which Copilot CLI starts a sub-agent. */
export const TASK_TOOL = 'task';

/** A message Copilot CLI writes into a conversation when a background sub-agent finishes: not the user's. */
const SYSTEM_NOTIFICATION = '<system_notification>';

/**
 * Records only Copilot CLI writes: its session.start (the Copilot agent's, without the
 * `vscodeVersion` VS Code agent mode's log has), hooks and sub-agent lifecycle events.
 */
const CLI_ONLY_TYPES = new Set(['hook.start', 'hook.end', 'subagent.started', 'subagent.completed', 'session.usage_record', 'session.shutdown']);

function isCliEvent(r: Obj): boolean {
  const data = asObj(r.data);
  if (typeof r.type !== 'string' || !data || typeof r.id !== 'string') return false;
  if (r.type === 'session.start') return data.producer === 'copilot-agent' && data.vscodeVersion === undefined && asObj(data.context) !== undefined;
  return CLI_ONLY_TYPES.has(r.type);
}

/** Whose event a record is: the sub-agent's agentId, or undefined for the session's own. */
export function eventOwner(record: Obj): string | undefined {
  return asString(record.agentId);
}

/** True for a prompt Copilot CLI wrote (a sub-agent's completion notice), not one the user typed. */
export function isSystemNotification(text: string | undefined): boolean {
  return text !== undefined && text.trimStart().startsWith(SYSTEM_NOTIFICATION);
}

/** A tool's result: `result.content` (text or parts), else the error's message. */
function resultText(data: Obj): string | undefined {
  const result = asObj(data.result);
  const content = result?.content ?? result?.detailedContent;
  if (content !== undefined && content !== null && content !== '') return toolResultText(content);
  const error = asObj(data.error);
  const message = asString(error?.message) ?? asString(data.error);
  return message ? `error: ${message}` : undefined;
}

/**
 * A request's usage from a `session.usage_record` (written just before the reply it produced):
 * model and the four token counts, keyed by the API call's usage id. Its `cost` is not in dollars
 * (Copilot counts premium requests), so the price table estimates the cost (docs/harnesses.md, "Spend").
 */
function cliUsage(data: Obj, record: Obj): TurnUsage | undefined {
  const usage = asObj(data.usage);
  if (!usage) return undefined;
  const key = asString(asObj(usage.accounting)?.usageId) ?? asString(usage.apiCallId) ?? asString(record.id);
  if (!key) return undefined;
  return {
    key,
    model: asString(usage.model) ?? null,
    inputTokens: tokenCount(usage.inputTokens),
    outputTokens: tokenCount(usage.outputTokens),
    cacheReadTokens: tokenCount(usage.cacheReadTokens),
    cacheWriteTokens: tokenCount(usage.cacheWriteTokens),
    costUsd: null,
    ...(typeof record.timestamp === 'string' ? { at: record.timestamp } : {}),
  };
}

/** The turns of `owner`'s records (undefined: the session's own), pushed into `sink`. */
function pushTurns(records: Obj[], owner: string | undefined, sink: TurnSink): void {
  for (const r of records) {
    if (eventOwner(r) !== owner) continue;
    const data = asObj(r.data);
    if (!data) continue;
    const at = asString(r.timestamp);
    switch (r.type) {
      case 'user.message': {
        // `content` is what was asked; `transformedContent` adds the date and hook context.
        const text = asString(data.content);
        sink.push(isSystemNotification(text) ? 'system' : 'user', text, at);
        break;
      }
      case 'assistant.message':
        // The tool calls it asks for follow as tool.execution_start events (with their arguments).
        sink.push('assistant', asString(data.content), at, asString(data.messageId) ?? asString(r.id));
        break;
      case 'tool.execution_start':
        sink.push('tool', toolCallText(data.toolName, data.arguments), at);
        break;
      case 'tool.execution_complete':
        sink.push('tool', resultText(data), at);
        break;
      case 'session.usage_record': {
        const usage = cliUsage(data, r);
        if (usage) sink.attachUsage(usage, 'next');
        break;
      }
      case 'session.compaction_complete':
        sink.push('system', asString(data.summaryContent) ?? asString(data.summary), at);
        break;
      default:
        break; // hooks, system prompts, turn boundaries, usage, future event types
    }
  }
}

/** The turns of one conversation in the log: the session's own (owner undefined) or a sub-agent's (its agentId). */
export function cliTurns(records: Obj[], owner?: string): Turn[] {
  const sink = new TurnSink();
  pushTurns(records, owner, sink);
  return sink.turns;
}

/** The session's own turns, line by line: only an assistant message split over lines merges. */
function fromRecords(records: Obj[], state: LineParseState): LineParseResult {
  const sink = new TurnSink(state.open, state.pendingUsage);
  pushTurns(records, undefined, sink);
  if (sink.mergedIntoCarried) return { restart: {} };
  const waiting = sink.waitingUsage;
  return { turns: sink.turns, state: { records: state.records + records.length, open: sink.open, flags: {}, ...(waiting ? { pendingUsage: waiting } : {}) } };
}

export const copilotCliTranscript: TranscriptParser = {
  format: COPILOT_CLI_JSONL,
  recognizes: isCliEvent,
  parse: (records) => {
    const parsed = fromRecords(records, START_STATE);
    return 'restart' in parsed ? [] : parsed.turns;
  },
  parseFrom: fromRecords,
  startsFresh: (record) => record.type !== 'assistant.message',
};

/** A sub-agent as the log records it. */
export interface LoggedSubagent {
  agentId: string;
  /** The sub-agent that started it, for a nested one; undefined when the session itself did. */
  parentAgentId?: string;
  toolCallId?: string;
  agentType?: string;
  /** The name the `task` call gave it (`agentDisplayName`). */
  name?: string;
  description?: string;
  /** Its task: the `task` call's prompt. */
  prompt?: string;
  mode?: string;
  model?: string;
  startedAt?: string;
  /** Its final reply, once it completed (the task call's result). */
  result?: string;
  completed: boolean;
}

/** The arguments of each `task` call in the log, by toolCallId. */
function taskCalls(records: Obj[]): Map<string, Obj> {
  const calls = new Map<string, Obj>();
  for (const r of records) {
    const data = asObj(r.data);
    if (r.type !== 'tool.execution_start' || !data || data.toolName !== TASK_TOOL) continue;
    const id = asString(data.toolCallId);
    const args = asObj(typeof data.arguments === 'string' ? tryParse(data.arguments) : data.arguments);
    if (id && args) calls.set(id, args);
  }
  return calls;
}

/** Every sub-agent the log has started, in start order, with its task and (once done) its result. */
export function loggedSubagents(records: Obj[]): LoggedSubagent[] {
  const calls = taskCalls(records);
  const byId = new Map<string, LoggedSubagent>();
  const byCall = new Map<string, LoggedSubagent>();
  for (const r of records) {
    const data = asObj(r.data);
    const agentId = asString(r.agentId);
    if (!data) continue;
    if (r.type === 'subagent.started' && agentId && !byId.has(agentId)) {
      const toolCallId = asString(data.toolCallId);
      const args = toolCallId ? calls.get(toolCallId) : undefined;
      const parent = asString(data.parentId);
      const sub: LoggedSubagent = {
        agentId,
        parentAgentId: parent && parent !== agentId ? parent : undefined,
        toolCallId,
        agentType: asString(data.agentType) ?? asString(data.agentName) ?? asString(args?.agent_type),
        name: asString(data.agentDisplayName) ?? asString(args?.name),
        description: asString(data.agentDescription) ?? asString(args?.description),
        prompt: asString(args?.prompt),
        mode: asString(data.executionMode) ?? asString(args?.mode),
        model: asString(data.model),
        startedAt: asString(r.timestamp),
        completed: false,
      };
      byId.set(agentId, sub);
      if (toolCallId) byCall.set(toolCallId, sub);
    } else if (r.type === 'subagent.completed' && agentId && byId.has(agentId)) {
      byId.get(agentId)!.completed = true;
    } else if (r.type === 'tool.execution_complete') {
      const sub = byCall.get(asString(data.toolCallId) ?? '');
      const text = sub ? resultText(data) : undefined;
      // A background task answers at once ("Agent started…"); its result is the sub-agent's last reply.
      if (sub && text && sub.mode !== 'background') sub.result = text;
    }
  }
  // A background sub-agent's result: its own last reply.
  for (const sub of byId.values())
    if (sub.result === undefined && sub.completed)
      sub.result = cliTurns(records, sub.agentId)
        .filter((t) => t.role === 'assistant')
        .at(-1)?.text;
  return [...byId.values()];
}

/** What the log's session.start says about the session: its id, folder and start. */
export function sessionStartOf(records: Obj[]): { sessionId?: string; cwd?: string; startedAt?: string; model?: string } | undefined {
  const start = records.find((r) => r.type === 'session.start');
  const data = asObj(start?.data);
  if (!start || !data) return undefined;
  return {
    sessionId: asString(data.sessionId),
    cwd: asString(asObj(data.context)?.cwd),
    startedAt: asString(data.startTime) ?? asString(start.timestamp),
    model: asString(data.selectedModel),
  };
}

/**
 * A sub-agent's turns as the hooks send them (a message list): import sends the same, so a
 * session imported after its live hooks gains nothing.
 */
export function turnMessages(turns: Turn[]): Array<{ role: string; content: string; usage?: TurnUsage }> {
  return turns.map((t) => ({ role: t.role, content: t.text, ...(t.usage ? { usage: t.usage } : {}) }));
}
