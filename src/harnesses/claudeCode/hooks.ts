// Claude Code's hooks: one hook command for every event (docs/harnesses.md). SubagentStart carries
// the *parent's* session_id and transcript_path; the flow is shared with Codex (claudeStyleHooks.ts),
// these are Claude Code's quirks. The same mapping serves Claude Code's HTTP hooks (server/app.ts).

import * as os from 'node:os';
import * as path from 'node:path';
import type { PayloadFiles } from '../../node/payloadFiles';
import type { ApiPoster, HarnessHooks, HookOutput, HookRun } from '../harness';
import { CLAUDE_STYLE_EVENTS, handleClaudeStyleEvent, subagentKey, type ClaudeStylePayload, type ClaudeStyleQuirks } from '../claudeStyleHooks';
import { handleCopilotEvent } from '../copilot/hooks';
import { isCopilotPayload } from '../copilot/payload';
import { hookSettingsFiles, repointHttpHooks } from './httpHookUrl';
import { isTaskNotification } from './transcript';

export { subagentKey, type ApiPoster, type HookOutput };
export type ClaudeCodePayload = ClaudeStylePayload;

export const HARNESS = 'claude-code';

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

const quirks: ClaudeStyleQuirks = {
  harness: HARNESS,
  subagentStartTranscript: 'parent',
  spawnerOf,
  isHostNotice: isTaskNotification,
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
  events: CLAUDE_STYLE_EVENTS,
  handle: (payload, client, run) => handleClaudeCodeEvent(payload as ClaudeCodePayload, client, run),
};

/** This harness's entry in the hook command (dist/hook.js), found by the build under these names: HARNESS and hooks (scripts/dev/hookMappingsPlugin.mjs). */
export { claudeCodeHooks as hooks };
