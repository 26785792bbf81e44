// VS Code agent mode's hook transcript: workspaceStorage/<hash>/GitHub.copilot-chat/transcripts/
// <chat session id>.jsonl (docs/harnesses.md, "VS Code agent mode"). One event per line,
// `{type, id, timestamp, parentId?, data}`: session.start, user.message, assistant.turn_start,
// assistant.message, tool.execution_start, tool.execution_complete, assistant.turn_end. Not a
// stable format, so anything unknown is skipped. Pure: no I/O.

import { asObj, asString, TurnSink, toolCallText, toolResultText, tryParse, type Obj, type TranscriptParser } from '../../core/normalize';
import type { Turn } from '../../core/types';

export const COPILOT_JSONL = 'copilot-jsonl';

const EVENT_TYPES = new Set([
  'session.start',
  'user.message',
  'assistant.turn_start',
  'assistant.message',
  'tool.execution_start',
  'tool.execution_complete',
  'assistant.turn_end',
]);

function isCopilotEvent(r: Obj): boolean {
  return typeof r.type === 'string' && EVENT_TYPES.has(r.type) && asObj(r.data) !== undefined;
}

/**
 * The sub-agent an event belongs to, when the event says so (`parentToolCallId` or `agentId`, as
 * the Copilot agent writes them for a sub-agent's own events); undefined for the session's own.
 */
export function copilotEventOwner(record: Obj): string | undefined {
  const data = asObj(record.data);
  return asString(data?.parentToolCallId) ?? asString(record.agentId) ?? asString(data?.agentId);
}

/** A tool's result: `result.content` (text or parts), else the error's message. */
function resultText(data: Obj): string | undefined {
  const result = data.result;
  const content = asObj(result)?.content ?? asObj(result)?.detailedContent ?? result;
  if (content !== undefined && content !== null && content !== '') return toolResultText(content);
  const error = asObj(data.error);
  const message = asString(error?.message) ?? asString(data.error);
  return message ? `error: ${message}` : undefined;
}

/** A tool call id without the `__vscode-N` suffix VS Code adds in hook payloads (the transcript may carry either). */
function bareCallId(id: string): string {
  return id.replace(/__vscode-\d+$/, '');
}

function isRunSubagentStart(r: Obj, data: Obj): boolean {
  return r.type === 'tool.execution_start' && (data.toolName ?? data.name) === 'runSubagent';
}

/**
 * The session's turns from its transcript events. `owner` picks whose: undefined for the chat
 * session itself (a sub-agent's own events are left out), or a sub-agent's tool call id.
 *
 * A sub-agent writes into its parent's file: in VS Code 1.139 its user.message, assistant
 * messages and tool calls sit between the runSubagent call's tool.execution_start and
 * tool.execution_complete with no field naming the sub-agent; only `parentId` chains them to the
 * call's start event. So an event belongs to whoever its parent event belongs to, the events that
 * follow a runSubagent start belong to that call, and the call's completion returns to its caller.
 */
export function copilotTurns(records: Obj[], owner?: string): Turn[] {
  const wanted = owner === undefined ? undefined : bareCallId(owner);
  const sink = new TurnSink();
  // Who the events chained to an event (by parentId) belong to.
  const chainOwner = new Map<string, string | undefined>();
  // The owner of each runSubagent call's start: its completion goes back to it.
  const callerOf = new Map<string, string | undefined>();
  // The prompts of the runSubagent calls under way: a sub-agent's own prompt can land in the
  // parent's file as a plain user.message without a parentId, and must not read as the user's.
  const subagentPrompts = new Map<string, string>();
  for (const r of records) {
    if (!isCopilotEvent(r)) continue;
    const data = asObj(r.data)!;
    const callId = bareCallId(asString(data.toolCallId) ?? '');
    const parentId = asString(r.parentId);
    const explicit = copilotEventOwner(r);
    let own = explicit !== undefined ? bareCallId(explicit) : parentId && chainOwner.has(parentId) ? chainOwner.get(parentId) : undefined;
    if (r.type === 'tool.execution_complete' && callerOf.has(callId)) own = callerOf.get(callId);
    const start = isRunSubagentStart(r, data);
    const id = asString(r.id);
    if (id) chainOwner.set(id, start ? callId : own);
    if (start) {
      callerOf.set(callId, own);
      const args = typeof data.arguments === 'string' ? tryParse(data.arguments) : data.arguments;
      const prompt = asString(asObj(args)?.prompt);
      if (prompt) subagentPrompts.set(callId, squash(prompt));
    } else if (r.type === 'tool.execution_complete') subagentPrompts.delete(callId);
    if (own !== wanted) continue;
    const at = asString(r.timestamp);
    switch (r.type) {
      case 'user.message': {
        const text = asString(data.content) ?? asString(data.prompt);
        if (wanted === undefined && text && [...subagentPrompts.values()].includes(squash(text))) break;
        sink.push('user', text, at);
        break;
      }
      case 'assistant.message':
        // One reply may come as several messages of one id; the tool calls it asks for appear as
        // tool.execution_start events (with their arguments), so toolRequests are not repeated.
        sink.push('assistant', asString(data.content), at, asString(data.messageId) ?? asString(r.id));
        break;
      case 'tool.execution_start':
        sink.push('tool', toolCallText(data.toolName ?? data.name, data.arguments), at);
        break;
      case 'tool.execution_complete':
        sink.push('tool', resultText(data), at);
        break;
      default:
        break; // session.start, turn boundaries, future event types
    }
  }
  return sink.turns;
}

/** A runSubagent call's arguments as the transcript recorded them (`call_X` or `call_X__vscode-N`); undefined when absent. */
export function runSubagentArguments(records: Obj[], callId: string): Obj | undefined {
  for (const r of records) {
    const data = asObj(r.data);
    if (r.type !== 'tool.execution_start' || !data || (data.toolName ?? data.name) !== 'runSubagent') continue;
    if (bareCallId(asString(data.toolCallId) ?? '') !== bareCallId(callId)) continue;
    return asObj(typeof data.arguments === 'string' ? tryParse(data.arguments) : data.arguments);
  }
  return undefined;
}

function squash(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

export const copilotTranscript: TranscriptParser = {
  format: COPILOT_JSONL,
  recognizes: isCopilotEvent,
  parse: (records) => copilotTurns(records),
  // Whose event a record is follows chains that start anywhere earlier in the file (a sub-agent's
  // runSubagent start, its prompt), so a continuation is parsed with the whole file again. VS Code
  // prunes these files soon after a session, so they stay small (docs/harnesses.md).
  parseFrom: (records, state) => (state.records === 0 ? { turns: copilotTurns(records), state: { records: records.length, flags: {} } } : { restart: {} }),
  startsFresh: () => true,
};
