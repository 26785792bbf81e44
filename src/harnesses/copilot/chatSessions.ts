// VS Code's chat session files: workspaceStorage/<hash>/chatSessions/<session id>.jsonl, an append
// log of mutations of one chat session object (docs/harnesses.md, "VS Code agent mode"): each line
// is `{kind, k, v, i?}` with kind 0 the initial state, 1 set the value at path k, 2 push the items v
// onto the array at k (first cut to length i when given), 3 delete the value at k. Older VS Code
// wrote the whole object as one `.json`. Replayed here into the chat's turns and its sub-agents:
// a `runSubagent` call is a `toolInvocationSerialized` response part with `toolSpecificData.kind
// = "subagent"`, and the sub-agent's own tool calls carry `subAgentInvocationId` = that call's id.
// Pure: no I/O; never throws on a torn or unknown line.

import { asObj, asString, toolCallText, toolResultText, tryParse, type Obj } from '../../core/normalize';
import type { Role } from '../../core/types';

type Path = Array<string | number>;

function container(state: unknown, path: Path): unknown {
  let at: unknown = state;
  for (const key of path) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Record<string | number, unknown>)[key];
  }
  return at;
}

/** The chat session object the log describes; undefined without an initial state. */
export function replayChatSessionLog(text: string): Obj | undefined {
  const whole = asObj(tryParse(text.trim()));
  if (whole && whole.kind === undefined && (Array.isArray(whole.requests) || typeof whole.sessionId === 'string')) return whole; // a `.json` file
  let state: Obj | undefined;
  for (const line of text.split('\n')) {
    const entry = asObj(tryParse(line.trim()));
    if (!entry) continue;
    const path = Array.isArray(entry.k) ? (entry.k as Path) : [];
    if (entry.kind === 0) {
      state = asObj(entry.v) ? structuredClone(entry.v as Obj) : undefined;
      continue;
    }
    if (!state) continue;
    const parent = path.length ? container(state, path.slice(0, -1)) : undefined;
    const last = path.at(-1);
    if (parent === null || typeof parent !== 'object' || last === undefined) continue; // a path this state does not have
    const target = parent as Record<string | number, unknown>;
    if (entry.kind === 1) target[last] = entry.v;
    else if (entry.kind === 2) {
      const array = Array.isArray(target[last]) ? (target[last] as unknown[]) : [];
      if (typeof entry.i === 'number') array.length = Math.min(array.length, Math.max(0, entry.i));
      if (Array.isArray(entry.v)) array.push(...(entry.v as unknown[]));
      target[last] = array;
    } else if (entry.kind === 3) {
      if (Array.isArray(target) && typeof last === 'number') target.splice(last, 1);
      else delete target[last];
    }
  }
  return state;
}

export interface ChatMessage {
  role: Role;
  content: string;
  timestamp?: string;
}

export interface ChatSubagent {
  /** The runSubagent call id with VS Code's `__vscode-N` suffix stripped: the key the hooks use too. */
  callId: string;
  description?: string;
  agentName?: string;
  prompt?: string;
  result?: string;
  messages: ChatMessage[];
}

export interface ChatSession {
  sessionId: string;
  title?: string;
  createdAt?: string;
  messages: ChatMessage[];
  subagents: ChatSubagent[];
}

function iso(ms: unknown): string | undefined {
  return typeof ms === 'number' && Number.isFinite(ms) ? new Date(ms).toISOString() : undefined;
}

/** Markdown text of a value VS Code may store as a string or as `{value}`. */
function markdown(value: unknown): string | undefined {
  return asString(value) ?? asString(asObj(value)?.value);
}

function stripSuffix(id: string): string {
  return id.replace(/__vscode-\d+$/, '');
}

/** A tool result's text: `resultDetails.output` parts, or the past-tense message VS Code shows. */
function toolOutput(part: Obj): string | undefined {
  const details = asObj(part.resultDetails);
  const output = details?.output;
  if (Array.isArray(output)) {
    const text = output
      .map((o) => asString(o) ?? markdown(asObj(o)?.value) ?? '')
      .filter((t) => t.trim())
      .join('\n');
    if (text) return toolResultText(text);
  }
  return markdown(part.pastTenseMessage);
}

/**
 * The turns and sub-agents of one chat session file's text; undefined when it holds no session.
 * Requests answered by a participant in `skipParticipants` are left out.
 */
export function parseChatSession(text: string, fallbackId: string, skipParticipants: readonly string[] = []): ChatSession | undefined {
  const state = replayChatSessionLog(text);
  if (!state) return undefined;
  const session: ChatSession = {
    sessionId: asString(state.sessionId) ?? fallbackId,
    title: asString(state.customTitle),
    createdAt: iso(state.creationDate),
    messages: [],
    subagents: [],
  };
  const byCall = new Map<string, ChatSubagent>();
  const subagent = (id: string) => {
    const callId = stripSuffix(id);
    let s = byCall.get(callId);
    if (!s) {
      s = { callId, messages: [] };
      byCall.set(callId, s);
      session.subagents.push(s);
    }
    return s;
  };
  for (const r of Array.isArray(state.requests) ? state.requests : []) {
    const request = asObj(r);
    if (!request) continue;
    const participant = asString(asObj(request.agent)?.id);
    if (participant && skipParticipants.includes(participant)) continue;
    const at = iso(request.timestamp);
    const prompt = asString(asObj(request.message)?.text);
    if (prompt?.trim()) session.messages.push({ role: 'user', content: prompt, timestamp: at });
    let reply = '';
    const flush = () => {
      if (reply.trim()) session.messages.push({ role: 'assistant', content: reply.trim(), timestamp: at });
      reply = '';
    };
    for (const p of Array.isArray(request.response) ? request.response : []) {
      const part = asObj(p);
      if (!part) continue;
      const kind = asString(part.kind);
      if (kind === undefined || kind === 'markdownContent') {
        reply += markdown(part.content) ?? markdown(part.value) ?? '';
        continue;
      }
      if (kind !== 'toolInvocationSerialized') continue; // thinking, progress, edits, confirmations…
      const toolId = asString(part.toolId) ?? 'tool';
      const owner = asString(part.subAgentInvocationId);
      const data = asObj(part.toolSpecificData);
      const call = toolCallText(toolId, markdown(part.invocationMessage) ?? '');
      const output = toolOutput(part);
      if (owner) {
        // A sub-agent's own tool call.
        const s = subagent(owner);
        s.messages.push({ role: 'tool', content: call, timestamp: at });
        if (output) s.messages.push({ role: 'tool', content: output, timestamp: at });
        continue;
      }
      flush();
      if (data?.kind === 'subagent' && asString(part.toolCallId)) {
        const s = subagent(asString(part.toolCallId)!);
        s.description = asString(data.description);
        s.agentName = asString(data.agentName);
        s.prompt = asString(data.prompt);
        s.result = asString(data.result) ?? markdown(data.result);
        session.messages.push({ role: 'tool', content: toolCallText(toolId, { description: s.description, prompt: s.prompt }), timestamp: at });
        if (s.result) session.messages.push({ role: 'tool', content: toolResultText(s.result), timestamp: at });
        continue;
      }
      session.messages.push({ role: 'tool', content: call, timestamp: at });
      if (output) session.messages.push({ role: 'tool', content: output, timestamp: at });
    }
    flush();
  }
  // Each sub-agent's transcript: its task, what it did, its result.
  for (const s of session.subagents) {
    const first = s.messages[0]?.timestamp;
    s.messages = [
      ...(s.prompt ? [{ role: 'user' as const, content: s.prompt, timestamp: first }] : []),
      ...s.messages,
      ...(s.result ? [{ role: 'assistant' as const, content: s.result, timestamp: s.messages.at(-1)?.timestamp ?? first }] : []),
    ];
  }
  return session;
}
