// The sub-agent session manager (docs/runs.md): spawns a child session that inherits its parent's
// context, runs it with a runner (an external CLI, a VS Code language model), and records the run
// pending → running → completed | failed with its context, result, tokens, duration and error.
// Execution modes (docs/runs.md): SYNC waits; ASYNC_POLL returns the run id; ASYNC_CALLBACK
// delivers the result to the parent when it finishes, once. The parent is always recorded.
// Used by the server (POST /api/runs/spawn, `baton run`) and by the VS Code extension: it talks to
// Baton only through the API client, in-process or over HTTP.

import * as crypto from 'node:crypto';
import type { ApiClient, CallInput } from '../api/client';
import type { ResponseOf } from '../api/schemas';
import { MAX_TASK_CHARS } from '../api/schemas/hooks';
import { BatonError } from '../core/errors';
import { aggregateDeliveries, childPrompt, runBrief, runSessionKey } from '../core/runs';
import type { ExecutionMode, SubagentRunContext } from '../core/types';
import { readRunFiles } from './runFiles';
import type { RunRequest, Runner } from './runner';
import { Slots } from './slots';

export type RunView = ResponseOf<'getRun'>;
type RunBody = NonNullable<CallInput<'upsertRun'>['body']>;

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
  /** Whose run it is (an admin caller may name an agent). */
  agentId?: string;
  /** The tools the child may call (already granted by the caller, docs/runs.md), recorded with the run; default: none, nothing recorded. */
  tools?: readonly string[];
}

export interface SpawnResult {
  runId: string;
  sessionKey: string;
  mode: ExecutionMode;
  run: RunView | null;
}

export interface RunManagerOptions {
  /**
   * ASYNC_CALLBACK: take the parent's finished results as soon as a run ends and post them into
   * the parent (the VS Code chat parent). Off on the server: a harness parent's next prompt takes
   * them (POST /api/hooks/user-prompt-submit), so they must be left for it.
   */
  deliverOnFinish?: boolean;
  onDelivered?: (parentKey: string, runs: RunView[], text: string) => void;
  /** At most this many children at once (default: no bound). */
  slots?: Slots;
  /** Budget for the contents of a run's files in the child's prompt. */
  fileBudgetBytes?: number;
  defaultTimeoutMs?: number;
  /** Told of an error no caller is waiting for (an async run whose record could not be written). */
  onError?: (err: Error) => void;
  /** Told once a run is recorded (pending), before its child can start. */
  onRecorded?: (runId: string) => Promise<void>;
}

const HARNESS = 'baton';
export const DEFAULT_RUN_TIMEOUT_MS = 10 * 60_000;
export const DEFAULT_FILE_BUDGET_BYTES = 64 * 1024;

export class RunManager {
  private readonly runners = new Map<string, Runner>();
  private readonly inflight = new Map<string, Promise<RunView | null>>();
  private readonly busy = new Set<string>();
  /** Aborts every child this manager runs (shutdown). */
  private readonly stopping = new AbortController();

  constructor(
    private readonly client: () => Promise<ApiClient>,
    private readonly options: RunManagerOptions = {},
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
    if (this.stopping.signal.aborted) throw new Error('runs are shutting down');
    const mode = options.mode ?? 'SYNC';
    const runId = crypto.randomUUID();
    const sessionKey = runSessionKey(options.parentSessionKey, runId);
    // Refused before anything is recorded: a refused spawn leaves no trace (docs/runs.md).
    const problem = runner.sessionKeyProblem?.(sessionKey);
    if (problem)
      throw new BatonError(
        'invalid_request',
        `parentSessionKey: the runner "${runner.name}" puts the session key into its arguments (\${AGENT_SESSION_ID}), so it ${problem}`,
      );
    const client = await this.client();
    const files = options.files ?? [];
    const context: SubagentRunContext = { workspacePath: options.workspacePath, specId: options.specId, prompt: options.task, files };
    const started = await client.call('sessionStart', {
      body: {
        harness: HARNESS,
        sessionKey,
        parentSessionKey: options.parentSessionKey ?? undefined,
        harnessAgentType: options.runner,
        executionMode: mode,
        title: options.title ?? options.task.split('\n')[0].slice(0, 80),
        agentId: options.agentId,
        // The parent's turns are chosen for the run's task (docs/inheritance.md); its opening is enough to rank by.
        task: options.task.slice(0, MAX_TASK_CHARS),
      },
    });
    await client.call('upsertRun', {
      body: {
        id: runId,
        runner: options.runner,
        status: 'pending',
        executionMode: mode,
        sessionKey,
        parentSessionKey: options.parentSessionKey ?? undefined,
        workspacePath: options.workspacePath,
        specId: options.specId,
        prompt: options.task,
        files,
        tools: options.tools ? [...options.tools] : undefined,
        agentId: options.agentId,
      },
    });
    await this.options.onRecorded?.(runId);
    const brief = runBrief(
      options.specId,
      files.length ? await readRunFiles(options.workspacePath, files, this.options.fileBudgetBytes ?? DEFAULT_FILE_BUDGET_BYTES) : [],
    );
    const request: RunRequest = {
      runId,
      sessionKey,
      parentSessionKey: options.parentSessionKey,
      task: options.task,
      inherited: started.inject ?? '',
      brief,
      context,
      tools: options.tools ?? [],
    };
    const execution = this.execute(runner, request, mode, options.timeoutMs ?? this.options.defaultTimeoutMs ?? DEFAULT_RUN_TIMEOUT_MS, options.agentId);
    this.inflight.set(runId, execution);
    void execution.finally(() => this.inflight.delete(runId));
    if (mode === 'SYNC') return { runId, sessionKey, mode, run: await execution };
    return { runId, sessionKey, mode, run: await client.callOrNull('getRun', { params: { id: runId } }) };
  }

  /** Never rejects: an async run has nobody to tell but onError. */
  private async execute(runner: Runner, request: RunRequest, mode: ExecutionMode, timeoutMs: number, agentId?: string): Promise<RunView | null> {
    try {
      return await this.executeOnce(runner, request, mode, timeoutMs, agentId);
    } catch (err) {
      this.options.onError?.(err as Error);
      return null;
    }
  }

  private async executeOnce(runner: Runner, request: RunRequest, mode: ExecutionMode, timeoutMs: number, agentId?: string): Promise<RunView | null> {
    const client = await this.client();
    const save = (body: RunBody) => client.call('upsertRun', { body: { ...body, id: request.runId, agentId } });
    let startedAt = Date.now();
    let timedOut = false;
    let run: RunView | null;
    try {
      // Slots are shared fairly between agents (slots.ts); runs that name no agent share one turn.
      const release = this.options.slots ? await this.options.slots.acquire(this.stopping.signal, agentId ?? '') : undefined;
      let out: Awaited<ReturnType<Runner['run']>>;
      // The slot is given back however the child ends: completed, failed, timed out, aborted or thrown.
      try {
        startedAt = Date.now();
        await save({ status: 'running', startedAt: new Date(startedAt).toISOString() });
        const prompt = childPrompt(request.inherited, request.task, request.brief);
        await client.call('userPromptSubmit', { body: { harness: HARNESS, sessionKey: request.sessionKey, userPrompt: prompt, agentId } });
        const timeout = AbortSignal.timeout(timeoutMs);
        const signal = AbortSignal.any([timeout, this.stopping.signal]);
        try {
          out = await runner.run(request, signal);
        } catch (err) {
          timedOut = timeout.aborted;
          throw err;
        }
      } finally {
        release?.();
      }
      await client.call('sessionEnd', {
        body: { harness: HARNESS, sessionKey: request.sessionKey, lastAssistantMessage: out.content, status: 'completed', reason: 'run completed', agentId },
      });
      run = await save({
        status: 'completed',
        resultContent: out.content,
        inputTokens: out.inputTokens,
        outputTokens: out.outputTokens,
        durationMs: Date.now() - startedAt,
        finishedAt: new Date().toISOString(),
      });
    } catch (err) {
      const message = timedOut
        ? `timed out after ${timeoutMs} ms`
        : this.stopping.signal.aborted
          ? 'stopped: Baton shut down before the run finished'
          : (err as Error).message;
      await client
        .call('sessionEnd', { body: { harness: HARNESS, sessionKey: request.sessionKey, status: 'failed', reason: message.slice(0, 200), agentId } })
        .catch(() => undefined);
      run = await save({ status: 'failed', error: message, durationMs: Date.now() - startedAt, finishedAt: new Date().toISOString() });
    }
    if (mode === 'ASYNC_CALLBACK' && request.parentSessionKey && this.options.deliverOnFinish !== false) await this.deliver(request.parentSessionKey);
    return run;
  }

  /** Waits for a run this manager started (tests and SYNC callers); otherwise reads its record. */
  async wait(runId: string): Promise<RunView | null> {
    const inflight = this.inflight.get(runId);
    if (inflight) return inflight;
    return (await this.client()).callOrNull('getRun', { params: { id: runId } });
  }

  status(runId: string): Promise<RunView | null> {
    return this.client().then((c) => c.callOrNull('getRun', { params: { id: runId } }));
  }

  /** How many runs this manager has started that have not finished. */
  get running(): number {
    return this.inflight.size;
  }

  /** Waits for every run started here to finish (a CLI that holds the store stays until then). */
  async drain(): Promise<void> {
    while (this.inflight.size) await Promise.all([...this.inflight.values()]);
  }

  /** Ends every child (each run is recorded failed), waits for the records, and refuses new runs. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.drain();
  }

  /** A parent is busy while it is answering: callback results wait until it is done. */
  setBusy(parentKey: string, busy: boolean): Promise<RunView[]> {
    if (busy) {
      this.busy.add(parentKey);
      return Promise.resolve([]);
    }
    this.busy.delete(parentKey);
    return this.deliver(parentKey);
  }

  /** Delivers every finished, undelivered callback result of a parent at once, as one system turn. */
  async deliver(parentKey: string): Promise<RunView[]> {
    if (this.busy.has(parentKey)) return [];
    const client = await this.client();
    const { runs } = await client.call('deliverRuns', { body: { parentSessionKey: parentKey } });
    if (runs.length === 0) return [];
    const text = aggregateDeliveries(runs);
    const parent = await client.callOrNull('getSession', { params: { key: parentKey } });
    await client.call('userPromptSubmit', {
      body: { harness: parent?.harness ?? HARNESS, sessionKey: parentKey, transcript: [{ role: 'system', content: text }] },
    });
    this.options.onDelivered?.(parentKey, runs, text);
    return runs;
  }
}
