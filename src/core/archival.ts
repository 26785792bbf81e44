// Archival (docs/memory.md, "Archival"), the pure parts: when a finished turn collapses into a holder sub-agent,
// what the parent keeps in its place, and the summary (structured when a model gave valid JSON,
// a deterministic one otherwise; invalid model JSON is kept but marked).

import { estimateTokens } from './inherit';

export interface ArchivalSettings {
  enabled: boolean;
  maxTurns: number;
  tokenThreshold: number;
  toolCallThreshold: number;
  depthCap: number;
}

export interface TurnFacts {
  /** Turns in the conversation so far, this one included. */
  conversationTurns: number;
  /** The finished turn's text (prompt and response). */
  text: string;
  toolCalls: number;
  /** A tool call is still in flight: never archive then. */
  toolCallOpen: boolean;
  /** Depth of the conversation: 0 for the participant, 1 for a holder, … */
  depth: number;
}

export type ArchivalDecision = { archive: true; reason: 'max_turns' | 'token_threshold' | 'tool_call_threshold' } | { archive: false; reason: string };

export function shouldArchive(settings: ArchivalSettings, facts: TurnFacts): ArchivalDecision {
  if (!settings.enabled) return { archive: false, reason: 'disabled' };
  if (facts.toolCallOpen) return { archive: false, reason: 'tool call in flight' };
  if (facts.depth >= settings.depthCap) return { archive: false, reason: 'at depth cap' };
  if (facts.conversationTurns >= settings.maxTurns) return { archive: true, reason: 'max_turns' };
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

export interface LiveHolder {
  id: string;
  outcome: string;
}

/** The "Live Subagents" section of the participant's prompt. */
export function liveSubagentsSection(holders: LiveHolder[]): string {
  if (holders.length === 0) return '';
  return [
    '## Live Subagents',
    'Archived turns, each kept whole by a holder sub-agent; ask one with baton_query_subagent(id, prompt):',
    ...holders.map((h) => `- ${h.id}: ${h.outcome}`),
  ].join('\n');
}
