// What a harness said about a sub-agent just before starting it (its spawn tool call), kept until
// the sub-agent's start claims it: the task, the exact spawner and the parent's words a fork's copy
// lacks (docs/inheritance.md, "The child's task"). Held in memory only: an intent lives for the
// few hundred milliseconds between the spawn call and the start; a server restarted in between
// starts the child as before, without its task.
//
// Claude Code's SubagentStart names only the agent type, not the call: two children of one type
// spawned in one message could each take the other's task. So a second intent of the same session
// and type waits (boundedly) until the first is claimed: Claude Code runs each call's PreToolUse
// hook, then that call's start, so the wait orders the starts like the intents.

export interface SpawnIntent {
  /** The Baton agent whose hooks sent it (intents never cross agents). */
  agentId: string;
  harness: string;
  /** The root session the harness reports the start under. */
  rootKey: string;
  /** The session that spawns: the root, or a sub-agent of it. */
  spawnerKey: string;
  /** The harness's id of the spawn call (VS Code agent mode starts the child under this id). */
  toolUseId: string;
  agentType: string;
  task: string | null;
  /** The child starts with a copy of the spawner's history (Codex says so only in the call). */
  fork: boolean;
  /** A fork's spawning message as the harness drops it from the fork's copy of the conversation. */
  spawningText: string | null;
}

export interface SpawnIntentOptions {
  /** An intent never claimed (the call was denied, the harness crashed) is forgotten after this. */
  ttlMs: number;
  /** The longest a second intent of the same session and type waits for the first to be claimed. */
  maxOrderWaitMs: number;
  /** Intents held at most (oldest dropped first): a flood of spawn calls cannot grow memory. */
  maxIntents: number;
}

// The wait stays well inside a hook's budget (connectors/runHook.ts HOOK_BUDGET_MS).
export const DEFAULT_SPAWN_INTENTS: SpawnIntentOptions = { ttlMs: 60_000, maxOrderWaitMs: 700, maxIntents: 1_000 };

interface Held extends SpawnIntent {
  at: number;
  claimed: boolean;
  waiters: Array<() => void>;
}

export class SpawnIntents {
  private readonly held: Held[] = [];

  constructor(
    private readonly options: SpawnIntentOptions = DEFAULT_SPAWN_INTENTS,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Keeps an intent; resolves once no earlier intent of the same agent, root and type is still
   * unclaimed (or after maxOrderWaitMs), with how long it waited.
   */
  async record(intent: SpawnIntent): Promise<{ waitedMs: number }> {
    this.forgetExpired();
    const before = this.held.filter((h) => !h.claimed && sameFamily(h, intent));
    // The same call sent twice (a hook retried) replaces its earlier copy.
    const again = this.held.findIndex((h) => h.toolUseId === intent.toolUseId && sameFamily(h, intent));
    if (again >= 0) this.release(this.held.splice(again, 1)[0]);
    this.held.push({ ...intent, at: this.now(), claimed: false, waiters: [] });
    if (this.held.length > this.options.maxIntents) this.release(this.held.shift()!);
    const earlier = before.filter((h) => h.toolUseId !== intent.toolUseId);
    if (earlier.length === 0) return { waitedMs: 0 };
    const started = this.now();
    await Promise.race([
      Promise.all(earlier.map((h) => new Promise<void>((resolve) => h.waiters.push(resolve)))),
      new Promise<void>((resolve) => setTimeout(resolve, this.options.maxOrderWaitMs).unref()),
    ]);
    return { waitedMs: this.now() - started };
  }

  /** True when the root has an intent waiting to be claimed (a start need not look further otherwise). */
  pending(agentId: string, harness: string, rootKey: string): boolean {
    this.forgetExpired();
    return this.held.some((h) => !h.claimed && h.agentId === agentId && h.harness === harness && h.rootKey === rootKey);
  }

  /**
   * The intent a starting child takes: the one whose call id it carries, else the oldest unclaimed
   * one of its root and type. Null when none fits.
   */
  claim(agentId: string, harness: string, rootKey: string, agentType: string | null | undefined, childId?: string | null): SpawnIntent | null {
    this.forgetExpired();
    const open = this.held.filter((h) => !h.claimed && h.agentId === agentId && h.harness === harness && h.rootKey === rootKey);
    const byId = childId ? open.find((h) => h.toolUseId === childId || h.toolUseId.startsWith(`${childId}__`)) : undefined;
    const type = (agentType ?? '').toLowerCase();
    const found = byId ?? open.find((h) => h.agentType.toLowerCase() === type);
    if (!found) return null;
    found.claimed = true;
    this.release(found);
    const { at: _at, claimed: _claimed, waiters: _waiters, ...intent } = found;
    return intent;
  }

  private release(h: Held): void {
    for (const wake of h.waiters.splice(0)) wake();
  }

  private forgetExpired(): void {
    const oldest = this.now() - this.options.ttlMs;
    for (let i = this.held.length - 1; i >= 0; i--) {
      const h = this.held[i];
      if (h.claimed || h.at < oldest) {
        this.release(h);
        this.held.splice(i, 1);
      }
    }
  }
}

function sameFamily(a: SpawnIntent, b: SpawnIntent): boolean {
  return a.agentId === b.agentId && a.harness === b.harness && a.rootKey === b.rootKey && a.agentType.toLowerCase() === b.agentType.toLowerCase();
}
