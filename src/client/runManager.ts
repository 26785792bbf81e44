// The sub-agent session manager (docs/runs.md): spawns a child session that inherits its parent's
// context, runs it with a runner (a VS Code language model, an external CLI), and records the run
// pending → running → completed | failed with its context, result, tokens, duration and error.
// Execution modes (docs/runs.md): SYNC waits; ASYNC_POLL returns the run id; ASYNC_CALLBACK
// delivers the result into the parent session when it finishes, queued while the parent is busy,
// aggregated, never twice (the server marks deliveries atomically). The parent is always recorded.

import * as crypto from 'node:crypto';
import { aggregateDeliveries, runSessionKey } from '../core/runs';
import type { ExecutionMode, SubagentRun, SubagentRunContext } from '../core/types';
import type { BatonClient } from './batonClient';

export interface RunRequest {
  runId: string;
  sessionKey: string;
  parentSessionKey: string | null;
  task: string;
  /** The inherited block the child starts with ('' when the parent has nothing yet). */
  inherited: string;
  context: SubagentRunContext;
}

export interface RunOutput {
  content: string;
  inputTokens?: number;
  outputTokens?: number;
}

export interface Runner {
  readonly name: string;
  run(request: RunRequest, signal: AbortSignal): Promise<RunOutput>;
}

export interface SpawnOptions {
  parentSessionKey: string | null;
  task: string;
  runner: string;
  mode?: ExecutionMode;
  specId?: string;
  workspacePath?: string;
  files?: string[];
  /** A label for the child session (defaults to the task's first line). */
  title?: string;
  timeoutMs?: number;
}

export interface SpawnResult {
  runId: string;
  sessionKey: string;
  mode: ExecutionMode;
  run: SubagentRun | null;
}

const HARNESS = 'baton';

/** The prompt a child runs with: what it inherits, then its task. */
export function childPrompt(inherited: string, task: string): string {
  return inherited ? `${inherited}\n\n## Task\n\n${task}` : task;
}

export class RunManager {
  private readonly runners = new Map<string, Runner>();
  private readonly inflight = new Map<string, Promise<SubagentRun | null>>();
  private readonly busy = new Set<string>();

  constructor(
    private readonly client: () => Promise<BatonClient>,
    private readonly onDelivered?: (parentKey: string, runs: SubagentRun[], text: string) => void,
  ) {}

  register(runner: Runner): { dispose(): void } {
    this.runners.set(runner.name, runner);
    return { dispose: () => this.runners.delete(runner.name) };
  }

  get runnerNames(): string[] {
    return [...this.runners.keys()];
  }

  async spawn(options: SpawnOptions): Promise<SpawnResult> {
    const runner = this.runners.get(options.runner);
    if (!runner) throw new Error(`No runner named "${options.runner}" (available: ${this.runnerNames.join(', ') || 'none'}).`);
    const client = await this.client();
    const mode = options.mode ?? 'SYNC';
    const runId = crypto.randomUUID();
    const sessionKey = runSessionKey(options.parentSessionKey, runId);
    const context: SubagentRunContext = { workspacePath: options.workspacePath, specId: options.specId, prompt: options.task, files: options.files ?? [] };
    const started = await client.call('sessionStart', {
      body: {
        harness: HARNESS,
        sessionKey,
        parentSessionKey: options.parentSessionKey ?? undefined,
        harnessAgentType: options.runner,
        executionMode: mode,
        title: options.title ?? options.task.split('\n')[0].slice(0, 80),
      },
    });
    await client.saveRun({
      id: runId,
      runner: options.runner,
      status: 'pending',
      executionMode: mode,
      sessionKey,
      parentSessionKey: options.parentSessionKey ?? undefined,
      workspacePath: options.workspacePath,
      specId: options.specId,
      prompt: options.task,
      files: options.files ?? [],
    });
    const request: RunRequest = { runId, sessionKey, parentSessionKey: options.parentSessionKey, task: options.task, inherited: started.inject ?? '', context };
    const execution = this.execute(runner, request, mode, options.timeoutMs ?? 10 * 60_000);
    this.inflight.set(runId, execution);
    void execution.finally(() => this.inflight.delete(runId));
    if (mode === 'SYNC') return { runId, sessionKey, mode, run: await execution };
    return { runId, sessionKey, mode, run: await client.getRun(runId) };
  }

  private async execute(runner: Runner, request: RunRequest, mode: ExecutionMode, timeoutMs: number): Promise<SubagentRun | null> {
    const client = await this.client();
    const startedAt = Date.now();
    await client.saveRun({ id: request.runId, status: 'running', startedAt: new Date(startedAt).toISOString() });
    const prompt = childPrompt(request.inherited, request.task);
    await client.call('userPromptSubmit', { body: { harness: HARNESS, sessionKey: request.sessionKey, userPrompt: prompt } });
    const signal = AbortSignal.timeout(timeoutMs);
    let run: SubagentRun | null;
    try {
      const out = await runner.run(request, signal);
      await client.call('sessionEnd', {
        body: { harness: HARNESS, sessionKey: request.sessionKey, lastAssistantMessage: out.content, status: 'completed', reason: 'run completed' },
      });
      run = await client.saveRun({
        id: request.runId,
        status: 'completed',
        resultContent: out.content,
        inputTokens: out.inputTokens,
        outputTokens: out.outputTokens,
        durationMs: Date.now() - startedAt,
        finishedAt: new Date().toISOString(),
      });
    } catch (err) {
      const message = signal.aborted ? `timed out after ${timeoutMs} ms` : (err as Error).message;
      await client
        .call('sessionEnd', { body: { harness: HARNESS, sessionKey: request.sessionKey, status: 'failed', reason: message.slice(0, 200) } })
        .catch(() => undefined);
      run = await client.saveRun({
        id: request.runId,
        status: 'failed',
        error: message,
        durationMs: Date.now() - startedAt,
        finishedAt: new Date().toISOString(),
      });
    }
    if (mode === 'ASYNC_CALLBACK' && request.parentSessionKey) await this.deliver(request.parentSessionKey);
    return run;
  }

  /** Waits for a run this process started (tests and SYNC callers); otherwise reads its record. */
  async wait(runId: string): Promise<SubagentRun | null> {
    const inflight = this.inflight.get(runId);
    if (inflight) return inflight;
    return (await this.client()).getRun(runId);
  }

  status(runId: string): Promise<SubagentRun | null> {
    return this.client().then((c) => c.getRun(runId));
  }

  /** A parent is busy while it is answering: callback results wait until it is done. */
  setBusy(parentKey: string, busy: boolean): Promise<SubagentRun[]> {
    if (busy) {
      this.busy.add(parentKey);
      return Promise.resolve([]);
    }
    this.busy.delete(parentKey);
    return this.deliver(parentKey);
  }

  /** Delivers every finished, undelivered callback result of a parent at once, as one system turn. */
  async deliver(parentKey: string): Promise<SubagentRun[]> {
    if (this.busy.has(parentKey)) return [];
    const client = await this.client();
    const runs = await client.takeDeliveries(parentKey);
    if (runs.length === 0) return [];
    const text = aggregateDeliveries(runs);
    const parent = await client.getSession(parentKey);
    await client.call('userPromptSubmit', {
      body: { harness: parent?.harness ?? HARNESS, sessionKey: parentKey, transcript: [{ role: 'system', content: text }] },
    });
    this.onDelivered?.(parentKey, runs, text);
    return runs;
  }
}
