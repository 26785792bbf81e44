// Turns a transcript into ordered Baton turns: the harness-agnostic part. Harness-specific JSONL
// formats (Claude Code, Codex) are parsers given by the harness registry (src/harnesses/, see
// docs/harnesses.md); this file keeps detection, message lists (`[{role, content}]` and the
// shapes harnesses wrap them in), plain text, and the helpers the parsers share. Pure: no I/O,
// never throws on malformed input, because the files are read while the harness is still
// appending to them.

import type { Role, Turn } from './types';
import { tokenCount, type TurnUsage } from './usage';

/** The formats every harness shares; harness parsers add their own names (`claude-code-jsonl`…). */
export type TranscriptFormat = 'messages-json' | 'plain' | (string & {});

export type Obj = Record<string, unknown>;

/** A JSON-lines format one harness writes. */
export interface TranscriptParser {
  /** Its name, for `NormalizeHint.format`. */
  format: string;
  /** True for a record only this format writes: detection stops at the first decisive line. */
  recognizes(record: Obj): boolean;
  /** The format's records (one object per line, torn lines already dropped) as turns. */
  parse(records: Obj[]): Turn[];
  /**
   * The turns of records appended after those `state` describes, as one parse of all of them would
   * give (so a hook reads only what a harness appended); `restart` when they would change turns
   * already produced: the caller parses the whole file again, starting with the facts it names.
   */
  parseFrom(records: Obj[], state: LineParseState): LineParseResult;
  /** True for a record nothing of which can merge into the turns before it: a read cut before it never splits a turn. */
  startsFresh(record: Obj): boolean;
}

/** Where a line-by-line parse stopped: what the next records need to continue it exactly. */
export interface LineParseState {
  /** Records parsed so far (line-scoped merge keys are numbered by it). */
  records: number;
  /** The last turn's role and open merge key: a continuation merging into it must restart. */
  open?: { role: Role; key: string };
  /** Facts a parser learned about the whole file so far (Claude Code: a main thread was seen). */
  flags: Record<string, boolean>;
  /** The model the records so far last named, for formats that name it once per turn (Codex's turn_context). */
  model?: string;
  /** A request's usage read before any turn could carry it: the next turn takes it (TurnSink.attachUsage). */
  pendingUsage?: TurnUsage;
}

export type LineParseResult = { turns: Turn[]; state: LineParseState } | { restart: Record<string, boolean> };

export const START_STATE: LineParseState = { records: 0, flags: {} };

export interface NormalizeHint {
  /** Harness name (`claude-code`, `codex`, `opencode`, `openclaw`…): a tie-breaker only. */
  harness?: string;
  /** Forces the parser; skips detection. */
  format?: TranscriptFormat;
}

export interface NormalizeFormats {
  parsers: readonly TranscriptParser[];
  /** The format a harness's JSON-looking but undecided text falls back to (from its name). */
  fallbackFor(harness: string | undefined): TranscriptFormat | undefined;
}

/** Tool output is context, not content: keep enough to understand it, not whole files. */
export const TOOL_RESULT_CAP = 2000;
/** A tool call is shown as `name(input)`; long inputs (file bodies, patches) are cut. */
export const TOOL_CALL_CAP = 500;

/** The format of a transcript's text (detected, or the hint's), without parsing it. */
export function formatOf(raw: string, hint: NormalizeHint, formats: NormalizeFormats): TranscriptFormat {
  return hint.format ?? detectFormat(raw.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n'), hint.harness, formats);
}

/** Normalises with the given harness formats (the registry passes every harness's parser). */
export function normalizeWith(raw: string, hint: NormalizeHint, formats: NormalizeFormats): Turn[] {
  const text = raw.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  const format = hint.format ?? detectFormat(text, hint.harness, formats);
  const parser = formats.parsers.find((p) => p.format === format);
  if (parser) return parser.parse(parseJsonLines(text));
  if (format === 'messages-json') return fromMessageList(parseMessageDocument(text));
  return fromPlainText(text);
}

const RENDER_LABELS: Record<Role, string> = {
  user: 'User',
  assistant: 'Assistant',
  tool: 'Tool',
  system: 'System',
};

export function renderTurn(turn: Turn): string {
  return `${RENDER_LABELS[turn.role]}: ${turn.text}`;
}

export function renderTranscript(turns: Turn[]): string {
  return turns.map(renderTurn).join('\n');
}

// ---------------------------------------------------------------------------------------------
// Detection

function detectFormat(text: string, harness: string | undefined, formats: NormalizeFormats): TranscriptFormat {
  const trimmed = text.trim();
  if (trimmed === '') return 'plain';
  const whole = tryParse(trimmed);
  if (Array.isArray(whole) || Array.isArray(asObj(whole)?.messages)) return 'messages-json';

  // Scan lines until one is decisive: the first line usually is (session_meta, a summary…).
  for (const line of trimmed.split('\n')) {
    const record = asObj(tryParse(line));
    if (!record) continue;
    const parser = formats.parsers.find((p) => p.recognizes(record));
    if (parser) return parser.format;
    if (isMessageLike(record) || isMessageLike(asObj(record.message))) return 'messages-json';
  }

  // JSON-looking but undecided (only unknown records, or one torn line): never show raw JSON
  // as a user turn; the harness name picks the parser, and unknown records yield nothing.
  const jsonLooking = trimmed.split('\n').every((l) => l.trim() === '' || /^\s*[[{]/.test(l));
  if (jsonLooking) return formats.fallbackFor(harness) ?? 'messages-json';
  return 'plain';
}

function isMessageLike(r: Obj | undefined): boolean {
  return r !== undefined && (typeof r.role === 'string' || typeof asObj(r.info)?.role === 'string');
}

// ---------------------------------------------------------------------------------------------
// Message lists: OpenCode export, OpenClaw, OpenAI/Anthropic-style [{role, content}]

function parseMessageDocument(text: string): Obj[] {
  const whole = tryParse(text.trim());
  if (Array.isArray(whole)) return whole.map(asObj).filter((m): m is Obj => m !== undefined);
  const messages = asObj(whole)?.messages;
  if (Array.isArray(messages)) return messages.map(asObj).filter((m): m is Obj => m !== undefined);
  // JSONL of messages (OpenClaw session files wrap each in {type: 'message', message}).
  return parseJsonLines(text).map((r) => (typeof r.role === 'string' || asObj(r.info) ? r : unwrapMessage(r)));
}

function unwrapMessage(record: Obj): Obj {
  const inner = asObj(record.message);
  if (!inner) return record;
  return inner.timestamp === undefined && record.timestamp !== undefined ? { ...inner, timestamp: record.timestamp } : inner;
}

/**
 * The turns of messages that follow `state.records` earlier ones of the same list, as one parse of
 * the whole list gives them (a message's turns never merge into another's), and the state after.
 */
export function messageListFrom(messages: unknown[], state: LineParseState): { turns: Turn[]; state: LineParseState } {
  const objects = messages.map(asObj).filter((m): m is Obj => m !== undefined);
  return { turns: fromMessageList(objects, state.records), state: { records: state.records + objects.length, flags: {} } };
}

function fromMessageList(messages: Obj[], base = 0): Turn[] {
  const sink = new TurnSink();
  messages.forEach((m, position) => {
    const index = base + position;
    const info = asObj(m.info) ?? m; // OpenCode export: {info: {role, time}, parts}
    const role = mapRole(info.role ?? m.role);
    if (!role) return;
    const at = toIso(m.timestamp ?? m.createdAt ?? m.created_at ?? asObj(info.time)?.created);
    const mergeKey = `message:${index}`;
    const body = Array.isArray(m.parts) ? m.parts : m.content;
    const usage = role === 'assistant' ? (openCodeUsage(info) ?? givenUsage(m.usage)) : givenUsage(m.usage);

    if (typeof body === 'string') sink.push(role, bodyText(role, body), at, mergeKey, usage);
    else if (Array.isArray(body)) for (const part of body) messagePart(part, role, at, mergeKey, sink, usage);

    // OpenAI chat shape: assistant {tool_calls: [{function: {name, arguments}}]}
    if (Array.isArray(m.tool_calls)) {
      for (const call of m.tool_calls) {
        const fn = asObj(asObj(call)?.function);
        if (fn) sink.push('tool', toolCallText(fn.name, fn.arguments), at);
      }
    }
  });
  return sink.turns;
}

/** A tool-role message is tool output: capped like any other. */
function bodyText(role: Role, text: unknown): string | undefined {
  return role === 'tool' ? toolResultText(text) : asString(text);
}

/**
 * An OpenCode assistant message's request (`{info: {id, modelID, tokens, cost, time.completed}}`),
 * once it is finished: a message still streaming has no final tokens yet, and the store keeps the
 * first usage of a key. OpenCode writes a cost of 0 for a model it has no price for: not reported.
 */
function openCodeUsage(info: Obj): TurnUsage | undefined {
  const tokens = asObj(info.tokens);
  const key = asString(info.id);
  if (!tokens || !key || asObj(info.time)?.completed === undefined) return undefined;
  const cache = asObj(tokens.cache);
  const usage: TurnUsage = {
    key,
    model: asString(info.modelID) ?? null,
    inputTokens: tokenCount(tokens.input),
    // Reasoning is billed as output; OpenCode counts it apart.
    outputTokens: tokenCount(tokens.output) + tokenCount(tokens.reasoning),
    cacheReadTokens: tokenCount(cache?.read),
    cacheWriteTokens: tokenCount(cache?.write),
    costUsd: null,
  };
  const cost = info.cost;
  if (typeof cost === 'number' && Number.isFinite(cost) && cost > 0) usage.costUsd = cost;
  return usage;
}

/** A message's `usage` in Baton's own shape (core/spend.ts TurnUsage), as a harness's own lists carry it (Copilot CLI's sub-agents). */
function givenUsage(value: unknown): TurnUsage | undefined {
  const u = asObj(value);
  const key = asString(u?.key);
  if (!u || !key || key.length > 200) return undefined;
  const model = asString(u.model);
  return {
    key,
    model: model !== undefined && model.length <= 200 ? model : null,
    inputTokens: tokenCount(u.inputTokens),
    outputTokens: tokenCount(u.outputTokens),
    cacheReadTokens: tokenCount(u.cacheReadTokens),
    cacheWriteTokens: tokenCount(u.cacheWriteTokens),
    costUsd: typeof u.costUsd === 'number' && Number.isFinite(u.costUsd) && u.costUsd >= 0 ? u.costUsd : null,
  };
}

function messagePart(part: unknown, role: Role, at: string | undefined, mergeKey: string, sink: TurnSink, usage?: TurnUsage): void {
  if (typeof part === 'string') {
    sink.push(role, bodyText(role, part), at, mergeKey, usage);
    return;
  }
  const p = asObj(part);
  if (!p) return;
  switch (p.type) {
    case 'text':
    case 'input_text':
    case 'output_text':
      // Synthetic text (added by plugins, e.g. Baton's own context) is kept: the model saw it.
      sink.push(role, bodyText(role, p.text), at, mergeKey, usage);
      return;
    case 'tool': {
      // OpenCode: one part holds the call and, once finished, its output or error.
      const state = asObj(p.state) ?? {};
      sink.push('tool', toolCallText(p.tool, state.input), at, undefined, usage);
      const error = asString(state.error);
      sink.push('tool', error !== undefined ? `Error: ${error}` : toolResultText(state.output), at);
      return;
    }
    case 'tool_use':
    case 'toolCall':
    case 'tool-call':
    case 'function_call':
      sink.push('tool', toolCallText(p.name ?? p.toolName, p.input ?? p.arguments ?? p.args), at, undefined, usage);
      return;
    case 'tool_result':
    case 'toolResult':
    case 'tool-result':
      sink.push('tool', toolResultText(p.content ?? p.output ?? p.result), at);
      return;
    default:
      return; // reasoning, thinking, step-start/finish, file, patch, snapshot…
  }
}

// ---------------------------------------------------------------------------------------------
// Plain text

const PLAIN_LABEL = /^(user|assistant|human|ai|tool|system)[ \t]*:[ \t]*(.*)$/i;
const PLAIN_ROLES: Record<string, Role> = {
  user: 'user',
  human: 'user',
  assistant: 'assistant',
  ai: 'assistant',
  tool: 'tool',
  system: 'system',
};

function fromPlainText(text: string): Turn[] {
  const sink = new TurnSink();
  // Text before the first label (or with no label at all) is what the user wrote.
  let role: Role = 'user';
  let lines: string[] = [];
  const flush = (): void => {
    sink.push(role, lines.join('\n'));
    lines = [];
  };
  for (const line of text.split('\n')) {
    const label = PLAIN_LABEL.exec(line);
    if (label) {
      flush();
      role = PLAIN_ROLES[label[1].toLowerCase()];
      lines = [label[2]];
    } else {
      lines.push(line);
    }
  }
  flush();
  return sink.turns;
}

// ---------------------------------------------------------------------------------------------
// Shared helpers

/**
 * Collects turns, dropping empty ones. Consecutive pushes with the same role and merge key
 * (one Claude Code message split over lines, the text parts of one message) become one turn.
 */
export class TurnSink {
  readonly turns: Turn[] = [];
  private openKey: string | undefined;
  /** Set when a push would have merged into the turn a previous parse ended with (`carried`). */
  mergedIntoCarried = false;

  constructor(
    private readonly carried?: { role: Role; key: string },
    /** Usage a previous parse could not give to a turn (LineParseState.pendingUsage). */
    private pendingUsage?: TurnUsage,
  ) {}

  /** Usage still waiting for a turn: the parse state keeps it for the next read. */
  get waitingUsage(): TurnUsage | undefined {
    return this.pendingUsage;
  }

  /** The last turn's role and merge key while a following push could still merge into it. */
  get open(): { role: Role; key: string } | undefined {
    const last = this.turns[this.turns.length - 1];
    if (last) return this.openKey !== undefined ? { role: last.role, key: this.openKey } : undefined;
    return this.carried;
  }

  /** `usage`: the model request the text came from (core/spend.ts); a turn keeps the first it is given. */
  push(role: Role, text: string | undefined, at?: string, mergeKey?: string, usage?: TurnUsage): void {
    const clean = cleanText(text ?? '');
    if (clean === '') return;
    const last = this.turns[this.turns.length - 1];
    if (!last && mergeKey !== undefined && this.carried?.key === mergeKey && this.carried.role === role) this.mergedIntoCarried = true;
    if (mergeKey !== undefined && mergeKey === this.openKey && last?.role === role) {
      last.text += '\n\n' + clean;
      if (usage && !last.usage) last.usage = usage;
      return;
    }
    const turn: Turn = at !== undefined ? { role, text: clean, at } : { role, text: clean };
    const carried = usage ?? this.pendingUsage;
    if (carried) turn.usage = carried;
    if (carried === this.pendingUsage) this.pendingUsage = undefined;
    this.turns.push(turn);
    this.openKey = mergeKey;
  }

  /**
   * Usage of a request recorded apart from its text: after it (Codex's token_count event; `last`:
   * the last turn of this parse without usage takes it, else the next turn pushed) or before it
   * (Copilot CLI's usage record; `next`: the next turn pushed takes it).
   */
  attachUsage(usage: TurnUsage, to: 'last' | 'next' = 'last'): void {
    const last = this.turns[this.turns.length - 1];
    if (to === 'last' && last && !last.usage) last.usage = usage;
    else this.pendingUsage = usage;
  }
}

/** CRLF → LF, leading blank lines and trailing whitespace removed (first-line indent kept). */
export function cleanText(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/^(?:[ \t]*\n)+/, '')
    .trimEnd();
}

export function toolCallText(name: unknown, input: unknown): string {
  const label = asString(name) ?? 'tool';
  let args: string;
  if (typeof input === 'string') {
    const parsed = tryParse(input);
    args = parsed === undefined ? input : JSON.stringify(parsed); // compact pretty-printed JSON
  } else {
    args = input === undefined ? '' : (JSON.stringify(input) ?? '');
  }
  return truncate(`${label}(${args})`, TOOL_CALL_CAP);
}

export function toolResultText(content: unknown): string {
  return truncate(cleanText(flattenText(content, '\n')), TOOL_RESULT_CAP);
}

/** Text of a string, or of the text blocks in an array of blocks (Anthropic, Responses API). */
export function flattenText(content: unknown, separator: string): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const pieces: string[] = [];
  for (const block of content) {
    if (typeof block === 'string') pieces.push(block);
    const b = asObj(block);
    if (b && typeof b.text === 'string' && (b.type === undefined || /text$/.test(String(b.type)))) {
      pieces.push(b.text);
    }
  }
  return pieces.join(separator);
}

function truncate(text: string, cap: number): string {
  if (text.length <= cap) return text;
  let end = cap;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1; // do not split a surrogate pair
  return `${text.slice(0, end)}… [truncated ${text.length - end} chars]`;
}

export function mapRole(role: unknown): Role | undefined {
  switch (typeof role === 'string' ? role.toLowerCase() : '') {
    case 'user':
    case 'human':
      return 'user';
    case 'assistant':
    case 'ai':
    case 'model':
      return 'assistant';
    case 'tool':
    case 'toolresult':
    case 'tool_result':
    case 'function':
      return 'tool';
    case 'system':
    case 'developer':
      return 'system';
    default:
      return undefined;
  }
}

/** ISO strings pass through; epoch numbers (OpenCode uses milliseconds) are converted. */
function toIso(value: unknown): string | undefined {
  if (typeof value === 'string') return value === '' ? undefined : value;
  if (typeof value !== 'number' || !Number.isFinite(value)) return undefined;
  const ms = value < 1e11 ? value * 1000 : value; // seconds before ~1973 in ms are implausible
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** One object per line; unparsable lines (a torn last line mid-write) are skipped. */
export function parseJsonLines(text: string): Obj[] {
  const records: Obj[] = [];
  for (const line of text.split('\n')) {
    const record = asObj(tryParse(line));
    if (record) records.push(record);
  }
  return records;
}

export function tryParse(text: string): unknown {
  const t = text.trim();
  if (t === '') return undefined;
  try {
    return JSON.parse(t) as unknown;
  } catch {
    return undefined;
  }
}

export function asObj(value: unknown): Obj | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Obj) : undefined;
}

export function asString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
