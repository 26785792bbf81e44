// Claude Code connector: one hook command for every event. It maps the hook payload (SubagentStart
// carries the *parent's* session_id) onto the sessions & hooks API and prints the hook output
// Claude Code expects, so sub-agents start with the parent's context. The mapping itself is
// shared with Codex (hookEvents.ts).

import { handleHookEvent } from './hookEvents';

/** Anything that can call the API: the hook command's HTTP client, or the server itself (HTTP hooks). */
export interface ApiPoster {
  post<T = Record<string, unknown>>(route: string, body: unknown): Promise<T>;
}

export const HARNESS = 'claude-code';

export const CLAUDE_CODE_EVENTS = ['SessionStart', 'UserPromptSubmit', 'SubagentStart', 'SubagentStop', 'Stop', 'PreCompact', 'PostCompact', 'SessionEnd'] as const;
export type ClaudeCodeEvent = (typeof CLAUDE_CODE_EVENTS)[number];

export interface ClaudeCodePayload {
  hook_event_name?: string;
  session_id?: string;
  transcript_path?: string;
  cwd?: string;
  source?: string;
  prompt?: string;
  agent_id?: string;
  agent_type?: string;
  agent_transcript_path?: string;
  last_assistant_message?: string;
  reason?: string;
  compact_summary?: string;
}

export interface HookOutput {
  hookSpecificOutput: { hookEventName: string; additionalContext: string };
}

/** A sub-agent's session key mirrors where Claude Code keeps its transcript: <session>/agent-<id>. */
export function subagentKey(sessionId: string, agentId: string): string {
  return `${sessionId}/agent-${agentId}`;
}

/** Claude Code's hook: the shared mapping, with Claude Code's quirks. */
export function handleClaudeCodeEvent(payload: ClaudeCodePayload, client: ApiPoster): Promise<HookOutput | null> {
  return handleHookEvent('claude-code', payload, client);
}
