// Codex's hook mapping (docs/harnesses.md): Claude Code's shape, with Codex's quirks for the shared
// flow (claudeStyleHooks.ts). Kept apart from the installer: the hook command loads only this.

import { CLAUDE_STYLE_EVENTS, handleClaudeStyleEvent, type ClaudeStylePayload, type ClaudeStyleQuirks, type SpawnCall } from '../claudeStyleHooks';
import type { ApiPoster, HarnessHooks, HookOutput, HookRun } from '../harness';
import type { PayloadFiles } from '../../node/payloadFiles';
import { FIRST_LINE_MAX_BYTES, rolloutMeta, rolloutSpawningText } from './rollout';

export const HARNESS = 'codex';

/** The shared events, and PreToolUse for the spawn tool only (a sub-agent's task, and whether it forks). */
export const CODEX_HOOK_EVENTS = [...CLAUDE_STYLE_EVENTS, 'PreToolUse'] as const;

/** The tool matcher of an event Baton hooks only for some tools (Codex names the tool `spawn_agent`). */
export const CODEX_MATCHERS: Partial<Record<(typeof CODEX_HOOK_EVENTS)[number], string>> = { PreToolUse: 'spawn_agent' };

/** How much of the spawner's rollout's end is searched for the spawning message. */
const SPAWN_TAIL_BYTES = 512 * 1024;

/**
 * The sub-agent a spawn_agent call starts: its task (`message`), its type (`default` unless the call
 * names one) and whether it forks the spawner's history: `fork_context: true` (multi_agent_v1, Codex
 * 0.169) or `fork_turns` other than `none` (multi_agent_v2). A fork's copy leaves out the assistant
 * text written just before the call; it is read from the rollout, which already holds the call.
 */
async function spawnCall(payload: ClaudeStylePayload, transcriptPath: string | undefined, files: PayloadFiles): Promise<SpawnCall | null> {
  if (!payload.tool_name?.endsWith('spawn_agent')) return null;
  const input = (payload.tool_input ?? {}) as { message?: unknown; agent_type?: unknown; fork_context?: unknown; fork_turns?: unknown };
  const agentType = typeof input.agent_type === 'string' && input.agent_type.trim() ? input.agent_type.trim() : 'default';
  const task = typeof input.message === 'string' && input.message.trim() ? input.message : null;
  const fork = input.fork_context === true || (typeof input.fork_turns === 'string' && input.fork_turns !== 'none');
  if (!fork || !payload.tool_use_id) return { agentType, task };
  const tail = transcriptPath ? await files.tail(transcriptPath, SPAWN_TAIL_BYTES) : null;
  return { agentType, task, fork: true, spawningText: tail ? rolloutSpawningText(tail, payload.tool_use_id) : null };
}

// SubagentStart carries the *child's* rollout, whose first line (session_meta) names the spawning
// thread of a nested sub-agent, read as `baton import codex` reads it (rollout.ts).

/** The spawner of a nested sub-agent: the rollout's spawning thread, unless it is the root. */
async function spawnerOf(sessionId: string, agentTranscriptPath: string | undefined, files: PayloadFiles): Promise<string | null> {
  const line = await files.firstLine(agentTranscriptPath, FIRST_LINE_MAX_BYTES);
  const parent = line === null ? undefined : rolloutMeta(line)?.parentThreadId;
  return parent && parent !== sessionId ? parent : null;
}

const quirks: ClaudeStyleQuirks = { harness: HARNESS, subagentStartTranscript: 'child', spawnerOf, spawnCall };

export function handleCodexEvent(payload: ClaudeStylePayload, client: ApiPoster, run?: HookRun): Promise<HookOutput | null> {
  return handleClaudeStyleEvent(quirks, payload, client, run);
}

export const codexHooks: HarnessHooks = {
  events: CODEX_HOOK_EVENTS,
  handle: (payload, client, run) => handleCodexEvent(payload as ClaudeStylePayload, client, run),
};

/** This harness's entry in the hook command (dist/hook.js), found by the build under these names: HARNESS and hooks (scripts/dev/hookMappingsPlugin.mjs). */
export { codexHooks as hooks };
