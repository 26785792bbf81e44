// Profiles per sub-agent type: how much of the parent a child inherits depends on what kind of
// child it is. An Explore or review sub-agent needs the rules and the gist, not the parent's tail
// crowding its own window; a planner wants everything (docs/inheritance.md, "Profiles").

export const INHERIT_PROFILES = ['full', 'digest', 'routing', 'fork', 'none'] as const;
export type InheritProfile = (typeof INHERIT_PROFILES)[number];

/** What each profile puts in the block, besides the header. Constraints are in every profile but `none`, which only a user's configuration chooses. */
export const PROFILE_SECTIONS: Record<InheritProfile, { digest: boolean; entities: boolean; tail: boolean }> = {
  full: { digest: true, entities: true, tail: true },
  digest: { digest: true, entities: false, tail: false },
  routing: { digest: false, entities: false, tail: false },
  // A fork holds the parent's conversation: its block is built by forkBlock.ts, not from these sections.
  fork: { digest: false, entities: false, tail: false },
  none: { digest: false, entities: false, tail: false },
};

export interface ProfileRules {
  /** The profile of a child whose type names no rule (or that sends no type). */
  defaultProfile: InheritProfile;
  /** Agent type (as the harness sends it, compared without case) → profile. */
  byAgentType: Record<string, InheritProfile>;
  /** Budget of each profile in estimated tokens; `full` falls back to the block's maxTokens. */
  maxTokens: Partial<Record<InheritProfile, number>>;
}

/**
 * Claude Code's built-in sub-agent types: Explore searches and reads, so the rules and the gist
 * are enough; the setup helpers need none of the parent's work, but its rules still hold for
 * them. Everything else gets the whole block. No default drops the constraints: `none` is only
 * what a user sets for an agent type (docs/inheritance.md, "Profiles per sub-agent type").
 */
export const DEFAULT_AGENT_TYPE_PROFILES: Record<string, InheritProfile> = {
  Explore: 'digest',
  'statusline-setup': 'routing',
  'output-style-setup': 'routing',
  // Claude Code's forks carry the parent's whole conversation (docs/inheritance.md, "Forks").
  fork: 'fork',
};

export const DEFAULT_PROFILE_TOKENS: Partial<Record<InheritProfile, number>> = { digest: 1200, routing: 400, fork: 600 };

export const DEFAULT_PROFILE_RULES: ProfileRules = {
  defaultProfile: 'full',
  byAgentType: DEFAULT_AGENT_TYPE_PROFILES,
  maxTokens: DEFAULT_PROFILE_TOKENS,
};

export interface ChosenProfile {
  profile: InheritProfile;
  /** The budget of the block for this child. */
  maxTokens: number;
  /** The rule that chose it: `agentType:Explore`, `default`, or `requested`. */
  reason: string;
}

/**
 * The profile for a child of `agentType`. `fullMaxTokens` is the block's general budget (the
 * server's or the agent's): the `full` profile's, and any profile's without its own.
 */
export function chooseProfile(rules: ProfileRules, agentType: string | null | undefined, fullMaxTokens: number, requested?: InheritProfile): ChosenProfile {
  let profile = rules.defaultProfile;
  let reason = 'default';
  const type = agentType?.trim();
  if (requested) {
    profile = requested;
    reason = 'requested';
  } else if (type) {
    const match = Object.keys(rules.byAgentType).find((k) => k.toLowerCase() === type.toLowerCase());
    if (match) {
      profile = rules.byAgentType[match];
      reason = `agentType:${match}`;
    }
  }
  const own = profile === 'full' ? fullMaxTokens : (rules.maxTokens[profile] ?? fullMaxTokens);
  return { profile, maxTokens: profile === 'none' ? 0 : own, reason };
}

/** Merges configured rules over the defaults (an agent type set to a profile replaces the default for it). */
export function mergeProfileRules(base: ProfileRules, over: Partial<ProfileRules> | undefined): ProfileRules {
  if (!over) return base;
  return {
    defaultProfile: over.defaultProfile ?? base.defaultProfile,
    byAgentType: { ...base.byAgentType, ...over.byAgentType },
    maxTokens: { ...base.maxTokens, ...over.maxTokens },
  };
}
