// The `baton.*` settings: schema, defaults and validation with readable messages. Pure, so the
// rules (for example: archival needs sub-agents) are tested without VS Code.

export interface BatonSettingsInput {
  dataDir?: unknown;
  port?: unknown;
  'inherit.enabled'?: unknown;
  'inherit.tailChars'?: unknown;
  'inherit.maxTokens'?: unknown;
  'search.limit'?: unknown;
  projectFilter?: unknown;
  'subagents.enabled'?: unknown;
  'subagents.externalCommand'?: unknown;
  'archival.enabled'?: unknown;
  'archival.maxTurns'?: unknown;
  'archival.tokenThreshold'?: unknown;
  'archival.toolCallThreshold'?: unknown;
  'archival.depthCap'?: unknown;
}

export interface ValidatedSettings {
  dataDirSetting: string;
  port: number | null;
  inheritEnabled: boolean;
  tailChars: number;
  inheritMaxTokens: number;
  searchLimit: number;
  projectFilter: 'workspace' | 'all';
  subagentsEnabled: boolean;
  /** Command and arguments of the `external` runner (a CLI that reads the prompt on stdin); empty: none. */
  externalCommand: string[];
  archival: { enabled: boolean; maxTurns: number; tokenThreshold: number; toolCallThreshold: number; depthCap: number };
}

export const SETTING_DEFAULTS: ValidatedSettings = {
  dataDirSetting: '',
  port: null,
  inheritEnabled: true,
  tailChars: 3000,
  inheritMaxTokens: 2000,
  searchLimit: 20,
  projectFilter: 'workspace',
  subagentsEnabled: false,
  externalCommand: [],
  archival: { enabled: false, maxTurns: 40, tokenThreshold: 8_000, toolCallThreshold: 5, depthCap: 3 },
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
    searchLimit: int(raw['search.limit'], 'search.limit', 1, 20, d.searchLimit, errors),
    projectFilter,
    subagentsEnabled: bool(raw['subagents.enabled'], 'subagents.enabled', d.subagentsEnabled, errors),
    externalCommand: stringList(raw['subagents.externalCommand'], 'subagents.externalCommand', errors),
    archival: {
      enabled: bool(raw['archival.enabled'], 'archival.enabled', d.archival.enabled, errors),
      maxTurns: int(raw['archival.maxTurns'], 'archival.maxTurns', 1, 10_000, d.archival.maxTurns, errors),
      tokenThreshold: int(raw['archival.tokenThreshold'], 'archival.tokenThreshold', 100, 10_000_000, d.archival.tokenThreshold, errors),
      toolCallThreshold: int(raw['archival.toolCallThreshold'], 'archival.toolCallThreshold', 1, 100_000, d.archival.toolCallThreshold, errors),
      depthCap: int(raw['archival.depthCap'], 'archival.depthCap', 0, 10, d.archival.depthCap, errors),
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
