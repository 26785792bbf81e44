// Codex's hook mapping (docs/harnesses.md): Claude Code's shape, with Codex's quirks for the shared
// flow (claudeStyleHooks.ts). Kept apart from the installer: the hook command loads only this.

import * as fs from 'node:fs';
import { CLAUDE_STYLE_EVENTS, handleClaudeStyleEvent, type ClaudeStylePayload, type ClaudeStyleQuirks } from '../claudeStyleHooks';
import type { ApiPoster, HarnessHooks, HookOutput, HookRun } from '../harness';

export const HARNESS = 'codex';

// SubagentStart carries the *child's* rollout, whose first line
// (session_meta) names the spawning thread of a nested sub-agent.
function firstLine(file: string): string {
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.alloc(64 * 1024);
    const n = fs.readSync(fd, buf, 0, buf.length, 0);
    return buf.subarray(0, n).toString('utf8').split('\n')[0];
  } finally {
    fs.closeSync(fd);
  }
}

/** The spawner of a nested sub-agent: the rollout's session_meta `parent_thread_id`, unless it is the root. */
function spawnerOf(sessionId: string, agentTranscriptPath: string | undefined): string | null {
  if (!agentTranscriptPath) return null;
  try {
    const meta = JSON.parse(firstLine(agentTranscriptPath)) as { type?: string; payload?: { parent_thread_id?: unknown } };
    const parent = meta.type === 'session_meta' ? meta.payload?.parent_thread_id : undefined;
    return typeof parent === 'string' && parent && parent !== sessionId ? parent : null;
  } catch {
    return null;
  }
}

const quirks: ClaudeStyleQuirks = { harness: HARNESS, subagentStartTranscript: 'child', spawnerOf };

export function handleCodexEvent(payload: ClaudeStylePayload, client: ApiPoster, run?: HookRun): Promise<HookOutput | null> {
  return handleClaudeStyleEvent(quirks, payload, client, run);
}

export const codexHooks: HarnessHooks = {
  events: CLAUDE_STYLE_EVENTS,
  handle: (payload, client, run) => handleCodexEvent(payload as ClaudeStylePayload, client, run),
};
