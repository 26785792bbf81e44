// Claude Code's transcript format: JSONL under <config dir>/projects/<project>/<session>.jsonl,
// sub-agents in <session>/subagents/agent-<id>.jsonl (docs/harnesses.md). Pure: no I/O.

import {
  asObj,
  asString,
  START_STATE,
  TurnSink,
  toolCallText,
  toolResultText,
  type LineParseResult,
  type LineParseState,
  type Obj,
  type TranscriptParser,
} from '../../core/normalize';
import type { Role } from '../../core/types';
import { tokenCount, type TurnUsage } from '../../core/usage';

export const CLAUDE_CODE_JSONL = 'claude-code-jsonl';

function isClaudeCodeRecord(r: Obj): boolean {
  if ((r.type === 'user' || r.type === 'assistant') && asObj(r.message)) return true;
  if (r.type === 'summary' && typeof r.summary === 'string') return true;
  return r.type === 'file-history-snapshot';
}

export const claudeCodeTranscript: TranscriptParser = {
  format: CLAUDE_CODE_JSONL,
  recognizes: isClaudeCodeRecord,
  parse: (records) => {
    // The whole file at once: whether it has a main thread is known before the first line.
    const parsed = fromClaudeCode(records, { ...START_STATE, flags: { mainThread: records.some(isMainThread) } });
    return 'restart' in parsed ? [] : parsed.turns;
  },
  parseFrom: fromClaudeCode,
  // Only an assistant line merges into the turn before it (the blocks of one message).
  startsFresh: (record) => record.type !== 'assistant',
};

function isMainThread(r: Obj): boolean {
  return (r.type === 'user' || r.type === 'assistant') && r.isSidechain !== true;
}

function fromClaudeCode(records: Obj[], state: LineParseState): LineParseResult {
  const sink = new TurnSink(state.open);
  // Older Claude Code wrote sub-agent lines (isSidechain) into the parent's file; a sub-agent's
  // own file is all sidechain. Drop sidechain lines only when there is a main thread beside them.
  // Read in pieces, a main thread first seen now would drop sidechain turns already produced.
  const hasMainThread = state.flags.mainThread === true || records.some(isMainThread);
  if (hasMainThread && state.flags.keptSidechain === true) return { restart: { mainThread: true } };
  let keptSidechain = state.flags.keptSidechain === true;

  records.forEach((r, at0) => {
    const index = state.records + at0;
    // Meta lines are Claude Code's own notes, except the message that resumed a sub-agent: the
    // spawner's words to it, which its transcript keeps as the next prompt.
    if (r.isMeta === true && !isResumeMessage(r)) return;
    if (r.isSidechain === true) keptSidechain = keptSidechain || !hasMainThread;
    if (hasMainThread && r.isSidechain === true) return;
    const at = asString(r.timestamp);
    const message = asObj(r.message);
    switch (r.type) {
      case 'summary':
        sink.push('system', asString(r.summary), at);
        return;
      case 'system':
        // Harness events (compaction boundary, local command output); api_error has no content.
        sink.push('system', dropEmptyCommandWrapper(asString(r.content)), at);
        return;
      case 'user':
        if (message) claudeUser(message, r, at, index, sink);
        return;
      case 'assistant':
        if (message) claudeAssistant(message, at, index, sink, claudeUsage(message, r));
        return;
      default:
        return; // attachments, file-history snapshots, queue operations, future types
    }
  });
  if (sink.mergedIntoCarried) return { restart: {} };
  return { turns: sink.turns, state: { records: state.records + records.length, open: sink.open, flags: { mainThread: hasMainThread, keptSidechain } } };
}

/** The message a coordinator (the spawner, through SendMessage) sent a finished sub-agent to resume it. */
function isResumeMessage(r: Obj): boolean {
  return r.type === 'user' && asObj(r.origin)?.kind === 'coordinator';
}

/** The notice Claude Code submits as a prompt when a background sub-agent finishes: not the user's words. */
const TASK_NOTIFICATION = '<task-notification>';

/** True for a prompt Claude Code submitted itself about a sub-agent (kept as a system turn). */
export function isTaskNotification(text: string | undefined): boolean {
  return text !== undefined && text.trimStart().startsWith(TASK_NOTIFICATION);
}

function claudeUser(message: Obj, line: Obj, at: string | undefined, index: number, sink: TurnSink): void {
  // The summary Claude Code injects after /compact is a user message in form only, and so is the
  // notice of a finished background sub-agent.
  const base: Role = line.isCompactSummary === true ? 'system' : 'user';
  const roleOf = (text: string | undefined): Role => (base === 'user' && isTaskNotification(text) ? 'system' : base);
  const content = message.content;
  if (typeof content === 'string') {
    sink.push(roleOf(content), dropEmptyCommandWrapper(content), at);
    return;
  }
  if (!Array.isArray(content)) return;
  const lineKey = `line:${index}`;
  for (const block of content) {
    const b = asObj(block);
    if (typeof block === 'string') sink.push(roleOf(block), dropEmptyCommandWrapper(block), at, lineKey);
    else if (b?.type === 'text') sink.push(roleOf(asString(b.text)), dropEmptyCommandWrapper(asString(b.text)), at, lineKey);
    else if (b?.type === 'tool_result') sink.push('tool', toolResultText(b.content), at);
    // images and documents carry no text worth keeping
  }
}

/** The model Claude Code names for messages it made up itself (an API error shown as a reply): no request was made. */
const SYNTHETIC_MODEL = '<synthetic>';

/**
 * The request an assistant line came from: `message.model` and `message.usage` (uncached input,
 * output, cache read, cache creation), keyed by `message.id`: every line of a message repeats the
 * same usage, and the store counts a key once. `costUSD` on the line (older versions) is the cost.
 */
function claudeUsage(message: Obj, line: Obj): TurnUsage | undefined {
  const usage = asObj(message.usage);
  const model = asString(message.model) ?? null;
  if (!usage || model === SYNTHETIC_MODEL) return undefined;
  const key = asString(message.id) ?? asString(line.requestId) ?? asString(line.uuid);
  if (!key) return undefined;
  return {
    key,
    model,
    inputTokens: tokenCount(usage.input_tokens),
    outputTokens: tokenCount(usage.output_tokens),
    cacheReadTokens: tokenCount(usage.cache_read_input_tokens),
    cacheWriteTokens: tokenCount(usage.cache_creation_input_tokens),
    costUsd: typeof line.costUSD === 'number' && Number.isFinite(line.costUSD) && line.costUSD >= 0 ? line.costUSD : null,
  };
}

function claudeAssistant(message: Obj, at: string | undefined, index: number, sink: TurnSink, usage: TurnUsage | undefined): void {
  // Claude Code writes one line per content block, all sharing message.id: merge them back.
  const mergeKey = asString(message.id) ?? `line:${index}`;
  const content = message.content;
  if (typeof content === 'string') {
    sink.push('assistant', content, at, mergeKey, usage);
    return;
  }
  if (!Array.isArray(content)) return;
  for (const block of content) {
    const b = asObj(block);
    if (b?.type === 'text') sink.push('assistant', asString(b.text), at, mergeKey, usage);
    else if (b?.type === 'tool_use') sink.push('tool', toolCallText(b.name, b.input), at, undefined, usage);
    // thinking / redacted_thinking are dropped: private reasoning, often huge
  }
}

/**
 * The text blocks of the assistant message that made the tool call `toolUseId`, from the end of a
 * transcript (JSONL; a first line cut by the read is skipped). Claude Code writes one line per
 * content block, all sharing `message.id`; a fork's copy of the conversation leaves these out.
 */
export function spawningMessageText(tail: string, toolUseId: string): string | null {
  const records: Obj[] = [];
  for (const line of tail.split('\n')) {
    if (!line.trim()) continue;
    try {
      const r = asObj(JSON.parse(line));
      if (r?.type === 'assistant') records.push(r);
    } catch {
      // a line cut by the read, or not JSON
    }
  }
  const blocksOf = (r: Obj) => {
    const content = asObj(r.message)?.content;
    return Array.isArray(content) ? content.map(asObj) : [];
  };
  const calling = records.find((r) => blocksOf(r).some((b) => b?.type === 'tool_use' && b.id === toolUseId));
  const id = calling && asString(asObj(calling.message)?.id);
  const same = id ? records.filter((r) => asString(asObj(r.message)?.id) === id) : calling ? [calling] : [];
  const texts = same.flatMap((r) =>
    blocksOf(r)
      .filter((b) => b?.type === 'text')
      .map((b) => asString(b!.text) ?? ''),
  );
  const text = texts.join('\n\n').trim();
  return text || null;
}

/** `<command-name>` / `<local-command-stdout>` wrappers: skip when nothing is inside them. */
function dropEmptyCommandWrapper(text: string | undefined): string | undefined {
  if (text === undefined || !/^\s*<(?:command-|local-command-)/.test(text)) return text;
  const inner = text.replace(/<\/?(?:command-[a-z-]+|local-command-[a-z-]+)>/g, '').trim();
  return inner === '' ? undefined : text;
}
