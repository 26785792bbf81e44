// Finds a new session's parent from what the harness tells us (spec phase 2, detection matrix).
// Exact signals first; the project-recency query is only a fallback for Claude Code sub-agents
// that arrive without their parent's id. Harness agent ids are lineage metadata, never a scope.

import type { LineageSource } from './types';

export interface LineageInput {
  harness: string;
  sessionKey: string;
  /** Explicit parent, from the body (`parentSessionKey` or an alias) — already merged by the caller. */
  explicitParent?: string | null;
  /** From `X-Agent-Session-Id` / `AGENT_SESSION_ID`, for processes Baton started. */
  propagatedParent?: string | null;
  harnessAgentId?: string | null;
}

export type LineageDecision =
  | { kind: 'parent'; parentKey: string; source: LineageSource }
  | { kind: 'recency' }
  | { kind: 'none' };

const OPENCLAW_SUBAGENT = /^agent:([^:]+):subagent:([^:]+)$/;

export function isOpenClawSubagentKey(key: string): boolean {
  return OPENCLAW_SUBAGENT.test(key);
}

/** `agent:{id}:subagent:{uuid}` → `agent:{id}:main`. */
export function openClawParentKey(key: string): string | null {
  const m = OPENCLAW_SUBAGENT.exec(key);
  return m ? `agent:${m[1]}:main` : null;
}

/** Body aliases for the explicit parent, in order of preference. */
export function explicitParentOf(body: Record<string, unknown>): string | null {
  for (const name of ['parentSessionKey', 'parentKey', 'parentId', 'parentID']) {
    const value = body[name];
    if (typeof value === 'string' && value.trim()) return value.trim();
  }
  return null;
}

export function decideLineage(input: LineageInput): LineageDecision {
  const self = input.sessionKey;
  const explicit = input.explicitParent && input.explicitParent !== self ? input.explicitParent : null;
  if (explicit) return { kind: 'parent', parentKey: explicit, source: 'explicit' };
  const propagated = input.propagatedParent && input.propagatedParent !== self ? input.propagatedParent : null;
  if (propagated) return { kind: 'parent', parentKey: propagated, source: 'env' };
  const openclaw = openClawParentKey(self);
  if (openclaw) return { kind: 'parent', parentKey: openclaw, source: 'openclaw-key' };
  if (input.harness === 'claude-code' && input.harnessAgentId) return { kind: 'recency' };
  return { kind: 'none' };
}
