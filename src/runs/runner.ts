// What a runner is: something that runs one child session's prompt and answers with its result
// (an external CLI, a VS Code language model). The run manager (runManager.ts) records the rest.

import type { SubagentRunContext } from '../core/types';

export interface RunRequest {
  runId: string;
  sessionKey: string;
  parentSessionKey: string | null;
  task: string;
  /** The inherited block the child starts with ('' when the parent has nothing yet). */
  inherited: string;
  /** The spec and files of the run, as the child reads them ('' when it names none). */
  brief: string;
  context: SubagentRunContext;
  /**
   * The tools the child may call, by name (granted at spawn, docs/runs.md "Tools of a sub-agent");
   * empty: none. Only the VS Code language-model runner can offer tools; the others ignore it.
   */
  tools: readonly string[];
}

export interface RunOutput {
  content: string;
  inputTokens?: number;
  outputTokens?: number;
}

export interface Runner {
  readonly name: string;
  /**
   * Why this runner cannot start a child with that session key (for example, one it would put
   * into a command's arguments), or null. Asked before anything of the run is recorded.
   */
  sessionKeyProblem?(sessionKey: string): string | null;
  run(request: RunRequest, signal: AbortSignal): Promise<RunOutput>;
}
