// Codex's transcript format: rollout JSONL under $CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl
// (docs/harnesses.md). Pure: no I/O.

import {
  asObj,
  asString,
  flattenText,
  mapRole,
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
import { tokenCount, type TurnUsage } from '../../core/usage';

export const CODEX_JSONL = 'codex-jsonl';

const CODEX_TYPES = new Set(['session_meta', 'response_item', 'event_msg', 'turn_context', 'compacted']);

function isCodexRecord(r: Obj): boolean {
  return typeof r.type === 'string' && CODEX_TYPES.has(r.type) && asObj(r.payload) !== undefined;
}

export const codexTranscript: TranscriptParser = {
  format: CODEX_JSONL,
  recognizes: isCodexRecord,
  parse: (records) => {
    const parsed = fromCodex(records, START_STATE);
    return 'restart' in parsed ? [] : parsed.turns;
  },
  parseFrom: fromCodex,
  startsFresh: () => true,
};

/** User messages Codex writes for the model's benefit, not typed by the user. */
const CODEX_INJECTED_PREFIXES = ['<environment_context>', '<user_instructions>', '# AGENTS.md instructions for '];

/** A user message Codex writes when a sub-agent finishes (its status and last message): kept, as a system turn. */
const SUBAGENT_NOTIFICATION = '<subagent_notification>';

/** Line by line with no state across lines: Codex never merges pushes (no merge keys). */
function fromCodex(records: Obj[], state: LineParseState): LineParseResult {
  const sink = new TurnSink(state.open, state.pendingUsage);
  let model = state.model;
  for (const r of records) {
    const at = asString(r.timestamp);
    const p = asObj(r.payload);
    if (!p) continue;
    // Each turn's context names its model; the requests after it used that model.
    if (r.type === 'turn_context') model = asString(p.model) ?? model;
    if (r.type === 'event_msg' && p.type === 'token_count') {
      const usage = codexUsage(p, model, at);
      if (usage) sink.attachUsage(usage);
      continue;
    }
    // The compaction summary replaces the history the model sees from then on.
    if (r.type === 'compacted') sink.push('system', asString(p.message), at);
    // response_item is what the model saw; event_msg repeats the same messages for UIs.
    if (r.type !== 'response_item') continue;
    switch (p.type) {
      case 'message': {
        const role = mapRole(p.role);
        const text = flattenText(p.content, '\n\n');
        if (!role) break;
        if (role === 'user' && CODEX_INJECTED_PREFIXES.some((x) => text.trimStart().startsWith(x))) break;
        sink.push(role === 'user' && text.trimStart().startsWith(SUBAGENT_NOTIFICATION) ? 'system' : role, text, at);
        break;
      }
      case 'function_call':
        sink.push('tool', toolCallText(p.name, p.arguments), at);
        break;
      case 'custom_tool_call':
        sink.push('tool', toolCallText(p.name, p.input), at);
        break;
      case 'local_shell_call':
        sink.push('tool', toolCallText('local_shell', p.action), at);
        break;
      case 'function_call_output':
      case 'custom_tool_call_output':
        sink.push('tool', toolResultText(codexOutput(p.output)), at);
        break;
      default:
        break; // reasoning, web_search_call, future item types
    }
  }
  if (sink.mergedIntoCarried) return { restart: {} };
  const waiting = sink.waitingUsage;
  return {
    turns: sink.turns,
    state: { records: state.records + records.length, open: sink.open, flags: {}, ...(model ? { model } : {}), ...(waiting ? { pendingUsage: waiting } : {}) },
  };
}

/**
 * One request's usage from a token_count event: `last_token_usage` is that request's (the totals
 * are running sums), its input counting the cached part, which is the cache read. Keyed by the
 * running total, so the event Codex repeats with the same totals counts once. `info` is null when
 * the model API reported no usage.
 */
function codexUsage(payload: Obj, model: string | undefined, at: string | undefined): TurnUsage | undefined {
  const info = asObj(payload.info);
  const last = asObj(info?.last_token_usage);
  const total = asObj(info?.total_token_usage);
  if (!last) return undefined;
  const cached = tokenCount(last.cached_input_tokens);
  const runningTotal = typeof total?.total_tokens === 'number' ? total.total_tokens : undefined;
  const key = runningTotal !== undefined ? `total:${runningTotal}` : at ? `at:${at}` : undefined;
  if (!key) return undefined;
  return {
    key,
    model: model ?? null,
    inputTokens: Math.max(0, tokenCount(last.input_tokens) - cached),
    outputTokens: tokenCount(last.output_tokens),
    cacheReadTokens: cached,
    // Newer Codex counts cache writes too (cache_write_input_tokens); older ones did not.
    cacheWriteTokens: tokenCount(last.cache_write_input_tokens),
    costUsd: null,
    ...(at ? { at } : {}),
  };
}

/** Older Codex wrapped shell output as the JSON string `{"output": "...", "metadata": {...}}`. */
function codexOutput(output: unknown): unknown {
  if (typeof output === 'string') {
    const inner = asObj(tryParse(output));
    return typeof inner?.output === 'string' ? inner.output : output;
  }
  const o = asObj(output);
  return o && 'content' in o ? o.content : output;
}
