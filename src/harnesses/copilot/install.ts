// `baton install vscode`: VS Code agent mode runs hooks from the files in the folders its user
// setting `chat.hookFilesLocations` names (docs/harnesses.md, "VS Code agent mode"). Baton writes
// a hook file of its own, `~/.baton/vscode-hooks/baton.json`, and adds that folder to the setting
// (as `~/…`: the setting takes only relative and `~` paths). Inside VS Code the setting is changed
// through VS Code's configuration API (the install returns the change); headless, in the user
// settings.json (JSONC: comments and layout survive). Idempotent; uninstall removes exactly the
// hook file and our entry of the setting.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { HookCommandOptions, HostSettingChange } from '../harness';
import { hookCommand } from '../hookCommand';
import { COPILOT_EVENTS, HARNESS } from './hooks';
import { editSettingsFile } from '../jsoncSettings';

/** The setting that lists hook file folders. */
export const HOOK_LOCATIONS_SETTING = 'chat.hookFilesLocations';

/** Baton's hook folder, as the setting names it. */
export const HOOK_FOLDER_SETTING_VALUE = '~/.baton/vscode-hooks';

const HOOK_FILE_NAME = 'baton.json';

export function hookFolder(home = os.homedir()): string {
  return path.join(home, '.baton', 'vscode-hooks');
}

export function hookFilePath(home = os.homedir()): string {
  return path.join(hookFolder(home), HOOK_FILE_NAME);
}

/** VS Code's user settings.json on this platform (desktop VS Code's default profile). */
export function defaultVscodeSettingsFile(env: NodeJS.ProcessEnv = process.env, home = os.homedir(), platform = process.platform): string {
  if (platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'Code', 'User', 'settings.json');
  if (platform === 'win32') return path.join(env.APPDATA || path.join(home, 'AppData', 'Roaming'), 'Code', 'User', 'settings.json');
  return path.join(env.XDG_CONFIG_HOME || path.join(home, '.config'), 'Code', 'User', 'settings.json');
}

/** The hook file: VS Code's flat form, one command entry per event. */
export function hookFileContent(command: HookCommandOptions): string {
  const entry = { type: 'command', command: hookCommand(command, HARNESS), timeout: 5 };
  const hooks = Object.fromEntries(COPILOT_EVENTS.map((event) => [event, [entry]]));
  return JSON.stringify({ hooks }, null, 2) + '\n';
}

/** `chat.hookFilesLocations` with Baton's folder in it (an object of folder → enabled; older arrays are kept as arrays). */
export function withOurFolder(current: unknown): unknown {
  if (Array.isArray(current)) return current.includes(HOOK_FOLDER_SETTING_VALUE) ? current : [...current, HOOK_FOLDER_SETTING_VALUE];
  const object = current && typeof current === 'object' ? (current as Record<string, unknown>) : {};
  return object[HOOK_FOLDER_SETTING_VALUE] === true ? object : { ...object, [HOOK_FOLDER_SETTING_VALUE]: true };
}

/** `chat.hookFilesLocations` without Baton's folder; undefined when nothing of the user's is left. */
export function withoutOurFolder(current: unknown): unknown {
  if (Array.isArray(current)) {
    const rest = current.filter((entry) => entry !== HOOK_FOLDER_SETTING_VALUE);
    return rest.length ? rest : undefined;
  }
  if (!current || typeof current !== 'object') return current;
  const { [HOOK_FOLDER_SETTING_VALUE]: _ours, ...rest } = current as Record<string, unknown>;
  return Object.keys(rest).length ? rest : undefined;
}

export const hookLocationsChange = (add: boolean): HostSettingChange => ({ key: HOOK_LOCATIONS_SETTING, apply: add ? withOurFolder : withoutOurFolder });

export interface VscodeInstallOptions {
  command: HookCommandOptions;
  /** The user settings.json to edit; absent with `hostSettings`. */
  settingsFile?: string;
  /** VS Code applies the setting change itself (through its configuration API). */
  hostSettings?: boolean;
  home?: string;
}

export function installVscode(options: VscodeInstallOptions) {
  const file = hookFilePath(options.home);
  const content = hookFileContent(options.command);
  const hookFileChanged = !fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== content;
  if (hookFileChanged) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content, { mode: 0o644 });
  }
  const change = hookLocationsChange(true);
  const settingsFile = options.hostSettings ? undefined : (options.settingsFile ?? defaultVscodeSettingsFile(process.env, options.home));
  const settingsChanged = settingsFile ? editSettingsFile(settingsFile, change) : undefined;
  return { file, settingsFile, hookFileChanged, settingsChanged, events: [...COPILOT_EVENTS], hostSettings: options.hostSettings ? [change] : undefined };
}

export function uninstallVscode(options: Omit<VscodeInstallOptions, 'command'>) {
  const file = hookFilePath(options.home);
  const hadFile = fs.existsSync(file);
  fs.rmSync(file, { force: true });
  // Baton's folders, only when empty now: ~/.baton/vscode-hooks, then ~/.baton.
  for (const dir of [path.dirname(file), path.dirname(path.dirname(file))]) {
    try {
      fs.rmdirSync(dir);
    } catch {
      break; // not empty, or gone
    }
  }
  const change = hookLocationsChange(false);
  const settingsFile = options.hostSettings ? undefined : (options.settingsFile ?? defaultVscodeSettingsFile(process.env, options.home));
  const settingsChanged = settingsFile && fs.existsSync(settingsFile) ? editSettingsFile(settingsFile, change) : false;
  return { file, settingsFile, removed: hadFile || settingsChanged, hostSettings: options.hostSettings ? [change] : undefined };
}
