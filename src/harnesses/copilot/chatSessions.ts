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

/**
 * Key path segments a log line may never name: walking or assigning through them would reach
 * Object.prototype (or a constructor's) instead of the chat's own data, and change every object
 * of the process (docs/security.md, "Importing harness history").
 */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** The line's key path when every segment is a safe object key or an array index; otherwise null (the line is ignored). */
function safePath(k: unknown): Path | null {
  if (!Array.isArray(k)) return null;
  for (const key of k as unknown[]) {
    if (typeof key === 'number' ? !Number.isSafeInteger(key) || key < 0 : typeof key !== 'string' || FORBIDDEN_KEYS.has(key)) return null;
  }
  return k as Path;
}

/** The value at `key` of `at` when it is the object's own (never an inherited one), else undefined. */
function ownChild(at: unknown, key: string | number): unknown {
  if (at === null || typeof at !== 'object') return undefined;
  if (Array.isArray(at)) return typeof key === 'number' && key < at.length ? (at as unknown[])[key] : undefined;
  return typeof key === 'string' && Object.hasOwn(at, key) ? (at as Record<string, unknown>)[key] : undefined;
}

function container(state: unknown, path: Path): unknown {
  let at: unknown = state;
  for (const key of path) at = ownChild(at, key);
  return at;
}

/** Whether `key` may be written on `target`: an own-able string key of an object, or an index of an array at most one past its end. */
function writable(target: object, key: string | number): boolean {
  return Array.isArray(target) ? typeof key === 'number' && key <= target.length : typeof key === 'string';
}

/**
 * The chat session object the log describes; undefined without an initial state. Lines whose key
 * path names `__proto__`, `constructor` or `prototype`, or does not fit the state (a string key on
 * an array, an index past its end), are ignored.
 */
export function replayChatSessionLog(text: string): Obj | undefined {
  const whole = asObj(tryParse(text.trim()));
  if (whole && whole.kind === undefined && (Array.isArray(whole.requests) || typeof whole.sessionId === 'string')) return whole; // a `.json` file
  let state: Obj | undefined;
  for (const line of text.split('\n')) {
    const entry = asObj(tryParse(line.trim()));
    if (!entry) continue;
    if (entry.kind === 0) {
      state = asObj(entry.v) ? structuredClone(entry.v as Obj) : undefined;
      continue;
    }
    const path = safePath(entry.k ?? []);
    if (!state || !path) continue;
    const parent = path.length ? container(state, path.slice(0, -1)) : undefined;
    const last = path.at(-1);
    if (parent === null || typeof parent !== 'object' || last === undefined || !writable(parent, last)) continue; // a path this state does not have
    const target = parent as Record<string | number, unknown>;
    if (entry.kind === 1) target[last] = entry.v;
    else if (entry.kind === 2) {
      const current = ownChild(target, last);
      const array = Array.isArray(current) ? current : [];
      if (typeof entry.i === 'number') array.length = Math.min(array.length, Math.max(0, Math.floor(entry.i)));
      if (Array.isArray(entry.v)) for (const item of entry.v as unknown[]) array.push(item);
      target[last] = array;
    } else if (entry.kind === 3) {
      if (Array.isArray(target) && typeof last === 'number') target.splice(last, 1);
      else if (!Array.isArray(target)) delete target[last];
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

/** The path of a URI as VS Code stores it (`{path, fsPath, …}`, or a string). */
function uriPath(value: unknown): string | undefined {
  const uri = asObj(value);
  const raw = asString(uri?.fsPath) ?? asString(uri?.path) ?? asString(value);
  return raw?.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '');
}

/**
 * Writes file references the way the chat shows them: relative to the workspace folder (`base`, the
 * folder the chat's markdown is resolved against), and the file links of tool messages
 * (`[](file:///…/src/a.ts)`, empty link text) as that path.
 */
function fileNames(base: string | undefined) {
  const relative = (p: string) => (base && p.startsWith(base) ? p.slice(base.length) : p);
  return {
    relative,
    links: (text: string | undefined) =>
      text?.replace(/\[\]\(([a-z][a-z0-9+.-]*:\/\/[^)\s]*)\)/gi, (_, uri: string) => relative(decodeURIComponent(uriPath(uri) ?? uri))),
  };
}

/**
 * A tool result's text: `resultDetails.output` parts, the past-tense message VS Code shows, or a
 * terminal command's exit code (the chat session keeps no terminal output).
 */
function toolOutput(part: Obj, links: (text: string | undefined) => string | undefined): string | undefined {
  const details = asObj(part.resultDetails);
  const output = details?.output;
  if (Array.isArray(output)) {
    const text = output
      .map((o) => asString(o) ?? markdown(asObj(o)?.value) ?? '')
      .filter((t) => t.trim())
      .join('\n');
    if (text) return toolResultText(text);
  }
  const past = links(markdown(part.pastTenseMessage));
  if (past) return past;
  const terminal = asObj(asObj(part.toolSpecificData)?.terminalCommandState);
  return typeof terminal?.exitCode === 'number' ? `exit code ${terminal.exitCode}` : undefined;
}

/** Parts of an edit's rendering: VS Code wraps them in markdown code fences of their own. */
const EDIT_PARTS = new Set(['undoStop', 'codeblockUri', 'textEditGroup']);

/** The folder a chat's markdown is resolved against (its workspace folder), with a trailing slash. */
const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

function baseFolder(requests: unknown[]): string | undefined {
  for (const r of requests)
    for (const p of asArray(asObj(r)?.response)) {
      const base = uriPath(asObj(p)?.baseUri);
      if (base) return base.endsWith('/') ? base : `${base}/`;
    }
  return undefined;
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
  const requests = Array.isArray(state.requests) ? (state.requests as unknown[]) : [];
  const names = fileNames(baseFolder(requests));
  for (const r of requests) {
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
    const parts = Array.isArray(request.response) ? (request.response as unknown[]) : [];
    /** An edit tool's call that reported nothing (its invocation message is empty): the edit that follows is its result. */
    let editOf: { messages: ChatMessage[]; call: ChatMessage; toolId: string } | undefined;
    for (const [index, p] of parts.entries()) {
      const part = asObj(p);
      if (!part) continue;
      const kind = asString(part.kind);
      if (kind === undefined || kind === 'markdownContent') {
        const text = markdown(part.content) ?? markdown(part.value) ?? '';
        const nextTo = (i: number) => EDIT_PARTS.has(asString(asObj(parts[i])?.kind) ?? '');
        if (text.trim() === '```' && (nextTo(index - 1) || nextTo(index + 1))) continue; // the fence around an edit
        reply += text;
        continue;
      }
      if (kind === 'inlineReference') {
        // A file the reply names, rendered as a link.
        const ref = asObj(part.inlineReference);
        const file = asString(part.name) ?? uriPath(ref?.uri ?? ref);
        if (file) reply += names.relative(file);
        continue;
      }
      if (kind === 'textEditGroup' && editOf) {
        const file = uriPath(part.uri);
        if (file) {
          if (editOf.call.content === toolCallText(editOf.toolId, '')) editOf.call.content = toolCallText(editOf.toolId, names.relative(file));
          editOf.messages.push({ role: 'tool', content: `Edited ${names.relative(file)}`, timestamp: at });
        }
        editOf = undefined;
        continue;
      }
      if (kind !== 'toolInvocationSerialized') continue; // thinking, progress, confirmations…
      const toolId = asString(part.toolId) ?? 'tool';
      const owner = asString(part.subAgentInvocationId);
      const data = asObj(part.toolSpecificData);
      const call = toolCallText(toolId, names.links(markdown(part.invocationMessage)) ?? '');
      const output = toolOutput(part, names.links);
      if (owner) {
        // A sub-agent's own tool call.
        const s = subagent(owner);
        const message: ChatMessage = { role: 'tool', content: call, timestamp: at };
        s.messages.push(message);
        if (output) s.messages.push({ role: 'tool', content: output, timestamp: at });
        editOf = output ? undefined : { messages: s.messages, call: message, toolId };
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
      const message: ChatMessage = { role: 'tool', content: call, timestamp: at };
      session.messages.push(message);
      if (output) session.messages.push({ role: 'tool', content: output, timestamp: at });
      editOf = output ? undefined : { messages: session.messages, call: message, toolId };
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
