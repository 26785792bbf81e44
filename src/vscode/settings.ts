// Reads the `baton.*` settings from VS Code and validates them (rules in core/settings.ts).

import * as vscode from 'vscode';
import { validateSettings, type ValidatedSettings } from '../core/settings';
import { resolveDataDir } from '../node/paths';
import * as os from 'node:os';

export interface BatonSettings extends ValidatedSettings {
  /** The data directory in effect: the setting, else $BATON_DATA_DIR, $XDG_DATA_HOME/baton, ~/.local/share/baton. */
  dataDir: string;
}

const KEYS = [
  'dataDir',
  'port',
  'inherit.enabled',
  'inherit.tailChars',
  'inherit.maxTokens',
  'inherit.defaultProfile',
  'inherit.agentTypeProfiles',
  'inherit.profileMaxTokens',
  'memory.sessionStart.enabled',
  'memory.sessionStart.maxTokens',
  'search.limit',
  'projectFilter',
  'subagents.enabled',
  'subagents.externalCommand',
  'subagents.defaultTools',
  'archival.enabled',
  'archival.onMaxTurns',
  'archival.tokenThreshold',
  'archival.toolCallThreshold',
  'archival.depthCap',
  'archival.summary.style',
  'archival.summary.model',
  'archival.holderTools',
] as const;

export function readSettings(): { settings: BatonSettings; errors: string[] } {
  const config = vscode.workspace.getConfiguration('baton');
  const raw = Object.fromEntries(KEYS.map((k) => [k, config.get(k)]));
  const { settings, errors } = validateSettings(raw);
  const flag = settings.dataDirSetting.startsWith('~') ? os.homedir() + settings.dataDirSetting.slice(1) : settings.dataDirSetting;
  return { settings: { ...settings, dataDir: resolveDataDir({ flag: flag || undefined }) }, errors };
}
