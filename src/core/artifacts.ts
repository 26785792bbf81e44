// The session artifacts Baton keeps as plain files beside its store (docs/memory.md, "Session
// artifacts"): the canonical transcript as JSONL, the session's manifest, and the markdown of a
// compaction or of a session summary. Pure: names and contents only; the server writes them.

import { hashText } from './hash';

/** Names that may be used as a file name unchanged: no separators, no leading dot, short. */
const PLAIN_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/;
/** The ending fileToken gives an escaped name: a plain name must not look like one. */
const TOKEN_ENDING = /-[0-9a-f]{14}$/;

/**
 * A file-name-safe token for an agent id or a session key. A plain name (`default`, `main_3`)
 * stays as it is; anything else (a `/`, `..`, spaces, a UUID-like ending, a long key) becomes its
 * readable part plus a hash of the whole value, so two different values never share a token
 * and no token can name a parent folder or contain a path separator.
 */
export function fileToken(value: string): string {
  if (PLAIN_NAME.test(value) && !TOKEN_ENDING.test(value) && !value.includes('--')) return value;
  const readable = value
    .replace(/[^A-Za-z0-9_]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 40);
  return `${readable || 'key'}-${hashText(value)}`;
}

/** An ISO time as a file-name part: `2026-11-27T03-19-50-123Z` (no colons, sorts like the time). */
export function timeStamp(iso: string): string {
  return iso.replace(/[:.]/g, '-');
}

export type ArtifactKind = 'compaction' | 'summary';

/** `{captured_at}--{session_token}--{kind}.md`: immutable, one per compaction or session summary. */
export function artifactFileName(capturedAt: string, sessionToken: string, kind: ArtifactKind): string {
  return `${timeStamp(capturedAt)}--${sessionToken}--${kind}.md`;
}

export interface TranscriptLine {
  session_key: string;
  seq: number;
  role: string;
  text: string;
  at: string | null;
}

/** One JSON object per turn, one line each, in turn order; a final newline. */
export function transcriptJsonl(sessionKey: string, turns: Array<{ seq: number; role: string; text: string; at: string | null }>): string {
  return turns
    .map((t) => JSON.stringify({ session_key: sessionKey, seq: t.seq, role: t.role, text: t.text, at: t.at } satisfies TranscriptLine) + '\n')
    .join('');
}

/**
 * The session's manifest (manifest.json beside its transcript.jsonl). Mutable: each session end
 * rewrites the transcript fields, a compaction sets `compaction_path`, the summary job sets
 * `summary_path`. Paths are relative to the data directory, with `/` separators.
 */
export interface SessionManifest {
  version: 1;
  session_key: string;
  session_token: string;
  agent_id: string;
  harness: string;
  project: string | null;
  lineage: {
    parent_session_key: string | null;
    lineage_source: string | null;
    harness_agent_id: string | null;
    harness_agent_type: string | null;
    execution_mode: string | null;
  };
  status: string | null;
  ended_at: string | null;
  end_reason: string | null;
  /** Null until a session end has written the transcript. */
  transcript_path: string | null;
  turn_count: number;
  transcript_bytes: number;
  transcript_sha256: string | null;
  /** When the transcript was last written (the `captured_at` of its summary). */
  captured_at: string | null;
  compaction_path: string | null;
  compaction_paths: string[];
  summary_path: string | null;
  summary_job_id: string | null;
  created_at: string;
  updated_at: string;
}

/** A manifest for a session nothing was written for yet. */
export function emptyManifest(init: { sessionKey: string; sessionToken: string; agentId: string; harness: string; now: string }): SessionManifest {
  return {
    version: 1,
    session_key: init.sessionKey,
    session_token: init.sessionToken,
    agent_id: init.agentId,
    harness: init.harness,
    project: null,
    lineage: { parent_session_key: null, lineage_source: null, harness_agent_id: null, harness_agent_type: null, execution_mode: null },
    status: null,
    ended_at: null,
    end_reason: null,
    transcript_path: null,
    turn_count: 0,
    transcript_bytes: 0,
    transcript_sha256: null,
    captured_at: null,
    compaction_path: null,
    compaction_paths: [],
    summary_path: null,
    summary_job_id: null,
    created_at: init.now,
    updated_at: init.now,
  };
}

/** First `max` characters of a text, on one line. */
function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : flat.slice(0, max - 1) + '…';
}

/** A YAML front-matter block of plain scalars (strings are JSON-quoted, which YAML reads as is). */
function frontMatter(fields: Record<string, string | number | null>): string {
  const lines = Object.entries(fields).map(([k, v]) => `${k}: ${v === null ? 'null' : typeof v === 'number' ? String(v) : JSON.stringify(v)}`);
  return ['---', ...lines, '---', ''].join('\n');
}

export interface ArtifactHeader {
  sessionKey: string | null;
  agentId: string;
  harness: string | null;
  project: string | null;
  capturedAt: string;
}

/** The compaction summary as the harness wrote it, under a front matter naming its session. */
export function compactionMarkdown(header: ArtifactHeader, summary: string): string {
  return (
    frontMatter({
      kind: 'compaction',
      session_key: header.sessionKey,
      agent_id: header.agentId,
      harness: header.harness,
      project: header.project,
      captured_at: header.capturedAt,
    }) + `\n# Compaction summary\n\n${summary.trim()}\n`
  );
}

/**
 * A deterministic summary of a session's transcript (no language model): what was asked, the
 * last answer, and how many tool calls there were.
 */
export function summaryMarkdown(header: ArtifactHeader & { turnCount: number }, turns: Array<{ role: string; text: string }>): string {
  const prompts = turns.filter((t) => t.role === 'user');
  const lastAnswer = [...turns].reverse().find((t) => t.role === 'assistant');
  const tools = turns.filter((t) => t.role === 'tool').length;
  const asked = prompts.slice(-12).map((t) => `- ${oneLine(t.text, 240)}`);
  return [
    frontMatter({
      kind: 'summary',
      session_key: header.sessionKey,
      agent_id: header.agentId,
      harness: header.harness,
      project: header.project,
      captured_at: header.capturedAt,
      turn_count: header.turnCount,
    }),
    '# Session summary',
    '',
    '## Goal',
    '',
    prompts.length ? oneLine(prompts[0].text, 400) : '(no prompt recorded)',
    '',
    '## Asked',
    '',
    ...(asked.length ? asked : ['- (nothing)']),
    ...(prompts.length > 12 ? [`- … and ${prompts.length - 12} earlier prompts`] : []),
    '',
    '## Latest answer',
    '',
    lastAnswer ? oneLine(lastAnswer.text, 800) : '(none)',
    '',
    '## Activity',
    '',
    `- ${header.turnCount} turns, ${prompts.length} prompts, ${tools} tool calls or results`,
    '',
  ].join('\n');
}
