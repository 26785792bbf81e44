// Codex's hook mapping (docs/harnesses.md): Claude Code's shape, with Codex's quirks for the shared
// flow (claudeStyleHooks.ts). Kept apart from the installer: the hook command loads only this.

import { CLAUDE_STYLE_EVENTS, handleClaudeStyleEvent, type ClaudeStylePayload, type ClaudeStyleQuirks } from '../claudeStyleHooks';
import type { ApiPoster, HarnessHooks, HookOutput, HookRun } from '../harness';
import type { PayloadFiles } from '../../node/payloadFiles';
import { FIRST_LINE_MAX_BYTES, rolloutMeta } from './rollout';

export const HARNESS = 'codex';

// SubagentStart carries the *child's* rollout, whose first line (session_meta) names the spawning
// thread of a nested sub-agent, read as `baton import codex` reads it (rollout.ts).

/** The spawner of a nested sub-agent: the rollout's spawning thread, unless it is the root. */
async function spawnerOf(sessionId: string, agentTranscriptPath: string | undefined, files: PayloadFiles): Promise<string | null> {
  const line = await files.firstLine(agentTranscriptPath, FIRST_LINE_MAX_BYTES);
  const parent = line === null ? undefined : rolloutMeta(line)?.parentThreadId;
  return parent && parent !== sessionId ? parent : null;
}

const quirks: ClaudeStyleQuirks = { harness: HARNESS, subagentStartTranscript: 'child', spawnerOf };

export function handleCodexEvent(payload: ClaudeStylePayload, client: ApiPoster, run?: HookRun): Promise<HookOutput | null> {
  return handleClaudeStyleEvent(quirks, payload, client, run);
}

export const codexHooks: HarnessHooks = {
  events: CLAUDE_STYLE_EVENTS,
  handle: (payload, client, run) => handleCodexEvent(payload as ClaudeStylePayload, client, run),
};

/** This harness's entry in the hook command (dist/hook.js), found by the build under these names: HARNESS and hooks (scripts/dev/hookMappingsPlugin.mjs). */
export { codexHooks as hooks };
