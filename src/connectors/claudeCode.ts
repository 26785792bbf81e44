// Claude Code connector: one hook command for every event. It maps the hook payload (see
// FACTS: SubagentStart carries the *parent's* session_id) onto the sessions & hooks API and
// prints the hook output Claude Code expects, so sub-agents start with the parent's context.

import * as fs from 'node:fs';
import * as path from 'node:path';
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

function existing(file: string | undefined): string | undefined {
  return file && fs.existsSync(file) ? file : undefined;
}

/** The spawning sub-agent of a nested one, from `agent-<id>.meta.json` (written after SubagentStart). */
export function spawnerOf(agentTranscriptPath: string | undefined): string | null {
  if (!agentTranscriptPath) return null;
  const meta = agentTranscriptPath.replace(/\.jsonl$/, '.meta.json');
  try {
    const parsed = JSON.parse(fs.readFileSync(meta, 'utf8')) as { parentAgentId?: unknown };
    return typeof parsed.parentAgentId === 'string' && parsed.parentAgentId ? parsed.parentAgentId : null;
  } catch {
    return null;
  }
}

function context(event: string, inject: unknown): HookOutput | null {
  return typeof inject === 'string' && inject.trim() ? { hookSpecificOutput: { hookEventName: event, additionalContext: inject } } : null;
}

export async function handleClaudeCodeEvent(payload: ClaudeCodePayload, client: ApiPoster): Promise<HookOutput | null> {
  const event = payload.hook_event_name ?? '';
  const session = payload.session_id;
  if (!session) throw new Error('payload has no session_id');
  const project = payload.cwd ? path.resolve(payload.cwd) : undefined;
  const transcriptPath = existing(payload.transcript_path);
  const base = { harness: HARNESS, sessionKey: session, project };

  switch (event) {
    case 'SessionStart': {
      const r = await client.post<{ inject?: string }>('/api/hooks/session-start', { ...base, source: payload.source });
      return context(event, r.inject);
    }
    case 'UserPromptSubmit': {
      const r = await client.post<{ inject?: string }>('/api/hooks/user-prompt-submit', { ...base, transcriptPath, userPrompt: payload.prompt });
      return context(event, r.inject);
    }
    case 'SubagentStart': {
      if (!payload.agent_id) throw new Error('SubagentStart without agent_id');
      // Bring the parent's live transcript up to date first: the block is built from it.
      if (transcriptPath) await client.post('/api/hooks/user-prompt-submit', { ...base, transcriptPath });
      const r = await client.post<{ inject?: string }>('/api/hooks/session-start', {
        harness: HARNESS,
        sessionKey: subagentKey(session, payload.agent_id),
        parentSessionKey: session,
        harnessAgentId: payload.agent_id,
        harnessAgentType: payload.agent_type,
        project,
      });
      return context(event, r.inject);
    }
    case 'SubagentStop': {
      if (!payload.agent_id) throw new Error('SubagentStop without agent_id');
      const spawner = spawnerOf(payload.agent_transcript_path);
      await client.post('/api/hooks/session-end', {
        harness: HARNESS,
        sessionKey: subagentKey(session, payload.agent_id),
        transcriptPath: existing(payload.agent_transcript_path),
        lastAssistantMessage: payload.last_assistant_message,
        status: 'completed',
        reason: 'subagent-stop',
        project,
        // Nested sub-agents report the root session; the meta file names the real spawner.
        ...(spawner ? { parentSessionKey: subagentKey(session, spawner) } : {}),
      });
      return null;
    }
    case 'Stop':
      await client.post('/api/hooks/user-prompt-submit', { ...base, transcriptPath, lastAssistantMessage: payload.last_assistant_message });
      return null;
    case 'PreCompact':
      if (transcriptPath) await client.post('/api/hooks/user-prompt-submit', { ...base, transcriptPath });
      await client.post('/api/hooks/pre-compaction', base);
      return null;
    case 'PostCompact':
      if (payload.compact_summary?.trim()) await client.post('/api/hooks/compaction-complete', { ...base, summary: payload.compact_summary });
      return null;
    case 'SessionEnd':
      await client.post('/api/hooks/session-end', { ...base, transcriptPath, reason: payload.reason ?? null });
      return null;
    default:
      return null;
  }
}
