// When a hook command may hand its payload to the server as it came (connectors/hookRelay.ts) and
// when it must run the harness's mapping itself: what only the hook's own process can do. Kept
// apart from the mappings, so the relaying command never loads them (docs/harnesses.md, "What a
// hook costs").

import * as path from 'node:path';

/**
 * Every event name a harness's hooks know (the union of their `hooks.events`): the only names a
 * hooks.log line of the relaying command may carry, since the field is free text from stdin. Kept
 * equal to the mappings' lists by test/connectors/harnesses.test.ts.
 */
export const KNOWN_HOOK_EVENTS: ReadonlySet<string> = new Set([
  'PostCompact',
  'PostToolUse',
  'PreCompact',
  'PreToolUse',
  'SessionEnd',
  'SessionStart',
  'Stop',
  'SubagentStart',
  'SubagentStop',
  'UserPromptSubmit',
  'agentStop',
  'sessionEnd',
  'sessionStart',
  'subagentStart',
  'subagentStop',
  'userPromptSubmitted',
]);

/** The payload fields that name a file the mapping reads, in any harness's payloads. */
const FILE_FIELDS = ['transcript_path', 'agent_transcript_path', 'transcriptPath'] as const;

/** The files a payload names (absolute or relative to its cwd, as the mappings resolve them). */
export function payloadFileNames(payload: Record<string, unknown>): string[] {
  const cwd = typeof payload.cwd === 'string' && payload.cwd ? payload.cwd : process.cwd();
  return FILE_FIELDS.flatMap((field) => {
    const value = payload[field];
    return typeof value === 'string' && value ? [path.resolve(cwd, value)] : [];
  });
}

/**
 * Why this event must run in the hook's own process, or null when the server can run it:
 * - Claude Code's SessionStart points Baton's HTTP hook entries in the user's settings at the
 *   server the command found (claudeCode/httpHookUrl.ts): files of the harness's user, which
 *   the server never writes for a request;
 * - a Copilot CLI event that names no log finds it under the harness's COPILOT_HOME, which only
 *   the hook's environment knows.
 */
export function mustRunLocally(harness: string, event: string, payload: Record<string, unknown>): string | null {
  if (harness === 'claude-code' && event === 'SessionStart') return 'it points the HTTP hooks at the server';
  if (harness === 'copilot-cli' && !payload.transcriptPath && !payload.agentId) return 'its log is found from the environment';
  return null;
}
