// Finds a new session's parent from what the harness tells us (docs/harnesses.md, "Lineage":
// the detection matrix, and each harness's signals). Exact signals first; the project-recency query is only
// a fallback for harnesses that ask for it (Claude Code sub-agents arriving without their parent's
// id). Harness agent ids are lineage metadata, never a scope. The harness-specific signals come
// from src/harnesses/ (each harness's index.ts); this file only orders them.

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

export type LineageDecision = { kind: 'parent'; parentKey: string; source: LineageSource } | { kind: 'recency' } | { kind: 'none' };

/** What one harness adds to the matrix. Pure functions only. */
export interface HarnessLineage {
  /** A parent named by the session key itself, whoever reports it (OpenClaw: `agent:x:subagent:y`). */
  parentFromKey?(sessionKey: string): { parentKey: string; source: LineageSource } | null;
  /** The harness's own decision once explicit, propagated and key signals gave nothing. */
  decide?(input: LineageInput): LineageDecision | null;
  /** The source recorded when the harness re-parents a session at its end (the spawner it wrote down). */
  reparentSource?: LineageSource;
}

/** The parent a session key names, by the first harness whose keys carry one; null otherwise. */
export function parentFromKeyWith(sessionKey: string, all: readonly HarnessLineage[]): { parentKey: string; source: LineageSource } | null {
  for (const lineage of all) {
    const found = lineage.parentFromKey?.(sessionKey);
    if (found) return found;
  }
  return null;
}

/** Explicit, then propagated, then a parent named by the key, then the reporting harness's own rule. */
export function decideLineageWith(input: LineageInput, all: readonly HarnessLineage[], own: HarnessLineage | undefined): LineageDecision {
  const self = input.sessionKey;
  const explicit = input.explicitParent && input.explicitParent !== self ? input.explicitParent : null;
  if (explicit) return { kind: 'parent', parentKey: explicit, source: 'explicit' };
  const propagated = input.propagatedParent && input.propagatedParent !== self ? input.propagatedParent : null;
  if (propagated) return { kind: 'parent', parentKey: propagated, source: 'env' };
  const fromKey = parentFromKeyWith(self, all);
  if (fromKey) return { kind: 'parent', ...fromKey };
  return own?.decide?.(input) ?? { kind: 'none' };
}
