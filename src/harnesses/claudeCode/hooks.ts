// Claude Code's hooks: one hook command for every event (docs/harnesses.md). SubagentStart carries
// the *parent's* session_id and transcript_path; the flow is shared with Codex (claudeStyleHooks.ts),
// these are Claude Code's quirks. The same mapping serves Claude Code's HTTP hooks (server/app.ts).

import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ApiPoster, HarnessHooks, HookOutput, HookRun } from '../harness';
import { CLAUDE_STYLE_EVENTS, handleClaudeStyleEvent, subagentKey, type ClaudeStylePayload, type ClaudeStyleQuirks } from '../claudeStyleHooks';
import { handleCopilotEvent } from '../copilot/hooks';
import { isCopilotPayload } from '../copilot/payload';
import { readSmallFile } from '../../node/safeRead';

export { subagentKey, type ApiPoster, type HookOutput };
export type ClaudeCodePayload = ClaudeStylePayload;

export const HARNESS = 'claude-code';

/** agent-<id>.meta.json holds a few fields: anything larger is not Claude Code's. */
const META_MAX_BYTES = 64 * 1024;

/** The spawner of a nested sub-agent: agent-<id>.meta.json beside its transcript (`parentAgentId`). */
function spawnerOf(_sessionId: string, agentTranscriptPath: string | undefined): string | null {
  if (!agentTranscriptPath) return null;
  try {
    // A small file beside the transcript: a regular one only, and only when small (node/safeRead.ts).
    const bytes = readSmallFile(agentTranscriptPath.replace(/\.jsonl$/, '.meta.json'), META_MAX_BYTES);
    if (!bytes) return null;
    const meta = JSON.parse(bytes.toString('utf8')) as { parentAgentId?: unknown };
    return typeof meta.parentAgentId === 'string' && meta.parentAgentId ? meta.parentAgentId : null;
  } catch {
    return null;
  }
}

const RECENT_MS = 5 * 60 * 1000;

/** Every sub-agent transcript Claude Code keeps for a session: <dir>/<session>/subagents/agent-<id>.jsonl. */
function subagentTranscripts(transcriptPath: string, sessionId: string): Array<{ agentId: string; file: string }> {
  const dir = path.join(path.dirname(transcriptPath), sessionId, 'subagents');
  try {
    return (
      fs
        .readdirSync(dir)
        .map((name) => /^agent-(.+)\.jsonl$/.exec(name))
        .filter((m): m is RegExpExecArray => m !== null)
        .map((m) => ({ agentId: m[1], file: path.join(dir, m[0]) }))
        // Only recently written regular files (not a symlink or a FIFO): older sub-agents were settled at an earlier turn.
        .filter(({ file }) => {
          const stat = fs.lstatSync(file, { throwIfNoEntry: false });
          return stat !== undefined && stat.isFile() && Date.now() - stat.mtimeMs < RECENT_MS;
        })
    );
  } catch {
    return [];
  }
}

const quirks: ClaudeStyleQuirks = {
  harness: HARNESS,
  subagentStartTranscript: 'parent',
  spawnerOf,
  async syncSubagents(client, transcriptPath, root, project, failed) {
    if (!transcriptPath) return;
    // One sub-agent's file failing does not keep the others from being sent.
    for (const { agentId, file } of subagentTranscripts(transcriptPath, root)) {
      try {
        await client.call('userPromptSubmit', { body: { harness: HARNESS, sessionKey: subagentKey(root, agentId), transcriptPath: file, project } });
      } catch (err) {
        failed('sync-subagent', err);
      }
    }
  },
};

/**
 * Claude Code's hook: the shared mapping, with Claude Code's quirks. VS Code agent mode runs the
 * same hook command once the user turns on `chat.useClaudeHooks`: its payloads go to its own mapping.
 */
export function handleClaudeCodeEvent(payload: ClaudeCodePayload, client: ApiPoster, run?: HookRun): Promise<HookOutput | null> {
  const raw = payload as Record<string, unknown>;
  if (isCopilotPayload(raw)) return handleCopilotEvent(raw, client, run);
  return handleClaudeStyleEvent(quirks, payload, client, run);
}

export const claudeCodeHooks: HarnessHooks = {
  events: CLAUDE_STYLE_EVENTS,
  handle: (payload, client, run) => handleClaudeCodeEvent(payload as ClaudeCodePayload, client, run),
};
