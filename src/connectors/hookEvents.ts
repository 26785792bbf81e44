// One mapping from harness hook payloads to the sessions & hooks API, for the harnesses whose hooks
// share Claude Code's shape (Claude Code and Codex). Differences, from the harnesses' real payloads:
// - Claude Code's SubagentStart carries the *parent's* transcript_path; Codex's carries the child's.
// - Inside a sub-agent, hooks carry agent_id: the session is then the sub-agent's, not the root's.
// - Nested sub-agents report the root session_id; the exact spawner comes from a file the harness
//   writes beside the sub-agent's transcript (Claude Code: agent-<id>.meta.json `parentAgentId`;
//   Codex: the rollout's session_meta `parent_thread_id`).

import * as fs from 'node:fs';
import * as path from 'node:path';
import { subagentKey, type ApiPoster, type ClaudeCodePayload, type HookOutput } from './claudeCode';

export type HookHarness = 'claude-code' | 'codex';

/** A payload the mapping cannot use. The message names the field only, never its value (it is logged). */
export class HookInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HookInputError';
  }
}

function existing(file: string | undefined): string | undefined {
  return file && fs.existsSync(file) ? file : undefined;
}

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

/** The spawning sub-agent of a nested one, when the harness has written it down; null for the root. */
export function spawnerOf(harness: HookHarness, sessionId: string, agentTranscriptPath: string | undefined): string | null {
  if (!agentTranscriptPath) return null;
  try {
    if (harness === 'claude-code') {
      const meta = JSON.parse(fs.readFileSync(agentTranscriptPath.replace(/\.jsonl$/, '.meta.json'), 'utf8')) as { parentAgentId?: unknown };
      return typeof meta.parentAgentId === 'string' && meta.parentAgentId ? meta.parentAgentId : null;
    }
    const meta = JSON.parse(firstLine(agentTranscriptPath)) as { type?: string; payload?: { parent_thread_id?: unknown } };
    const parent = meta.type === 'session_meta' ? meta.payload?.parent_thread_id : undefined;
    return typeof parent === 'string' && parent && parent !== sessionId ? parent : null;
  } catch {
    return null;
  }
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

const RECENT_MS = 5 * 60 * 1000;

/** Every sub-agent transcript Claude Code keeps for a session: <dir>/<session>/subagents/agent-<id>.jsonl. */
function subagentTranscripts(transcriptPath: string, sessionId: string): Array<{ agentId: string; file: string }> {
  const dir = path.join(path.dirname(transcriptPath), sessionId, 'subagents');
  try {
    return fs
      .readdirSync(dir)
      .map((name) => /^agent-(.+)\.jsonl$/.exec(name))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => ({ agentId: m[1], file: path.join(dir, m[0]) }))
      // Only recently written ones: older sub-agents were settled at an earlier turn.
      .filter(({ file }) => Date.now() - fs.statSync(file).mtimeMs < RECENT_MS);
  } catch {
    return [];
  }
}

/** Backstop at the end of a turn: sub-agent transcripts that were still being written at their stop. */
async function syncSubagents(harness: HookHarness, client: ApiPoster, transcriptPath: string | undefined, root: string, project: string | undefined): Promise<void> {
  if (harness !== 'claude-code' || !transcriptPath) return;
  for (const { agentId, file } of subagentTranscripts(transcriptPath, root)) {
    await client.post('/api/hooks/user-prompt-submit', { harness, sessionKey: subagentKey(root, agentId), transcriptPath: file, project });
  }
}

function context(event: string, inject: unknown): HookOutput | null {
  return typeof inject === 'string' && inject.trim() ? { hookSpecificOutput: { hookEventName: event, additionalContext: inject } } : null;
}

export async function handleHookEvent(harness: HookHarness, payload: ClaudeCodePayload, client: ApiPoster): Promise<HookOutput | null> {
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
      const r = await client.post<{ inject?: string }>('/api/hooks/session-start', { ...base, source: payload.source });
      return context(event, r.inject);
    }
    case 'UserPromptSubmit': {
      const r = await client.post<{ inject?: string }>('/api/hooks/user-prompt-submit', { ...base, transcriptPath, userPrompt: payload.prompt });
      return context(event, r.inject);
    }
    case 'SubagentStart': {
      if (!payload.agent_id) throw new HookInputError('agent_id: is required for SubagentStart');
      // Claude Code hands us the parent's transcript: bring it up to date first, the block is built from it.
      if (harness === 'claude-code' && transcriptPath) await client.post('/api/hooks/user-prompt-submit', { ...base, transcriptPath });
      const spawner = harness === 'codex' ? spawnerOf(harness, root, transcriptPath) : null;
      const r = await client.post<{ inject?: string }>('/api/hooks/session-start', {
        harness,
        sessionKey: subagentKey(root, payload.agent_id),
        parentSessionKey: spawner ? subagentKey(root, spawner) : root,
        harnessAgentId: payload.agent_id,
        harnessAgentType: payload.agent_type,
        project,
      });
      return context(event, r.inject);
    }
    case 'SubagentStop': {
      if (!payload.agent_id) throw new HookInputError('agent_id: is required for SubagentStop');
      const spawner = spawnerOf(harness, root, payload.agent_transcript_path);
      await client.post('/api/hooks/session-end', {
        harness,
        sessionKey: subagentKey(root, payload.agent_id),
        transcriptPath: await settledTranscript(payload.agent_transcript_path, payload.last_assistant_message),
        lastAssistantMessage: payload.last_assistant_message,
        status: 'completed',
        reason: 'subagent-stop',
        project,
        ...(spawner ? { parentSessionKey: subagentKey(root, spawner) } : {}),
      });
      return null;
    }
    case 'Stop':
      await client.post('/api/hooks/user-prompt-submit', { ...base, transcriptPath, lastAssistantMessage: payload.last_assistant_message });
      if (!payload.agent_id) await syncSubagents(harness, client, transcriptPath, root, project);
      return null;
    case 'PreCompact':
      if (transcriptPath) await client.post('/api/hooks/user-prompt-submit', { ...base, transcriptPath });
      await client.post('/api/hooks/pre-compaction', base);
      return null;
    case 'PostCompact':
      if (payload.compact_summary?.trim()) await client.post('/api/hooks/compaction-complete', { ...base, summary: payload.compact_summary });
      return null;
    case 'SessionEnd':
      if (!payload.agent_id) await syncSubagents(harness, client, transcriptPath, root, project);
      await client.post('/api/hooks/session-end', { ...base, transcriptPath, reason: payload.reason ?? null });
      return null;
    default:
      return null;
  }
}
