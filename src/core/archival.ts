// Archival (docs/archival.md), the pure parts: when a finished turn collapses into a holder
// sub-agent (the triggers), what the model is sent in its place (the marker, the Live Subagents
// section), the summary (style, model, structured or paragraph, deterministic without a model),
// what a holder may use (its tool grant), and the rules of the archive route (ranges, holder keys).

import { DEFAULT_AGENT } from './agents';
import { fileToken } from './artifacts';
import { estimateTokens } from './inherit';

/** The triggers (docs/archival.md, "Triggers"). */
export interface ArchivalTriggers {
  enabled: boolean;
  /** Archive a turn that ended with the max-turns marker. */
  onMaxTurns: boolean;
  tokenThreshold: number;
  toolCallThreshold: number;
  depthCap: number;
}

export type SummaryStyle = 'structured' | 'paragraph';
export const SUMMARY_STYLES: readonly SummaryStyle[] = ['structured', 'paragraph'];

/** Everything archival is configured with: the triggers, the summary and the holders' tool grant. */
export interface ArchivalSettings extends ArchivalTriggers {
  summary: {
    style: SummaryStyle;
    /** A model id or family to summarise with instead of the conversation's model; null: the conversation's. */ model: string | null;
  };
  /** The tools a holder may use when it answers a question; empty (the default): none, it only holds its transcript. */
  holderTools: string[];
}

export const ARCHIVAL_DEFAULTS: ArchivalSettings = {
  enabled: false,
  onMaxTurns: true,
  tokenThreshold: 8_000,
  toolCallThreshold: 5,
  depthCap: 3,
  summary: { style: 'structured', model: null },
  holderTools: [],
};

/** What an agent loop appends when it stops at its round limit: the work so far, frozen. */
export const MAX_TURNS_MARKER = '[Max turns reached]';

/** Whether a turn's response ended at the agent loop's round limit (the max-turns ending). */
export function endedAtMaxTurns(response: string): boolean {
  return response.trimEnd().endsWith(MAX_TURNS_MARKER);
}

export interface TurnFacts {
  /** The finished turn's text (prompt and response). */
  text: string;
  /** The turn's response ended with the max-turns marker. */
  maxTurnsEnding: boolean;
  toolCalls: number;
  /** A tool call is still in flight: never archive then. */
  toolCallOpen: boolean;
  /** Depth of the conversation: 0 for the participant, 1 for a holder, … */
  depth: number;
}

export type ArchivalDecision = { archive: true; reason: 'max_turns' | 'token_threshold' | 'tool_call_threshold' } | { archive: false; reason: string };

/** The trigger rules, in order: off, unfinished turn, depth cap, then max-turns ending, tokens, tool calls (each at or above). */
export function shouldArchive(settings: ArchivalTriggers, facts: TurnFacts): ArchivalDecision {
  if (!settings.enabled) return { archive: false, reason: 'disabled' };
  if (facts.toolCallOpen) return { archive: false, reason: 'tool call in flight' };
  if (facts.depth >= settings.depthCap) return { archive: false, reason: 'at depth cap' };
  if (settings.onMaxTurns && facts.maxTurnsEnding) return { archive: true, reason: 'max_turns' };
  if (estimateTokens(facts.text) >= settings.tokenThreshold) return { archive: true, reason: 'token_threshold' };
  if (facts.toolCalls >= settings.toolCallThreshold) return { archive: true, reason: 'tool_call_threshold' };
  return { archive: false, reason: 'below thresholds' };
}

export interface StructuredSummary {
  outcome: string;
  key_findings: string[];
  files_touched: string[];
  tools_used: string[];
  open_questions: string[];
}

export type ArchiveSummary =
  { kind: 'structured'; value: StructuredSummary } | { kind: 'paragraph'; text: string } | { kind: 'invalid'; raw: string; problem: string };

const LIST_FIELDS = ['key_findings', 'files_touched', 'tools_used', 'open_questions'] as const;

/** Reads a model's summary: valid JSON of the schema, or marked invalid with the raw text kept. */
export function parseModelSummary(raw: string): ArchiveSummary {
  const text = raw
    .trim()
    .replace(/^```(?:json)?\s*/i, '')
    .replace(/\s*```$/, '');
  if (!text.startsWith('{')) return text ? { kind: 'paragraph', text } : { kind: 'invalid', raw, problem: 'empty summary' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return { kind: 'invalid', raw, problem: `not valid JSON: ${(err as Error).message}` };
  }
  const o = parsed as Record<string, unknown>;
  if (typeof o.outcome !== 'string') return { kind: 'invalid', raw, problem: 'outcome must be a string' };
  for (const field of LIST_FIELDS) {
    if (!Array.isArray(o[field]) || !(o[field] as unknown[]).every((x) => typeof x === 'string'))
      return { kind: 'invalid', raw, problem: `${field} must be a list of strings` };
  }
  return {
    kind: 'structured',
    value: {
      outcome: o.outcome,
      key_findings: o.key_findings as string[],
      files_touched: o.files_touched as string[],
      tools_used: o.tools_used as string[],
      open_questions: o.open_questions as string[],
    },
  };
}

const FILE = /(?:^|[\s`'"(])((?:\.{0,2}\/)?(?:[\w.-]+\/)*[\w.-]+\.(?:ts|tsx|js|jsx|mjs|cjs|json|md|py|go|rs|java|kt|rb|css|html|yml|yaml|toml|sql|sh))\b/g;

/** A summary without a model: the outcome is the response's first sentence; files and tools are found in the text. */
export function deterministicSummary(prompt: string, response: string, toolsUsed: string[]): StructuredSummary {
  const first =
    response
      .replace(/\s+/g, ' ')
      .trim()
      .split(/(?<=[.!?])\s/)[0] ?? '';
  const files = [...new Set([...`${prompt}\n${response}`.matchAll(FILE)].map((m) => m[1]))].slice(0, 20);
  const questions = response
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.endsWith('?'))
    .slice(0, 5);
  return {
    outcome: first.slice(0, 300) || 'The turn ended without a response.',
    key_findings: [`Asked: ${prompt.replace(/\s+/g, ' ').trim().slice(0, 200)}`],
    files_touched: files,
    tools_used: [...new Set(toolsUsed)],
    open_questions: questions,
  };
}

export function renderSummary(summary: ArchiveSummary): string {
  if (summary.kind === 'paragraph') return summary.text;
  if (summary.kind === 'invalid') return `[summary: invalid model output (${summary.problem})]\n${summary.raw}`;
  const s = summary.value;
  const list = (name: string, items: string[]) => (items.length ? `${name}:\n${items.map((i) => `- ${i}`).join('\n')}` : `${name}: none`);
  return [
    `outcome: ${s.outcome}`,
    list('key_findings', s.key_findings),
    list('files_touched', s.files_touched),
    list('tools_used', s.tools_used),
    list('open_questions', s.open_questions),
  ].join('\n');
}

/** What the parent's history keeps instead of the archived turn. */
export function archivedMarker(holderId: string, summary: ArchiveSummary): string {
  return `[archived turn]\nsubagent_id: ${holderId}\n\n${renderSummary(summary)}`;
}

/** The summary as the configured style: a paragraph style turns a structured summary into prose (3-5 sentences, no bullets). */
export function inStyle(summary: ArchiveSummary, style: SummaryStyle): ArchiveSummary {
  if (style !== 'paragraph' || summary.kind !== 'structured') return summary;
  const s = summary.value;
  const sentence = (text: string) => (/[.!?]$/.test(text) ? text : `${text}.`);
  const parts = [sentence(s.outcome), ...s.key_findings.slice(0, 2).map(sentence)];
  if (s.files_touched.length) parts.push(`Files touched: ${s.files_touched.join(', ')}.`);
  if (s.tools_used.length) parts.push(`Tools used: ${s.tools_used.join(', ')}.`);
  if (s.open_questions.length) parts.push(`Open: ${s.open_questions.join(' ')}`);
  return { kind: 'paragraph', text: parts.slice(0, 5).join(' ') };
}

/**
 * The style actually used with a model: some providers (Ollama) return unreliable JSON, so they
 * always get the paragraph style, with a warning.
 */
export function effectiveSummaryStyle(style: SummaryStyle, vendor: string | undefined): { style: SummaryStyle; warning?: string } {
  if (style === 'structured' && vendor?.toLowerCase() === 'ollama')
    return { style: 'paragraph', warning: 'Archival summaries use the paragraph style with Ollama models (their JSON output is unreliable).' };
  return { style };
}

/** The request that asks a model for a turn's summary in the given style. */
export function summaryRequest(style: SummaryStyle, prompt: string, response: string): string {
  const ask =
    style === 'paragraph'
      ? 'Summarise the conversation turn below in one paragraph of 3-5 sentences, no bullets: what was asked, what was found or done, files touched, what is still open.'
      : `Summarise the conversation turn below as JSON with exactly these fields:
{"outcome": string, "key_findings": string[], "files_touched": string[], "tools_used": string[], "open_questions": string[]}
Answer with the JSON only.`;
  return `${ask}\n\nUser: ${prompt}\n\nAssistant: ${response}`;
}

export interface ModelInfo {
  id: string;
  family: string;
  vendor: string;
}

/** The model named by the summary.model setting (an id, a family, or vendor/family), or undefined when none matches. */
export function matchModel<M extends ModelInfo>(models: M[], wanted: string): M | undefined {
  const w = wanted.trim().toLowerCase();
  return (
    models.find((m) => m.id.toLowerCase() === w) ??
    models.find((m) => m.family.toLowerCase() === w) ??
    models.find((m) => `${m.vendor}/${m.family}`.toLowerCase() === w)
  );
}

/** Whether a holder may use a tool: only the tools its grant names (none by default; no approval channel mid-run). */
export function holderMayUse(grant: readonly string[], tool: string): boolean {
  return grant.includes(tool);
}

/** The granted subset of the tools on offer, in the order offered. */
export function grantedTools<T extends { name: string }>(offered: readonly T[], grant: readonly string[]): T[] {
  return offered.filter((t) => holderMayUse(grant, t.name));
}

/** What a holder is told when its model calls a tool it was not granted: report being blocked, do not retry. */
export function deniedToolMessage(tool: string): string {
  return `Tool "${tool}" is not granted to this holder (baton.archival.holderTools). Answer from the transcript, or say that you are blocked; do not retry.`;
}

export interface LiveHolder {
  id: string;
  /** "Archive: " and the archived turn's prompt (first line, shortened). */
  task: string;
}

export function holderTask(prompt: string): string {
  const first = prompt.trim().split('\n')[0].replace(/\s+/g, ' ');
  return `Archive: ${first.length > 80 ? `${first.slice(0, 79)}…` : first}`;
}

/** The "Live Subagents" section of the participant's prompt. */
export function liveSubagentsSection(holders: LiveHolder[]): string {
  if (holders.length === 0) return '';
  return [
    '# Live Subagents',
    'These subagents hold archived prior turns of this conversation. Use the `baton_query_subagent(id, prompt)` tool to retrieve detail; spawn a new one with `baton_spawn_subagent(task)` to fan out. Do not query unless you actually need the detail.',
    ...holders.map((h) => `- id: ${h.id} | task: ${h.task}`),
  ].join('\n');
}

/** A turn of the conversation as the participant knows it, archived or not. */
export interface ConversationTurn {
  prompt: string;
  response: string;
  /** Set when the turn was archived: the marker that replaces it. */
  archivedMarker?: string;
}

export interface HistoryMessage {
  role: 'user' | 'assistant';
  content: string;
}

/**
 * The conversation as the model is sent it: each live turn as its prompt and its response, each
 * archived turn only as its marker (`[archived turn]`, the holder id, the summary).
 */
export function historyForModel(turns: ConversationTurn[]): HistoryMessage[] {
  const out: HistoryMessage[] = [];
  for (const turn of turns) {
    if (turn.archivedMarker) {
      out.push({ role: 'assistant', content: turn.archivedMarker });
      continue;
    }
    if (turn.prompt.trim()) out.push({ role: 'user', content: turn.prompt });
    if (turn.response.trim()) out.push({ role: 'assistant', content: turn.response });
  }
  return out;
}

/**
 * Where a holder's JSONL transcript lives under the data directory: agents/subagent-<id>/sessions/<id>.jsonl
 * for the default agent's holders (the participant's), agents/<agent>/subagent-<id>/… for another
 * agent's, since holder keys are per agent and two agents may hold the same one.
 */
export function holderTranscriptPath(holderId: string, agentId: string = DEFAULT_AGENT): string[] {
  const id = holderId.replace(/[^\w.-]+/g, '_');
  const agentFolder = agentId === DEFAULT_AGENT ? [] : [fileToken(agentId)];
  return ['agents', ...agentFolder, `subagent-${id}`, 'sessions', `${id}.jsonl`];
}

/** A holder's transcript as that file holds it: one `{role, content}` JSON object per line. */
export function holderTranscriptJsonl(turns: ReadonlyArray<{ role: string; text: string }>): string {
  return turns.map((t) => JSON.stringify({ role: t.role, content: t.text }) + '\n').join('');
}

/** Why a range of a session's turns cannot be archived (null: it can). Seqs are 1-based and inclusive. */
export function archiveRangeProblem(from: number, to: number, total: number): string | null {
  if (total === 0) return 'the session has no turns to archive';
  if (from < 1) return `from must be 1 or more (got ${from})`;
  if (to < from) return `to (${to}) must not be before from (${from})`;
  if (to > total) return `to (${to}) is past the session's last turn (${total})`;
  return null;
}

/** The next free holder key under a parent: <parent>/holder-N, N one more than the highest in use. */
export function nextHolderKey(parentKey: string, childKeys: readonly string[]): string {
  const prefix = `${parentKey}/holder-`;
  let highest = 0;
  for (const key of childKeys) {
    if (!key.startsWith(prefix)) continue;
    const n = Number(key.slice(prefix.length));
    if (Number.isInteger(n) && n > highest) highest = n;
  }
  return `${prefix}${highest + 1}`;
}

/** A deterministic summary of stored turns (the API's default when the caller gives none). */
export function summaryOfTurns(turns: ReadonlyArray<{ role: string; text: string }>): StructuredSummary {
  const prompts = turns.filter((t) => t.role === 'user').map((t) => t.text);
  const replies = turns.filter((t) => t.role === 'assistant').map((t) => t.text);
  const tools = turns.filter((t) => t.role === 'tool').map((t) => t.text.split(/[\s:(]/)[0]);
  const summary = deterministicSummary(prompts.join('\n'), replies.join('\n'), tools.filter(Boolean));
  return { ...summary, key_findings: prompts.slice(0, 5).map((p) => `Asked: ${p.replace(/\s+/g, ' ').trim().slice(0, 200)}`) };
}
