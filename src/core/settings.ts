// The `baton.*` settings: schema, defaults and validation with readable messages. Pure, so the
// rules (for example: archival needs sub-agents) are tested without VS Code.

import { INHERIT_PROFILES, type InheritProfile } from './inheritProfiles';
import { DEFAULT_START_MEMORY_BUDGET } from './startMemories';
import { ARCHIVAL_DEFAULTS, SUMMARY_STYLES, type ArchivalSettings, type SummaryStyle } from './archival';

export interface BatonSettingsInput {
  dataDir?: unknown;
  port?: unknown;
  'inherit.enabled'?: unknown;
  'inherit.tailChars'?: unknown;
  'inherit.maxTokens'?: unknown;
  'inherit.defaultProfile'?: unknown;
  'inherit.agentTypeProfiles'?: unknown;
  'inherit.profileMaxTokens'?: unknown;
  'memory.sessionStart.enabled'?: unknown;
  'memory.sessionStart.maxTokens'?: unknown;
  'search.limit'?: unknown;
  projectFilter?: unknown;
  'subagents.enabled'?: unknown;
  'subagents.externalCommand'?: unknown;
  'subagents.defaultTools'?: unknown;
  'archival.enabled'?: unknown;
  'archival.onMaxTurns'?: unknown;
  'archival.tokenThreshold'?: unknown;
  'archival.toolCallThreshold'?: unknown;
  'archival.depthCap'?: unknown;
  'archival.summary.style'?: unknown;
  'archival.summary.model'?: unknown;
  'archival.holderTools'?: unknown;
}

export interface ValidatedSettings {
  dataDirSetting: string;
  port: number | null;
  inheritEnabled: boolean;
  tailChars: number;
  inheritMaxTokens: number;
  /** Which profile each kind of sub-agent inherits with, and the budgets of the smaller profiles (docs/inheritance.md). */
  inheritProfiles: InheritProfileSettings;
  /** Session start tells a session the memories of earlier sessions, within this budget (docs/memory.md, "At session start"). */
  startMemories: boolean;
  startMemoriesMaxTokens: number;
  searchLimit: number;
  projectFilter: 'workspace' | 'all';
  subagentsEnabled: boolean;
  /** Command and arguments of the `external` runner (a CLI that reads the prompt on stdin); empty: none. */
  externalCommand: string[];
  /** The tools a spawned language-model sub-agent gets when its spawn asks for none (docs/runs.md); empty: none. */
  subagentDefaultTools: string[];
  archival: ArchivalSettings;
}

export interface InheritProfileSettings {
  defaultProfile: InheritProfile;
  /** Agent type → profile, over the built-in ones (an Explore sub-agent gets `digest`). */
  byAgentType: Record<string, InheritProfile>;
  /** Budgets of `digest`, `routing` and `fork`; `full` uses baton.inherit.maxTokens and `none` inherits nothing. */
  maxTokens: Partial<Record<InheritProfile, number>>;
}

/** The profiles that have a budget of their own. */
const BUDGETED_PROFILES = ['digest', 'routing', 'fork'] as const;

export const SETTING_DEFAULTS: ValidatedSettings = {
  dataDirSetting: '',
  port: null,
  inheritEnabled: true,
  tailChars: 3000,
  inheritMaxTokens: 2000,
  inheritProfiles: { defaultProfile: 'full', byAgentType: {}, maxTokens: {} },
  startMemories: true,
  startMemoriesMaxTokens: DEFAULT_START_MEMORY_BUDGET.maxTokens,
  searchLimit: 20,
  projectFilter: 'workspace',
  subagentsEnabled: false,
  externalCommand: [],
  subagentDefaultTools: [],
  archival: ARCHIVAL_DEFAULTS,
};

function int(value: unknown, name: string, min: number, max: number, fallback: number, errors: string[]): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    errors.push(`baton.${name} must be a whole number from ${min} to ${max} (got ${JSON.stringify(value)}); using ${fallback}.`);
    return fallback;
  }
  return value;
}

function bool(value: unknown, name: string, fallback: boolean, errors: string[]): boolean {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'boolean') {
    errors.push(`baton.${name} must be true or false (got ${JSON.stringify(value)}); using ${fallback}.`);
    return fallback;
  }
  return value;
}

function stringList(value: unknown, name: string, errors: string[]): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string' && v.length > 0)) {
    errors.push(`baton.${name} must be a list of non-empty strings (a command and its arguments); no external runner is set.`);
    return [];
  }
  return value;
}

const profileList = INHERIT_PROFILES.map((p) => `"${p}"`).join(', ');

function isProfile(value: unknown): value is InheritProfile {
  return typeof value === 'string' && (INHERIT_PROFILES as readonly string[]).includes(value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The three `baton.inherit.*` profile settings; a bad entry is dropped on its own, the others stay. */
function inheritProfiles(raw: BatonSettingsInput, errors: string[]): InheritProfileSettings {
  const d = SETTING_DEFAULTS.inheritProfiles;
  let defaultProfile = d.defaultProfile;
  const rawDefault = raw['inherit.defaultProfile'];
  if (rawDefault !== undefined && rawDefault !== null) {
    if (isProfile(rawDefault)) defaultProfile = rawDefault;
    else errors.push(`baton.inherit.defaultProfile must be one of ${profileList} (got ${JSON.stringify(rawDefault)}); using "${d.defaultProfile}".`);
  }
  const byAgentType: Record<string, InheritProfile> = {};
  const rawTypes = raw['inherit.agentTypeProfiles'];
  if (rawTypes !== undefined && rawTypes !== null) {
    if (!isPlainObject(rawTypes))
      errors.push(
        `baton.inherit.agentTypeProfiles must be an object of agent type → profile (got ${JSON.stringify(rawTypes)}); using the built-in types only.`,
      );
    else
      for (const [type, profile] of Object.entries(rawTypes)) {
        if (type.trim().length === 0 || type.length > 128)
          errors.push(`baton.inherit.agentTypeProfiles: an agent type must have 1 to 128 characters (got ${JSON.stringify(type)}); that entry is ignored.`);
        else if (!isProfile(profile))
          errors.push(`baton.inherit.agentTypeProfiles: "${type}" must map to one of ${profileList} (got ${JSON.stringify(profile)}); that entry is ignored.`);
        else byAgentType[type.trim()] = profile;
      }
  }
  const maxTokens: Partial<Record<InheritProfile, number>> = {};
  const rawTokens = raw['inherit.profileMaxTokens'];
  if (rawTokens !== undefined && rawTokens !== null) {
    if (!isPlainObject(rawTokens))
      errors.push(`baton.inherit.profileMaxTokens must be an object of profile → tokens (got ${JSON.stringify(rawTokens)}); using the default budgets.`);
    else
      for (const [profile, tokens] of Object.entries(rawTokens)) {
        if (!(BUDGETED_PROFILES as readonly string[]).includes(profile))
          errors.push(
            `baton.inherit.profileMaxTokens: "${profile}" has no budget of its own (only "digest", "routing" and "fork" have; "full" uses baton.inherit.maxTokens, "none" inherits nothing); that entry is ignored.`,
          );
        else if (typeof tokens !== 'number' || !Number.isInteger(tokens) || tokens < 100 || tokens > 200_000)
          errors.push(
            `baton.inherit.profileMaxTokens: "${profile}" must be a whole number from 100 to 200000 (got ${JSON.stringify(tokens)}); that entry is ignored.`,
          );
        else maxTokens[profile as InheritProfile] = tokens;
      }
  }
  return { defaultProfile, byAgentType, maxTokens };
}

function summaryStyle(value: unknown, errors: string[]): SummaryStyle {
  if (value === undefined || value === null) return ARCHIVAL_DEFAULTS.summary.style;
  if (SUMMARY_STYLES.includes(value as SummaryStyle)) return value as SummaryStyle;
  errors.push(`baton.archival.summary.style must be "structured" or "paragraph" (got ${JSON.stringify(value)}); using "structured".`);
  return ARCHIVAL_DEFAULTS.summary.style;
}

function optionalString(value: unknown, name: string, errors: string[]): string | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value === 'string') return value.trim() || null;
  errors.push(`baton.${name} must be a text (got ${JSON.stringify(value)}); using none.`);
  return null;
}

/** A list of tool names (a grant); anything else is reported and grants nothing, saying to whom. */
function toolList(value: unknown, name: string, nobody: string, errors: string[]): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string' && v.length > 0)) {
    errors.push(`baton.${name} must be a list of tool names (got ${JSON.stringify(value)}); ${nobody} get no tools.`);
    return [];
  }
  return [...new Set(value as string[])];
}

/** Validates raw settings; every problem becomes a readable message and the default is used instead. */
export function validateSettings(raw: BatonSettingsInput): { settings: ValidatedSettings; errors: string[] } {
  const errors: string[] = [];
  const d = SETTING_DEFAULTS;
  let dataDirSetting = d.dataDirSetting;
  if (raw.dataDir !== undefined && raw.dataDir !== null && raw.dataDir !== '') {
    if (typeof raw.dataDir !== 'string' || (!raw.dataDir.startsWith('/') && !/^[A-Za-z]:[\\/]/.test(raw.dataDir) && !raw.dataDir.startsWith('~'))) {
      errors.push(`baton.dataDir must be an absolute path (got ${JSON.stringify(raw.dataDir)}); using the default location.`);
    } else dataDirSetting = raw.dataDir;
  }
  const port = raw.port === undefined || raw.port === null ? null : int(raw.port, 'port', 0, 65535, -1, errors);
  let projectFilter = d.projectFilter;
  if (raw.projectFilter !== undefined && raw.projectFilter !== null) {
    if (raw.projectFilter === 'workspace' || raw.projectFilter === 'all') projectFilter = raw.projectFilter;
    else errors.push(`baton.projectFilter must be "workspace" or "all" (got ${JSON.stringify(raw.projectFilter)}); using "workspace".`);
  }
  const settings: ValidatedSettings = {
    dataDirSetting,
    port: port === -1 ? null : port,
    inheritEnabled: bool(raw['inherit.enabled'], 'inherit.enabled', d.inheritEnabled, errors),
    tailChars: int(raw['inherit.tailChars'], 'inherit.tailChars', 0, 100_000, d.tailChars, errors),
    inheritMaxTokens: int(raw['inherit.maxTokens'], 'inherit.maxTokens', 100, 200_000, d.inheritMaxTokens, errors),
    inheritProfiles: inheritProfiles(raw, errors),
    startMemories: bool(raw['memory.sessionStart.enabled'], 'memory.sessionStart.enabled', d.startMemories, errors),
    startMemoriesMaxTokens: int(raw['memory.sessionStart.maxTokens'], 'memory.sessionStart.maxTokens', 50, 20_000, d.startMemoriesMaxTokens, errors),
    searchLimit: int(raw['search.limit'], 'search.limit', 1, 20, d.searchLimit, errors),
    projectFilter,
    subagentsEnabled: bool(raw['subagents.enabled'], 'subagents.enabled', d.subagentsEnabled, errors),
    externalCommand: stringList(raw['subagents.externalCommand'], 'subagents.externalCommand', errors),
    subagentDefaultTools: toolList(raw['subagents.defaultTools'], 'subagents.defaultTools', 'sub-agents spawned without a grant', errors),
    archival: {
      enabled: bool(raw['archival.enabled'], 'archival.enabled', d.archival.enabled, errors),
      onMaxTurns: bool(raw['archival.onMaxTurns'], 'archival.onMaxTurns', d.archival.onMaxTurns, errors),
      tokenThreshold: int(raw['archival.tokenThreshold'], 'archival.tokenThreshold', 100, 10_000_000, d.archival.tokenThreshold, errors),
      toolCallThreshold: int(raw['archival.toolCallThreshold'], 'archival.toolCallThreshold', 1, 100_000, d.archival.toolCallThreshold, errors),
      depthCap: int(raw['archival.depthCap'], 'archival.depthCap', 0, 10, d.archival.depthCap, errors),
      summary: {
        style: summaryStyle(raw['archival.summary.style'], errors),
        model: optionalString(raw['archival.summary.model'], 'archival.summary.model', errors),
      },
      holderTools: toolList(raw['archival.holderTools'], 'archival.holderTools', 'holders', errors),
    },
  };
  // A configuration error, shown at load and not silently fixed: archival hands turns to sub-agents.
  if (settings.archival.enabled && !settings.subagentsEnabled) {
    errors.push(
      'baton.archival.enabled needs baton.subagents.enabled: archival moves finished turns into sub-agents. Archival stays off until sub-agents are enabled.',
    );
    settings.archival = { ...settings.archival, enabled: false };
  }
  return { settings, errors };
}
