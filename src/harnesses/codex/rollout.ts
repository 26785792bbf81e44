// What a Codex rollout's first line (`session_meta`) says about its thread: read by the hook
// command (a sub-agent's spawner, claudeStyleHooks.ts) and by `baton import codex`, so that both
// key and parent a thread the same way (docs/harnesses.md).

import * as fs from 'node:fs';
import { asObj, type Obj } from '../../core/normalize';

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v.trim() : undefined);

/** What a rollout's `session_meta` says about its thread. */
export interface RolloutMeta {
  threadId: string;
  /** The root session (absent in rollouts of Codex versions that did not write it). */
  sessionId?: string;
  parentThreadId?: string;
  nickname?: string;
  role?: string;
  cwd?: string;
}

/** The thread a rollout's first line describes; null when that line is not a Codex session_meta. */
export function rolloutMeta(firstLine: string): RolloutMeta | null {
  let record: Obj | undefined;
  try {
    record = asObj(JSON.parse(firstLine));
  } catch {
    return null;
  }
  const p = asObj(record?.payload);
  const threadId = str(p?.id);
  if (record?.type !== 'session_meta' || !p || !threadId) return null;
  const spawn = asObj(asObj(asObj(p.source)?.subagent)?.thread_spawn);
  return {
    threadId,
    sessionId: str(p.session_id),
    parentThreadId: str(p.parent_thread_id) ?? str(spawn?.parent_thread_id),
    nickname: str(p.agent_nickname) ?? str(spawn?.agent_nickname),
    role: str(p.agent_role) ?? str(spawn?.agent_role),
    cwd: str(p.cwd),
  };
}

/** How much of a rollout is read for its first line (session_meta carries Codex's instructions: tens of KB). */
export const FIRST_LINE_MAX_BYTES = 4 * 1024 * 1024;

/** The first line of an open file, read in pieces, at most `limit` bytes (`baton import codex` opens through node/importFile.ts). */
export function firstLineOf(fd: number, limit = FIRST_LINE_MAX_BYTES): string {
  const chunks: Buffer[] = [];
  const buf = Buffer.alloc(64 * 1024);
  for (let read = 0; read < limit;) {
    const n = fs.readSync(fd, buf, 0, buf.length, read);
    if (n === 0) break;
    const end = buf.subarray(0, n).indexOf(0x0a);
    chunks.push(Buffer.from(buf.subarray(0, end >= 0 ? end : n)));
    if (end >= 0) break;
    read += n;
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The assistant text written just before the function call `callId` in the same response, from
 * the end of a rollout (a first line cut by the read is skipped): what a forked child's copy of
 * the history leaves out.
 */
export function rolloutSpawningText(tail: string, callId: string): string | null {
  const items: Array<Record<string, unknown>> = [];
  for (const line of tail.split('\n')) {
    if (!line.trim()) continue;
    try {
      const record = JSON.parse(line) as { type?: unknown; payload?: Record<string, unknown> };
      if (record?.type === 'response_item' && record.payload && typeof record.payload === 'object') items.push(record.payload);
    } catch {
      // a line cut by the read, or not JSON
    }
  }
  const at = items.findIndex((i) => i.type === 'function_call' && i.call_id === callId);
  if (at < 0) return null;
  const texts: string[] = [];
  // Back from the call over the same response: other calls and assistant messages, until anything else.
  for (let i = at - 1; i >= 0; i--) {
    const item = items[i];
    if (item.type === 'function_call' || item.type === 'custom_tool_call' || item.type === 'reasoning') continue;
    if (item.type !== 'message' || item.role !== 'assistant') break;
    const content = Array.isArray(item.content) ? (item.content as Array<{ type?: unknown; text?: unknown }>) : [];
    const text = content
      .filter((c) => c?.type === 'output_text' && typeof c.text === 'string')
      .map((c) => c.text as string)
      .join('\n');
    if (text.trim()) texts.unshift(text.trim());
  }
  return texts.length ? texts.join('\n\n') : null;
}
