// Spawning sub-agent runs on the server (POST /api/runs/spawn, docs/runs.md): picks the configured
// runner, starts its child through the run manager (src/runs) as the calling agent, and keeps the
// bounds that hold for the whole server: how many children run at once (shared fairly between
// agents), how many runs one agent may have waiting or running, how much output is kept, how long
// a child may take. Every refusal comes before anything is recorded. Stopping the server ends
// every child and records its run as failed; runs a crashed process left behind are failed, and
// their children ended, when the store is next opened (reconcile).

import type { ApiClient } from '../api/client';
import type { BodyOf, ResponseOf } from '../api/schemas';
import { BatonError } from '../core/errors';
import { silentLogger, type Logger } from '../core/logger';
import { ExternalRunner } from '../runs/externalRunner';
import { RUN_ID_ENV } from '../core/runs';
import { endGroup, groupsWithEnvironment, processIdentity } from '../runs/processGroup';
import { RunManager } from '../runs/runManager';
import { Slots } from '../runs/slots';
import type { StoreAccess } from '../store/store';
import type { ServerConfig } from './config';
import { requirePermission, writeAgent, type Caller } from './security';

/** The error of a run found unfinished when the store opens (docs/runs.md, "After a crash"). */
export const INTERRUPTED_RUN_ERROR = 'stopped: the server stopped before the run finished (found when Baton started again)';

export class RunService {
  private readonly slots: Slots;
  /** Managers with children still running (one per spawn: each acts as its caller). */
  private readonly active = new Set<RunManager>();
  /** Runs pending or running, per agent (the maxRunsPerAgent bound). */
  private readonly perAgent = new Map<string, number>();
  /** Orphaned children being ended (reconcile). */
  private readonly ending = new Set<Promise<void>>();
  private closed = false;

  constructor(
    private readonly config: ServerConfig,
    private readonly store?: StoreAccess,
    private readonly logger: Logger = silentLogger,
  ) {
    this.slots = new Slots(config.maxConcurrentRuns);
  }

  /** The runner a spawn names, or the default; a name the config does not know is the caller's error. */
  private runnerName(named: string | undefined): string {
    const configured = Object.keys(this.config.runners);
    const name = named ?? this.config.defaultRunner ?? (configured.length === 1 ? configured[0] : undefined);
    if (!name) throw new BatonError('invalid_request', `runner: name one (configured: ${configured.join(', ') || 'none; add runners to config.json'})`);
    if (!Object.hasOwn(this.config.runners, name))
      throw new BatonError(
        'invalid_request',
        `runner: "${name}" is not configured (configured: ${configured.join(', ') || 'none; add runners to config.json'})`,
      );
    return name;
  }

  /**
   * Only the user chooses a workspace: its files go into the child's prompt, so an agent token
   * gets the runner's own cwd (docs/security.md). The reply is the run record, a read: spawning
   * needs `recall` as well as `remember`.
   */
  async spawn(client: ApiClient, body: BodyOf<'spawnRun'>, caller: Caller): Promise<ResponseOf<'spawnRun'>> {
    if (this.closed) throw new BatonError('unavailable', 'the server is shutting down');
    requirePermission(caller, 'recall');
    if (body.workspacePath && !caller.admin) throw new BatonError('forbidden', 'workspacePath: only the admin token may choose the workspace');
    const agent = writeAgent(caller, body.agentId);
    const mode = body.executionMode ?? 'SYNC';
    if (mode === 'ASYNC_CALLBACK' && !body.parentSessionKey) throw new BatonError('invalid_request', 'parentSessionKey: is required for ASYNC_CALLBACK');
    const name = this.runnerName(body.runner);
    const runner = this.config.runners[name];
    const runnerTimeout = runner.timeoutMs ?? this.config.runTimeoutMs;
    const queued = this.perAgent.get(agent) ?? 0;
    if (queued >= this.config.maxRunsPerAgent)
      throw new BatonError(
        'too_many_requests',
        `agent "${agent}" already has ${queued} runs pending or running; the limit is ${this.config.maxRunsPerAgent} (maxRunsPerAgent in config.json)`,
      );
    const manager = new RunManager(async () => client, {
      // The parent's next prompt takes ASYNC_CALLBACK results (docs/runs.md, "Callback delivery").
      deliverOnFinish: false,
      slots: this.slots,
      fileBudgetBytes: this.config.runFilesMaxBytes,
      // This process runs it: should it die, the next start fails the run (reconcile).
      onRecorded: async (runId) => void (await this.recordProcess({ id: runId, hostPid: process.pid })),
    });
    manager.register(
      new ExternalRunner({
        name,
        command: runner.command,
        args: runner.args,
        cwd: runner.cwd,
        maxOutputBytes: this.config.runOutputMaxBytes,
        onChildStarted: (request, pid) => void this.recordProcess({ id: request.runId, childPid: pid, childIdentity: processIdentity(pid) }),
      }),
    );
    // Counted from here, synchronously after the check: two spawns at once cannot both pass it.
    this.perAgent.set(agent, queued + 1);
    this.active.add(manager);
    try {
      const spawned = await manager.spawn({
        parentSessionKey: body.parentSessionKey ?? null,
        task: body.task,
        runner: name,
        mode,
        specId: body.specId,
        workspacePath: body.workspacePath ?? runner.cwd,
        files: body.files,
        title: body.title,
        timeoutMs: Math.min(body.timeoutMs ?? runnerTimeout, runnerTimeout),
        // The agent the run is recorded for, and the one its slot is queued under.
        agentId: agent,
      });
      if (!spawned.run) throw new BatonError('internal', `run ${spawned.runId} could not be read back`);
      return spawned.run;
    } finally {
      void manager.drain().finally(() => {
        this.active.delete(manager);
        const left = (this.perAgent.get(agent) ?? 1) - 1;
        if (left > 0) this.perAgent.set(agent, left);
        else this.perAgent.delete(agent);
      });
    }
  }

  private async recordProcess(args: { id: string; hostPid?: number; childPid?: number; childIdentity?: string | null }): Promise<void> {
    if (!this.store) return;
    try {
      await this.store.write('recordRunProcess', args);
    } catch (err) {
      this.logger.warn(`runs: could not record the process of a run (${(err as Error).name})`);
    }
  }

  /**
   * When the store opens (before any spawn): runs a process that died left pending or running are
   * failed, and each child of theirs that still runs (the same process: its identity matches) is
   * ended with its whole group.
   */
  async reconcile(): Promise<{ failed: number; ended: number }> {
    if (!this.store) return { failed: 0, ended: 0 };
    const { runs } = await this.store.write('failInterruptedRuns', { error: INTERRUPTED_RUN_ERROR });
    // Whatever the runs' children started, found by the run id every process of a run inherits…
    const groups = new Set<number>(
      groupsWithEnvironment(
        RUN_ID_ENV,
        runs.map((r) => r.runId),
      ),
    );
    // …and each child itself, if the process with its pid is still that child (not a later one with a recycled pid).
    for (const run of runs) if (run.childPid && run.childIdentity && processIdentity(run.childPid) === run.childIdentity) groups.add(run.childPid);
    for (const pgid of groups) {
      const ending = endGroup(pgid);
      this.ending.add(ending);
      void ending.finally(() => this.ending.delete(ending));
    }
    if (runs.length)
      this.logger.info(`runs: ${runs.length} run(s) left unfinished by an earlier process marked failed; ${groups.size} orphaned process group(s) ended`);
    return { failed: runs.length, ended: groups.size };
  }

  /** Children still running, across all callers. */
  get running(): number {
    let n = 0;
    for (const manager of this.active) n += manager.running;
    return n;
  }

  /** Waits for every child to finish (an in-process CLI that holds the store). */
  async drain(): Promise<void> {
    while (this.active.size || this.ending.size) await Promise.all([...[...this.active].map((m) => m.drain()), ...this.ending]);
  }

  /** Ends every child; each run is recorded failed before this resolves. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...[...this.active].map((m) => m.stop()), ...this.ending]);
  }
}
