// Claude Code's hooks: one hook command for every event (docs/harnesses.md). SubagentStart carries
// the *parent's* session_id and transcript_path; the flow is shared with Codex (claudeStyleHooks.ts),
// these are Claude Code's quirks. The same mapping serves Claude Code's HTTP hooks (server/app.ts).

import * as os from 'node:os';
import * as path from 'node:path';
import type { PayloadFiles } from '../../node/payloadFiles';
import type { ApiPoster, HarnessHooks, HookOutput, HookRun } from '../harness';
import {
  CLAUDE_STYLE_EVENTS,
  handleClaudeStyleEvent,
  subagentKey,
  tailHolding,
  type ClaudeStylePayload,
  type ClaudeStyleQuirks,
  type SpawnCall,
} from '../claudeStyleHooks';
import { handleCopilotEvent } from '../copilot/hooks';
import { isCopilotPayload } from '../copilot/payload';
import { hookSettingsFiles, repointHttpHooks } from './httpHookUrl';
import { isTaskNotification, spawningMessageText } from './transcript';

export { subagentKey, type ApiPoster, type HookOutput };
export type ClaudeCodePayload = ClaudeStylePayload;

export const HARNESS = 'claude-code';

/**
 * The events Baton's hook is installed for: the shared ones, and PreToolUse for the spawn tool
 * only (the sub-agent's task and spawner, before it starts: docs/inheritance.md).
 */
export const CLAUDE_CODE_HOOK_EVENTS = [...CLAUDE_STYLE_EVENTS, 'PreToolUse'] as const;

/** The tool matcher of an event Baton hooks only for some tools. */
export const CLAUDE_CODE_MATCHERS: Partial<Record<(typeof CLAUDE_CODE_HOOK_EVENTS)[number], string>> = { PreToolUse: 'Agent|Task' };

/** A sub-agent's meta file is a few hundred bytes; anything larger is not one. */
const META_MAX_BYTES = 64 * 1024;

/** The spawner of a nested sub-agent: agent-<id>.meta.json beside its transcript (`parentAgentId`). */
async function spawnerOf(_sessionId: string, agentTranscriptPath: string | undefined, files: PayloadFiles): Promise<string | null> {
  if (!agentTranscriptPath) return null;
  const text = await files.text(agentTranscriptPath.replace(/\.jsonl$/, '.meta.json'), META_MAX_BYTES);
  try {
    const meta = JSON.parse(text ?? '') as { parentAgentId?: unknown } | null;
    return typeof meta?.parentAgentId === 'string' && meta.parentAgentId ? meta.parentAgentId : null;
  } catch {
    return null;
  }
}

const RECENT_MS = 5 * 60 * 1000;

/** Every sub-agent transcript Claude Code keeps for a session: <dir>/<session>/subagents/agent-<id>.jsonl. */
async function subagentTranscripts(transcriptPath: string, sessionId: string, files: PayloadFiles): Promise<Array<{ agentId: string; file: string }>> {
  const dir = path.join(path.dirname(transcriptPath), sessionId, 'subagents');
  const out: Array<{ agentId: string; file: string }> = [];
  for (const entry of await files.list(dir)) {
    const m = /^agent-(.+)\.jsonl$/.exec(entry.name);
    // Only recently written ones: older sub-agents were settled at an earlier turn.
    if (m && entry.isFile && Date.now() - entry.mtimeMs < RECENT_MS) out.push({ agentId: m[1], file: path.join(dir, m[0]) });
  }
  return out;
}

/** Claude Code's spawn tool (`Task` before 2.x). */
const SPAWN_TOOLS = new Set(['Agent', 'Task']);
/** How much of the spawner's transcript's end is searched for the spawning message. */
const SPAWN_TAIL_BYTES = 512 * 1024;

/**
 * The sub-agent an Agent call starts: its type (`general-purpose` when the call names none), its
 * prompt, and for a fork the text of the calling message, which the fork's copy leaves out. A
 * sub-agent's call is in its own transcript beside the root's.
 */
async function spawnCall(payload: ClaudeCodePayload, _rootTranscript: string | undefined, files: PayloadFiles): Promise<SpawnCall | null> {
  if (!payload.tool_name || !SPAWN_TOOLS.has(payload.tool_name)) return null;
  const input = (payload.tool_input ?? {}) as { prompt?: unknown; subagent_type?: unknown };
  const agentType = typeof input.subagent_type === 'string' && input.subagent_type.trim() ? input.subagent_type.trim() : 'general-purpose';
  const task = typeof input.prompt === 'string' && input.prompt.trim() ? input.prompt : null;
  if (agentType !== 'fork' || !payload.tool_use_id) return { agentType, task };
  // A fork: its SubagentStart says so too (agent_type "fork"); the note says it as every harness's does.
  // The file as named, not only when it exists: an HTTP hook can arrive before Claude Code created it.
  const own =
    payload.agent_id && payload.transcript_path && payload.session_id
      ? path.join(path.dirname(payload.transcript_path), payload.session_id, 'subagents', `agent-${payload.agent_id}.jsonl`)
      : payload.transcript_path;
  return { agentType, task, fork: true, spawningText: await spawningTextOf(files, own, payload.tool_use_id) };
}

/** How long the spawn hook waits for Claude Code to write the calling message (an HTTP hook can arrive first). */
const SPAWN_WRITE_WAIT_MS = 400;

/** The spawning message's text once the transcript holds the call (waiting briefly for it, also for the file), else null. */
async function spawningTextOf(files: PayloadFiles, transcript: string | undefined, toolUseId: string): Promise<string | null> {
  const tail = transcript ? await tailHolding(files, transcript, SPAWN_TAIL_BYTES, toolUseId, SPAWN_WRITE_WAIT_MS) : null;
  return tail ? spawningMessageText(tail, toolUseId) : null;
}

const quirks: ClaudeStyleQuirks = {
  harness: HARNESS,
  subagentStartTranscript: 'parent',
  spawnerOf,
  isHostNotice: isTaskNotification,
  spawnCall,
  // Claude Code 2.1.328 records a resumed sub-agent's SubagentStart output but does not deliver it.
  resumeDiscardsContext: true,
  async syncSubagents(client, transcriptPath, root, project, failed, files) {
    if (!transcriptPath) return;
    // One sub-agent's file failing does not keep the others from being sent.
    for (const { agentId, file } of await subagentTranscripts(transcriptPath, root, files)) {
      try {
        await client.call('userPromptSubmit', { body: { harness: HARNESS, sessionKey: subagentKey(root, agentId), transcriptPath: file, project } });
      } catch (err) {
        failed('sync-subagent', err);
      }
    }
  },
};

/** At SessionStart (always the hook command): Baton's HTTP entries point at the server the command found (httpHookUrl.ts). */
function followServer(payload: ClaudeCodePayload, url: string, dataDir: string, run: HookRun): void {
  const configDir = process.env.CLAUDE_CONFIG_DIR || path.join(os.homedir(), '.claude');
  for (const file of hookSettingsFiles(process.env, payload.cwd, configDir)) {
    try {
      repointHttpHooks(file, HARNESS, url, dataDir);
    } catch (err) {
      run.stepFailed('follow-server', err);
    }
  }
}

/**
 * Claude Code's hook: the shared mapping, with Claude Code's quirks. VS Code agent mode runs the
 * same hook command once the user turns on `chat.useClaudeHooks`: its payloads go to its own mapping.
 */
export function handleClaudeCodeEvent(payload: ClaudeCodePayload, client: ApiPoster, run?: HookRun): Promise<HookOutput | null> {
  const raw = payload as Record<string, unknown>;
  if (isCopilotPayload(raw)) return handleCopilotEvent(raw, client, run);
  if (payload.hook_event_name === 'SessionStart' && run?.endpointUrl && run.dataDir) followServer(payload, run.endpointUrl, run.dataDir, run);
  return handleClaudeStyleEvent(quirks, payload, client, run);
}

export const claudeCodeHooks: HarnessHooks = {
  events: CLAUDE_CODE_HOOK_EVENTS,
  handle: (payload, client, run) => handleClaudeCodeEvent(payload as ClaudeCodePayload, client, run),
};

/** This harness's entry in the hook command (dist/hook.js), found by the build under these names: HARNESS and hooks (scripts/dev/hookMappingsPlugin.mjs). */
export { claudeCodeHooks as hooks };
