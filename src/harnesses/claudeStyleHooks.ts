// One mapping from hook payloads to the sessions & hooks API, for the harnesses whose hooks share
// Claude Code's shape (Claude Code and Codex; docs/harnesses.md shows their payloads). What differs
// between them comes in as quirks from the harness folder:
// - Claude Code's SubagentStart carries the *parent's* transcript_path; Codex's carries the child's.
// - Inside a sub-agent, hooks carry agent_id: the session is then the sub-agent's, not the root's.
// - Nested sub-agents report the root session_id; the exact spawner comes from a file the harness
//   writes beside the sub-agent's transcript (Claude Code: agent-<id>.meta.json `parentAgentId`;
//   Codex: the rollout's session_meta `parent_thread_id`).

import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ApiPoster, HookOutput } from './harness';

export interface ClaudeStylePayload {
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

/** A payload the mapping cannot use. The message names the field only, never its value (it is logged). */
export class HookInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HookInputError';
  }
}

/** The events Baton's hook command is installed for. */
export const CLAUDE_STYLE_EVENTS = [
  'SessionStart',
  'UserPromptSubmit',
  'SubagentStart',
  'SubagentStop',
  'Stop',
  'PreCompact',
  'PostCompact',
  'SessionEnd',
] as const;

export interface ClaudeStyleQuirks {
  harness: string;
  /** Whose transcript SubagentStart's transcript_path is. */
  subagentStartTranscript: 'parent' | 'child';
  /** The spawning sub-agent of a nested one, from what the harness wrote; null for the root. */
  spawnerOf(sessionId: string, agentTranscriptPath: string | undefined): string | null;
  /** Backstop at the end of a turn or session: sub-agent transcripts still being written at their stop. */
  syncSubagents?(client: ApiPoster, transcriptPath: string | undefined, root: string, project: string | undefined): Promise<void>;
}

/** A sub-agent's session key mirrors where Claude Code keeps its transcript: <session>/agent-<id>. */
export function subagentKey(sessionId: string, agentId: string): string {
  return `${sessionId}/agent-${agentId}`;
}

export function existing(file: string | undefined): string | undefined {
  return file && fs.existsSync(file) ? file : undefined;
}

/**
 * Claude Code appends a sub-agent's transcript in a few batches and may still be writing it when
 * SubagentStop fires: wait briefly (within the hook's budget) until it holds the final reply.
 */
async function settledTranscript(file: string | undefined, lastMessage: string | undefined, waitMs = 400): Promise<string | undefined> {
  if (!file) return undefined;
  const probe = (lastMessage ?? '').trim().slice(0, 200);
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      const text = fs.readFileSync(file, 'utf8');
      if (!probe || text.includes(JSON.stringify(probe).slice(1, -1))) return file;
    } catch {
      /* not written yet */
    }
    if (Date.now() >= deadline) return existing(file);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function context(event: string, inject: unknown): HookOutput | null {
  return typeof inject === 'string' && inject.trim() ? { hookSpecificOutput: { hookEventName: event, additionalContext: inject } } : null;
}

export async function handleClaudeStyleEvent(quirks: ClaudeStyleQuirks, payload: ClaudeStylePayload, client: ApiPoster): Promise<HookOutput | null> {
  const harness = quirks.harness;
  const event = payload.hook_event_name ?? '';
  const root = payload.session_id;
  if (!root || typeof root !== 'string') throw new HookInputError('session_id: is required');
  const project = payload.cwd ? path.resolve(payload.cwd) : undefined;
  const transcriptPath = existing(payload.transcript_path);
  const isSubagentEvent = event === 'SubagentStart' || event === 'SubagentStop';
  // A hook fired inside a sub-agent belongs to the sub-agent's session.
  const sessionKey = !isSubagentEvent && payload.agent_id ? subagentKey(root, payload.agent_id) : root;
  const base = { harness, sessionKey, project };

  switch (event) {
    case 'SessionStart': {
      const r = await client.call('sessionStart', { body: { ...base, source: payload.source } });
      return context(event, r.inject);
    }
    case 'UserPromptSubmit': {
      const r = await client.call('userPromptSubmit', { body: { ...base, transcriptPath, userPrompt: payload.prompt } });
      return context(event, r.inject);
    }
    case 'SubagentStart': {
      if (!payload.agent_id) throw new HookInputError('agent_id: is required for SubagentStart');
      // The parent's transcript: bring it up to date first, the block is built from it.
      if (quirks.subagentStartTranscript === 'parent' && transcriptPath) await client.call('userPromptSubmit', { body: { ...base, transcriptPath } });
      // The child's own transcript: it names the spawner of a nested sub-agent.
      const spawner = quirks.subagentStartTranscript === 'child' ? quirks.spawnerOf(root, transcriptPath) : null;
      const r = await client.call('sessionStart', {
        body: {
          harness,
          sessionKey: subagentKey(root, payload.agent_id),
          parentSessionKey: spawner ? subagentKey(root, spawner) : root,
          harnessAgentId: payload.agent_id,
          harnessAgentType: payload.agent_type,
          project,
        },
      });
      return context(event, r.inject);
    }
    case 'SubagentStop': {
      if (!payload.agent_id) throw new HookInputError('agent_id: is required for SubagentStop');
      const spawner = quirks.spawnerOf(root, payload.agent_transcript_path);
      await client.call('sessionEnd', {
        body: {
          harness,
          sessionKey: subagentKey(root, payload.agent_id),
          transcriptPath: await settledTranscript(payload.agent_transcript_path, payload.last_assistant_message),
          lastAssistantMessage: payload.last_assistant_message,
          status: 'completed',
          reason: 'subagent-stop',
          project,
          ...(spawner ? { parentSessionKey: subagentKey(root, spawner) } : {}),
        },
      });
      return null;
    }
    case 'Stop':
      await client.call('userPromptSubmit', { body: { ...base, transcriptPath, lastAssistantMessage: payload.last_assistant_message } });
      if (!payload.agent_id) await quirks.syncSubagents?.(client, transcriptPath, root, project);
      return null;
    case 'PreCompact':
      if (transcriptPath) await client.call('userPromptSubmit', { body: { ...base, transcriptPath } });
      await client.call('preCompaction', { body: base });
      return null;
    case 'PostCompact':
      if (payload.compact_summary?.trim()) await client.call('compactionComplete', { body: { ...base, summary: payload.compact_summary } });
      // No summary (Codex): the compaction still happened; the session goes on as after Claude Code's `compact` start.
      else await client.call('sessionStart', { body: { ...base, source: 'compact' } });
      return null;
    case 'SessionEnd':
      if (!payload.agent_id) await quirks.syncSubagents?.(client, transcriptPath, root, project);
      await client.call('sessionEnd', { body: { ...base, transcriptPath, reason: payload.reason } });
      return null;
    default:
      return null;
  }
}
