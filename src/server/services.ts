// The service graph, built in one place: the HTTP server (app.ts) and the in-process API
// (localApi.ts) both compose their sessions, memory, rule extraction, runs and background work
// here, and get the one dispatcher every request goes through. What differs between them is an
// option (a read-only view has no runs to record), never a second copy of the wiring
// (docs/architecture.md). Tests get the graph the same way, through startServer or openLocalApi.

import { silentLogger, type Logger } from '../core/logger';
import type { RecoveryEvent } from '../store/engine/recovery';
import type { StorageStatus } from '../store/engine/sizeLimit';
import type { StoreAccess } from '../store/store';
import type { ServerConfig } from './config';
import { createDispatch, type Dispatch } from './dispatch';
import { InheritService } from './inheritService';
import { MemoryService } from './memoryService';
import { RuleService } from './ruleService';
import { RunService } from './runService';
import { SessionService } from './sessionService';
import { TokenService } from './tokenService';
import { SessionArtifacts } from './artifacts';
import { backgroundWork, type BackgroundWork } from './jobs';
import { finishEndedSession, SESSION_END_JOB } from './sessionEndWork';

export interface ComposeOptions {
  store: StoreAccess;
  config: ServerConfig;
  dataDir: string;
  /** The recovery events of the store's open (file names and numbers only, docs/storage.md). */
  recovery(): RecoveryEvent[];
  logger?: Logger;
  /** A lock-free read-only view: runs are neither recorded nor reconciled (docs/runs.md). */
  readOnly?: boolean;
  /** The store's size against its limit (docs/storage.md, "How big a store can grow"); null when not known. */
  storage?(): Promise<StorageStatus | null>;
}

export interface ComposedServices {
  sessions: SessionService;
  memory: MemoryService;
  rules: RuleService;
  tokens: TokenService;
  inherit: InheritService;
  runs: RunService;
  work: BackgroundWork;
  /** Every call, over HTTP or in-process, goes through it (dispatch.ts). */
  dispatch: Dispatch;
}

export function composeServices(options: ComposeOptions): ComposedServices {
  const { store, config, dataDir } = options;
  const logger = options.logger ?? silentLogger;
  const sessions = new SessionService(store, config);
  const inherit = new InheritService(store);
  const rules = new RuleService(store);
  const tokens = new TokenService(store);
  const memory = new MemoryService(store, dataDir, inherit, { logger, leaseMs: config.synthesisLeaseMs });
  const runs = new RunService(config, options.readOnly ? undefined : store, logger);
  // Jobs queued where nothing runs them (the in-process API) are done by the next server that opens the data directory.
  const work = backgroundWork(store, memory, (jobs) => new SessionArtifacts(store, dataDir, (job) => jobs.enqueue(job)), logger);
  // A hook's session end queues the work after it (sessionEndWork.ts): done here, in the background.
  work.jobs.handle(
    SESSION_END_JOB,
    async (job) => (await finishEndedSession({ inherit, memory, artifacts: work.artifacts, logger }, job.agentId, job.sessionKey!)) ?? {},
  );
  const dispatch = createDispatch({
    store,
    config,
    dataDir,
    sessions,
    memory,
    rules,
    tokens,
    inherit,
    runs,
    work,
    logger,
    recovery: options.recovery,
    storage: options.storage,
  });
  return { sessions, memory, rules, tokens, inherit, runs, work, dispatch };
}
