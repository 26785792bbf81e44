// Server settings: defaults, overridable by DIR/config.json and by the host (CLI flags, VS Code settings).

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { z } from 'zod';
import { BatonError } from '../core/errors';
import { DEFAULT_PROFILE_RULES, INHERIT_PROFILES, mergeProfileRules, type InheritProfile, type ProfileRules } from '../core/inheritProfiles';
import { harnessTranscriptRoots } from '../harnesses/registry';
import { DEFAULT_START_MEMORY_BUDGET } from '../core/startMemories';
import { DEFAULT_TURN_POOL } from '../core/turnSelection';
import { DEFAULT_PRICES, mergePrices, modelPriceSchema, type PriceTable } from '../core/prices';

export const DEFAULT_PORT = 7433;

export interface ServerConfig {
  inheritContext: boolean;
  tailChars: number;
  /** Total budget of the inherited block, in estimated tokens (docs/inheritance.md). */
  inheritMaxTokens: number;
  /** A child with a task chooses among the parent's newest turns, at most this many (docs/inheritance.md). */
  inheritPoolTurns: number;
  /** ... and at most this many characters of them. */
  inheritPoolChars: number;
  /** Request body cap in bytes (inline transcripts are the large case). */
  maxBodyBytes: number;
  /** transcriptPath files larger than this are refused. */
  maxTranscriptBytes: number;
  /** transcriptPath must resolve under one of these (after realpath). */
  transcriptRoots: string[];
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  /** Session start tells the session the memories of earlier sessions (docs/memory.md, "At session start"). */
  startMemories: boolean;
  /** Budget of that section, in estimated tokens. */
  startMemoriesMaxTokens: number;
  /** At most this many memories in it. */
  startMemoriesLimit: number;
  /** user-prompt-submit injects entity context only for attributes at or above this importance. */
  promptMinScore: number;
  /** A runtime-path claim lapses after this long without activity. */
  claimTtlMs: number;
  /** How long a MEMORY.md synthesis holds the agent's head before another writer may take it. */
  synthesisLeaseMs: number;
  /** Which profile a child of each agent type inherits with, and each profile's budget (docs/inheritance.md). */
  inheritProfiles: ProfileRules;
  /** Per Baton agent: the block's budget (and default profile) for that agent's sub-agents. */
  inheritAgents: Record<string, { maxTokens?: number; defaultProfile?: InheritProfile }>;
  /** External CLIs that POST /api/runs/spawn and `baton run` may start, by name (docs/runs.md). */
  runners: Record<string, RunnerConfig>;
  /** The runner a spawn uses when it names none (else the only one configured). */
  defaultRunner?: string;
  /** At most this many children run at once; further runs wait, pending. */
  maxConcurrentRuns: number;
  /** At most this many runs of one agent pending or running at once; a spawn past it gets 429. */
  maxRunsPerAgent: number;
  /** A child's stdout beyond this is cut (the result says so). */
  runOutputMaxBytes: number;
  /** Budget for the contents of a run's files in the child's prompt. */
  runFilesMaxBytes: number;
  /** A child running longer is ended and its run fails (a runner may set its own). */
  runTimeoutMs: number;
  /** USD per million tokens by model: the shipped table (core/prices.ts) with DIR/config.json's `prices` over it. */
  prices: PriceTable;
}

export interface RunnerConfig {
  command: string;
  args?: string[];
  /** The child's working directory and the workspace of its files when the spawn names none. */
  cwd?: string;
  timeoutMs?: number;
}

const profileName = z.enum(INHERIT_PROFILES);
const tokens = z.number().int().min(0).max(200_000);

const runnerSchema = z
  .object({
    command: z.string().min(1).max(4096),
    args: z.array(z.string().max(100_000)).max(1000).optional(),
    cwd: z.string().min(1).max(4096).optional(),
    timeoutMs: z.number().int().min(100).max(86_400_000).optional(),
  })
  .strict();

const fileSchema = z
  .object({
    inheritContext: z.boolean(),
    tailChars: z.number().int().min(0).max(100_000),
    inheritMaxTokens: z.number().int().min(100).max(200_000),
    inheritPoolTurns: z.number().int().min(1).max(5_000),
    inheritPoolChars: z.number().int().min(1_000).max(2_000_000),
    maxBodyBytes: z
      .number()
      .int()
      .min(1024)
      .max(256 * 1024 * 1024),
    maxTranscriptBytes: z
      .number()
      .int()
      .min(1024)
      .max(1024 * 1024 * 1024),
    transcriptRoots: z.array(z.string().min(1)),
    headersTimeoutMs: z.number().int().min(100).max(600_000),
    requestTimeoutMs: z.number().int().min(100).max(600_000),
    promptMinScore: z.number().min(0).max(1),
    startMemories: z.boolean(),
    startMemoriesMaxTokens: z.number().int().min(50).max(20_000),
    startMemoriesLimit: z.number().int().min(1).max(50),
    claimTtlMs: z
      .number()
      .int()
      .min(1000)
      .max(7 * 86_400_000),
    synthesisLeaseMs: z.number().int().min(100).max(86_400_000),
    inheritProfiles: z
      .object({
        defaultProfile: profileName,
        byAgentType: z.record(z.string().min(1).max(128), profileName),
        maxTokens: z.object({ full: tokens, digest: tokens, routing: tokens, none: tokens }).partial().strict(),
      })
      .partial()
      .strict(),
    inheritAgents: z.record(
      z.string().min(1).max(128),
      z
        .object({ maxTokens: tokens.min(100), defaultProfile: profileName })
        .partial()
        .strict(),
    ),
    runners: z.record(z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'a runner name is 1-64 letters, digits, dots, dashes or underscores'), runnerSchema),
    defaultRunner: z.string().min(1).max(64),
    maxConcurrentRuns: z.number().int().min(1).max(256),
    maxRunsPerAgent: z.number().int().min(1).max(10_000),
    // Both end up in records whose text fields hold at most 10 million characters.
    runOutputMaxBytes: z
      .number()
      .int()
      .min(1024)
      .max(8 * 1024 * 1024),
    runFilesMaxBytes: z
      .number()
      .int()
      .min(0)
      .max(8 * 1024 * 1024),
    runTimeoutMs: z.number().int().min(100).max(86_400_000),
    prices: z.record(z.string().min(1).max(200), modelPriceSchema).refine((table) => Object.keys(table).length <= 1000, 'at most 1000 models'),
  })
  .partial()
  .strict();

/** The harnesses' own transcript folders (from the registry, docs/harnesses.md), plus Baton's staging folder. */
export function defaultTranscriptRoots(dataDir: string, env: NodeJS.ProcessEnv = process.env): string[] {
  return [...harnessTranscriptRoots(env, os.homedir()), path.join(dataDir, 'staging')];
}

export function defaultConfig(dataDir: string): ServerConfig {
  return {
    inheritContext: true,
    tailChars: 3000,
    inheritMaxTokens: 2000,
    inheritPoolTurns: DEFAULT_TURN_POOL.maxTurns,
    inheritPoolChars: DEFAULT_TURN_POOL.maxChars,
    maxBodyBytes: 8 * 1024 * 1024,
    maxTranscriptBytes: 64 * 1024 * 1024,
    transcriptRoots: defaultTranscriptRoots(dataDir),
    headersTimeoutMs: 10_000,
    requestTimeoutMs: 30_000,
    promptMinScore: 0.7,
    startMemories: true,
    startMemoriesMaxTokens: DEFAULT_START_MEMORY_BUDGET.maxTokens,
    startMemoriesLimit: DEFAULT_START_MEMORY_BUDGET.maxMemories,
    claimTtlMs: 4 * 60 * 60 * 1000,
    synthesisLeaseMs: 10 * 60 * 1000,
    inheritProfiles: DEFAULT_PROFILE_RULES,
    inheritAgents: {},
    runners: {},
    maxConcurrentRuns: 4,
    maxRunsPerAgent: 32,
    runOutputMaxBytes: 4 * 1024 * 1024,
    runFilesMaxBytes: 64 * 1024,
    runTimeoutMs: 10 * 60_000,
    prices: DEFAULT_PRICES,
  };
}

/** Defaults, then DIR/config.json (validated: a typo is an error, not silently ignored), then overrides. */
export function loadConfig(dataDir: string, overrides: Partial<ServerConfig> = {}): ServerConfig {
  const base = defaultConfig(dataDir);
  const file = path.join(dataDir, 'config.json');
  let fromFile: Partial<Omit<ServerConfig, 'inheritProfiles'>> & { inheritProfiles?: Partial<ProfileRules> } = {};
  if (fs.existsSync(file)) {
    let raw: unknown;
    try {
      raw = JSON.parse(fs.readFileSync(file, 'utf8'));
    } catch (err) {
      throw new BatonError('invalid_request', `${file} is not valid JSON: ${(err as Error).message}`);
    }
    const parsed = fileSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new BatonError('invalid_request', `${file}: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
    }
    fromFile = parsed.data;
    // A runner's relative cwd is relative to the data directory, like every path of this file.
    if (fromFile.runners) for (const runner of Object.values(fromFile.runners)) if (runner.cwd) runner.cwd = path.resolve(dataDir, runner.cwd);
    if (fromFile.transcriptRoots) fromFile.transcriptRoots = [...base.transcriptRoots, ...fromFile.transcriptRoots.map((r) => path.resolve(dataDir, r))];
  }
  // Profile rules merge over the defaults: naming one agent type does not forget the others.
  const inheritProfiles = mergeProfileRules(mergeProfileRules(base.inheritProfiles, fromFile.inheritProfiles), overrides.inheritProfiles);
  // Prices merge over the shipped table: naming one model does not forget the others.
  const fromFilePrices = mergePrices(fromFile.prices);
  const prices = overrides.prices ? { ...fromFilePrices, ...overrides.prices } : fromFilePrices;
  const config = { ...base, ...fromFile, ...overrides, inheritProfiles, prices };
  if (config.defaultRunner !== undefined && !Object.hasOwn(config.runners, config.defaultRunner))
    throw new BatonError('invalid_request', `${file}: defaultRunner: "${config.defaultRunner}" is not one of the runners`);
  return config;
}
