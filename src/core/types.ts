// Shared vocabulary of Baton. Pure types: no runtime imports, usable from every layer.

import type { TurnUsage } from './usage';

export type Role = 'user' | 'assistant' | 'tool' | 'system';

/** One normalised transcript turn, as stored. `at` is an ISO time when the source had one. */
export interface Turn {
  role: Role;
  text: string;
  at?: string;
  /** The model request this turn came from, when the transcript reports its usage (core/spend.ts). Not part of the turn's identity. */
  usage?: TurnUsage;
}

export type ReadPolicy = 'shared' | 'isolated';
export type ExecutionMode = 'SYNC' | 'ASYNC_POLL' | 'ASYNC_CALLBACK';
export type SessionStatus = 'active' | 'completed' | 'failed' | 'ended';
export type RunStatus = 'pending' | 'running' | 'completed' | 'failed';

/**
 * How a session's parent was identified (kept for diagnostics and the tree). Besides the
 * harness-agnostic signals, each harness names its own (`<harness>-key`, `<harness>-subagent`,
 * `<harness>-parent`; today openclaw-key, claude-code-subagent, codex-subagent, opencode-parent:
 * docs/harnesses.md), so adding a harness does not touch this file.
 */
export type LineageSource = 'explicit' | 'env' | 'project-recency' | HarnessLineageSource;
export type HarnessLineageSource = `${string}-key` | `${string}-subagent` | `${string}-parent`;

export interface SearchHit {
  sessionKey: string;
  /** The session's title (its harness's, or its first prompt's), to show instead of the key. */
  title: string | null;
  agentId: string;
  harness: string;
  project: string | null;
  parentSessionKey: string | null;
  updatedAt: string;
  excerpt: string;
  /** BM25-style score, lower is better (SQLite convention: negative numbers rank first). */
  rank: number;
  /** Sequence number of the first turn of the matching segment: where a viewer should scroll. */
  turnSeq: number;
}

export interface CheckpointRecord {
  id: number;
  sessionKey: string;
  digest: string;
  focalEntities: string[];
  /** Number of transcript turns the checkpoint covers. */
  extractionCursor: number;
  source: string | null;
  createdAt: string;
}

export interface SubagentRunContext {
  workspacePath?: string;
  specId?: string;
  prompt?: string;
  files?: string[];
  /** The tools the child was granted at spawn (docs/runs.md, "Tools of a sub-agent"); absent: none was asked for. */
  tools?: string[];
}

export interface SubagentRun {
  id: string;
  agentId: string;
  sessionKey: string | null;
  parentSessionKey: string | null;
  runner: string;
  status: RunStatus;
  executionMode: ExecutionMode;
  context: SubagentRunContext;
  resultContent: string | null;
  inputTokens: number | null;
  outputTokens: number | null;
  durationMs: number | null;
  error: string | null;
  callbackDeliveredAt: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  updatedAt: string;
}
