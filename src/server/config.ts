// Server settings: defaults, overridable by DIR/config.json and by the host (CLI flags, VS Code settings).

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { z } from 'zod';
import { BatonError } from '../core/errors';
import { DEFAULT_PROFILE_RULES, INHERIT_PROFILES, mergeProfileRules, type InheritProfile, type ProfileRules } from '../core/inheritProfiles';
import { harnessTranscriptRoots } from '../harnesses/registry';

export const DEFAULT_PORT = 7433;

export interface ServerConfig {
  inheritContext: boolean;
  tailChars: number;
  /** Total budget of the inherited block, in estimated tokens (docs/inheritance.md). */
  inheritMaxTokens: number;
  /** Request body cap in bytes (inline transcripts are the large case). */
  maxBodyBytes: number;
  /** transcriptPath files larger than this are refused. */
  maxTranscriptBytes: number;
  /** transcriptPath must resolve under one of these (after realpath). */
  transcriptRoots: string[];
  headersTimeoutMs: number;
  requestTimeoutMs: number;
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
}

const profileName = z.enum(INHERIT_PROFILES);
const tokens = z.number().int().min(0).max(200_000);

const fileSchema = z
  .object({
    inheritContext: z.boolean(),
    tailChars: z.number().int().min(0).max(100_000),
    inheritMaxTokens: z.number().int().min(100).max(200_000),
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
    maxBodyBytes: 8 * 1024 * 1024,
    maxTranscriptBytes: 64 * 1024 * 1024,
    transcriptRoots: defaultTranscriptRoots(dataDir),
    headersTimeoutMs: 10_000,
    requestTimeoutMs: 30_000,
    promptMinScore: 0.7,
    claimTtlMs: 4 * 60 * 60 * 1000,
    synthesisLeaseMs: 10 * 60 * 1000,
    inheritProfiles: DEFAULT_PROFILE_RULES,
    inheritAgents: {},
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
    if (fromFile.transcriptRoots) fromFile.transcriptRoots = [...base.transcriptRoots, ...fromFile.transcriptRoots.map((r) => path.resolve(dataDir, r))];
  }
  // Profile rules merge over the defaults: naming one agent type does not forget the others.
  const inheritProfiles = mergeProfileRules(mergeProfileRules(base.inheritProfiles, fromFile.inheritProfiles), overrides.inheritProfiles);
  return { ...base, ...fromFile, ...overrides, inheritProfiles };
}
