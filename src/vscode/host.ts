// Hosts Baton in the extension host. One store writer per data directory: the first window
// becomes the leader (store + endpoint in-process); other windows (or a window beside a running
// `baton serve`) follow it through its endpoint and its event stream, and one of them takes over
// within seconds when the leader goes away. Start-up runs in the background, never in activate().

import * as vscode from 'vscode';
import { BatonClient } from '../client/batonClient';
import { startDaemon, type Daemon } from '../server/daemon';
import { liveEndpoint } from '../node/endpointCall';
import { DataDirLockedError, isAlive, lockHolder } from '../node/lock';
import { layout } from '../node/paths';
import { DataLossError, type RecoveryEvent } from '../store/engine/recovery';
import { noticeRecovery, noticeRefusal, noticeStorage } from './recoveryNotice';
import { readSettings, type BatonSettings } from './settings';
import { Disposable } from '../core/disposable';

export type HostRole = 'starting' | 'leader' | 'follower' | 'stopped';

const WATCH_MS = 1000;
const FOLLOW_WAIT_MS = 10_000;

export class BatonHost extends Disposable {
  private daemon: Daemon | null = null;
  private clientValue: BatonClient | null = null;
  private roleValue: HostRole = 'starting';
  private subscription: { close(): void } | null = null;
  private watch: NodeJS.Timeout | null = null;
  private transition: Promise<void> = Promise.resolve();
  private stopped = false;
  /** The leader whose recovery events this window has shown (pid). */
  private noticedLeader: number | null = null;
  private readyResolve!: () => void;
  /** Resolves once this window is leader or follower for the first time. */
  readonly ready = new Promise<void>((resolve) => (this.readyResolve = resolve));

  private readonly roleEmitter = this._register(new vscode.EventEmitter<HostRole>());
  readonly onDidChangeRole = this.roleEmitter.event;
  private readonly sessionsEmitter = this._register(new vscode.EventEmitter<string[]>());
  /** Session keys changed anywhere (hooks, other windows), from the endpoint's event stream. */
  readonly onDidChangeSessions = this.sessionsEmitter.event;

  constructor(
    readonly log: vscode.LogOutputChannel,
    private settings: BatonSettings,
  ) {
    super();
  }

  get role(): HostRole {
    return this.roleValue;
  }

  get client(): BatonClient | null {
    return this.clientValue;
  }

  get dataDir(): string {
    return this.settings.dataDir;
  }

  get port(): number | null {
    return this.clientValue?.endpoint.port ?? null;
  }

  /** The client once the host is ready; a readable error otherwise. */
  async requireClient(): Promise<BatonClient> {
    await Promise.race([this.ready, new Promise((r) => setTimeout(r, 15_000))]);
    if (!this.clientValue) throw new Error('Baton is not connected to its store yet; see the Baton log.');
    return this.clientValue;
  }

  /** Starts once: a second call while starting or running changes nothing. */
  start(): void {
    if (this.startedOnce) return;
    this.startedOnce = true;
    this.enqueue(() => this.lead());
  }

  private startedOnce = false;

  /** Serialises role changes: a takeover never races a shutdown. */
  private enqueue(step: () => Promise<void>): void {
    this.transition = this.transition.then(step).catch((err: Error) => this.log.error(`Baton host: ${err.message}`));
  }

  private setRole(role: HostRole, client: BatonClient | null): void {
    this.subscription?.close();
    this.subscription = null;
    this.clientValue = client;
    this.roleValue = role;
    if (client) {
      this.subscription = client.subscribe((keys) => this.sessionsEmitter.fire(keys));
      this.readyResolve();
    }
    this.roleEmitter.fire(role);
    this.sessionsEmitter.fire([]);
  }

  private async lead(): Promise<void> {
    if (this.stopped || this.daemon) return;
    const holder = lockHolder(layout(this.dataDir).lock);
    if (holder && holder.pid !== process.pid) return this.follow();
    try {
      this.daemon = await startDaemon({
        dataDir: this.dataDir,
        port: this.settings.port ?? undefined,
        holder: `VS Code window (pid ${process.pid})`,
        config: {
          inheritContext: this.settings.inheritEnabled,
          tailChars: this.settings.tailChars,
          inheritMaxTokens: this.settings.inheritMaxTokens,
          // Merged over config.json's rules and the built-in ones by loadConfig: naming one type keeps the others.
          inheritProfiles: this.settings.inheritProfiles,
          startMemories: this.settings.startMemories,
          startMemoriesMaxTokens: this.settings.startMemoriesMaxTokens,
        },
        logger: this.log,
      });
    } catch (err) {
      if (err instanceof DataDirLockedError) return this.follow();
      // Serving what is left would hide the loss: stay without a store and say why.
      if (err instanceof DataLossError) {
        this.setRole('stopped', null);
        return noticeRefusal(this.log, this.dataDir, err.message);
      }
      throw err;
    }
    if (this.stopped) {
      await this.daemon.stop();
      this.daemon = null;
      return;
    }
    this.log.info(`Leader: store in ${this.dataDir}, endpoint ${this.daemon.server.url}`);
    noticeRecovery(this.log, this.dataDir, this.daemon.store.report.events);
    noticeStorage(this.log, this.daemon.store.storageAtOpen.message);
    this.setRole('leader', new BatonClient({ url: this.daemon.server.url, port: this.daemon.server.port, pid: process.pid, token: this.daemon.token }));
  }

  private async follow(): Promise<void> {
    const deadline = Date.now() + FOLLOW_WAIT_MS;
    let endpoint = liveEndpoint(this.dataDir);
    while (!endpoint && Date.now() < deadline && !this.stopped) {
      await new Promise((r) => setTimeout(r, 200));
      endpoint = liveEndpoint(this.dataDir);
      const holder = lockHolder(layout(this.dataDir).lock);
      if (!holder) return this.lead();
    }
    if (this.stopped) return;
    if (!endpoint) {
      const holder = lockHolder(layout(this.dataDir).lock);
      throw new Error(
        `the data directory ${this.dataDir} is held by ${holder?.holder ?? 'another process'} (pid ${holder?.pid ?? '?'}), which serves no endpoint`,
      );
    }
    this.log.info(`Follower: using the endpoint of pid ${endpoint.pid} at ${endpoint.url}`);
    const client = new BatonClient(endpoint);
    this.setRole('follower', client);
    // Damage the leader's open recovered from is news in this window too, once per leader.
    if (this.noticedLeader !== endpoint.pid) {
      this.noticedLeader = endpoint.pid;
      client.call('recovery').then(
        (r) => noticeRecovery(this.log, this.dataDir, r.events as RecoveryEvent[]),
        () => undefined,
      );
    }
    this.watchLeader(endpoint.pid);
  }

  /** Polls the leader's liveness; when it is gone, tries to take over (one window wins the lock). */
  private watchLeader(pid: number): void {
    if (this.watch) clearInterval(this.watch);
    this.watch = setInterval(() => {
      if (this.stopped || (isAlive(pid) && liveEndpoint(this.dataDir)?.pid === pid)) return;
      clearInterval(this.watch!);
      this.watch = null;
      this.log.warn(`The Baton leader (pid ${pid}) went away; taking over`);
      this.setRole('starting', null);
      this.enqueue(() => this.lead());
    }, WATCH_MS);
  }

  /** Applies changed settings: a new data directory or port means a restart of this window's role. */
  async applySettings(next: BatonSettings): Promise<void> {
    const restart =
      next.dataDir !== this.settings.dataDir ||
      next.port !== this.settings.port ||
      next.inheritEnabled !== this.settings.inheritEnabled ||
      next.tailChars !== this.settings.tailChars ||
      next.inheritMaxTokens !== this.settings.inheritMaxTokens ||
      next.startMemories !== this.settings.startMemories ||
      next.startMemoriesMaxTokens !== this.settings.startMemoriesMaxTokens ||
      JSON.stringify(next.inheritProfiles) !== JSON.stringify(this.settings.inheritProfiles);
    this.settings = next;
    if (!restart) return;
    this.enqueue(async () => {
      await this.release();
      this.stopped = false;
      this.startedOnce = true;
      await this.lead();
    });
    await this.transition;
  }

  private async release(): Promise<void> {
    this.stopped = true;
    if (this.watch) clearInterval(this.watch);
    this.watch = null;
    this.setRole('stopped', null);
    const daemon = this.daemon;
    this.daemon = null;
    // Stopping the daemon flushes the final snapshot and releases the lock for the next leader.
    await daemon?.stop();
  }

  async stop(): Promise<void> {
    this.enqueue(() => this.release());
    await this.transition;
  }

  override dispose(): void {
    void this.stop();
    super.dispose();
  }
}

export { readSettings };
