// Spawning sub-agent runs on the server (POST /api/runs/spawn, docs/runs.md): picks the configured
// runner, starts its child through the run manager (src/runs) as the calling agent, and keeps the
// bounds that hold for the whole server: how many children run at once, how much output is kept,
// how long a child may take. Stopping the server ends every child and records its run as failed.

import type { ApiClient } from '../api/client';
import type { BodyOf, ResponseOf } from '../api/schemas';
import { BatonError } from '../core/errors';
import { ExternalRunner } from '../runs/externalRunner';
import { RunManager } from '../runs/runManager';
import { Slots } from '../runs/slots';
import type { ServerConfig } from './config';

export class RunService {
  private readonly slots: Slots;
  /** Managers with children still running (one per spawn: each acts as its caller). */
  private readonly active = new Set<RunManager>();
  private closed = false;

  constructor(private readonly config: ServerConfig) {
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
   * `admin`: whether the caller holds the admin token. Only the user chooses a workspace: its files
   * go into the child's prompt, so an agent token gets the runner's own cwd (docs/security.md).
   */
  async spawn(client: ApiClient, body: BodyOf<'spawnRun'>, admin: boolean): Promise<ResponseOf<'spawnRun'>> {
    if (this.closed) throw new BatonError('unavailable', 'the server is shutting down');
    if (body.workspacePath && !admin) throw new BatonError('forbidden', 'workspacePath: only the admin token may choose the workspace');
    const mode = body.executionMode ?? 'SYNC';
    if (mode === 'ASYNC_CALLBACK' && !body.parentSessionKey) throw new BatonError('invalid_request', 'parentSessionKey: is required for ASYNC_CALLBACK');
    const name = this.runnerName(body.runner);
    const runner = this.config.runners[name];
    const runnerTimeout = runner.timeoutMs ?? this.config.runTimeoutMs;
    const manager = new RunManager(async () => client, {
      // The parent's next prompt takes ASYNC_CALLBACK results (docs/runs.md, "Callback delivery").
      deliverOnFinish: false,
      slots: this.slots,
      fileBudgetBytes: this.config.runFilesMaxBytes,
    });
    manager.register(new ExternalRunner({ name, command: runner.command, args: runner.args, cwd: runner.cwd, maxOutputBytes: this.config.runOutputMaxBytes }));
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
        agentId: body.agentId,
      });
      if (!spawned.run) throw new BatonError('internal', `run ${spawned.runId} could not be read back`);
      return spawned.run;
    } finally {
      void manager.drain().finally(() => this.active.delete(manager));
    }
  }

  /** Children still running, across all callers. */
  get running(): number {
    let n = 0;
    for (const manager of this.active) n += manager.running;
    return n;
  }

  /** Waits for every child to finish (an in-process CLI that holds the store). */
  async drain(): Promise<void> {
    while (this.active.size) await Promise.all([...this.active].map((m) => m.drain()));
  }

  /** Ends every child; each run is recorded failed before this resolves. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.active].map((m) => m.stop()));
  }
}
