// A throwaway home for the real OpenCode CLI, offline (docs/harnesses.md): HOME and XDG folders
// of their own, a git project, the model an OpenAI-compatible provider at a scripted server, and
// the marker files without which OpenCode tries to npm-install its plugin package at every start
// (offline it stalls for about a minute). Used by the import tests and the demo recording.

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cleanEnv } from './claudeCli';

/** The @opencode-ai/plugin version of the pinned CLI. */
export const OPENCODE_PLUGIN_VERSION = '1.18.33';

export interface OpenCodeHome {
  home: string;
  project: string;
  /** `$XDG_DATA_HOME/opencode`: where OpenCode keeps opencode.db. */
  openCodeData: string;
  env: NodeJS.ProcessEnv;
}

/** The files that tell OpenCode its plugin package is already installed in a config folder. */
export function markPluginInstalled(dir: string): void {
  fs.mkdirSync(path.join(dir, 'node_modules'), { recursive: true });
  const dependencies = { '@opencode-ai/plugin': OPENCODE_PLUGIN_VERSION };
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ dependencies }, null, 2) + '\n');
  fs.writeFileSync(
    path.join(dir, 'package-lock.json'),
    JSON.stringify({ name: path.basename(dir), lockfileVersion: 3, requires: true, packages: { '': { dependencies } } }, null, 2) + '\n',
  );
}

/**
 * Lays out `base` as OpenCode's home: `<base>/.config`, `.local/share`… and the project
 * `<base>/<projectName>` (a git repository holding `files`), with the model at `modelUrl`
 * (configured for the user, so the project holds only its own files).
 */
export function makeOpenCodeHome(base: string, projectName: string, files: Record<string, string>, modelUrl: string): OpenCodeHome {
  const xdg = {
    XDG_CONFIG_HOME: path.join(base, '.config'),
    XDG_DATA_HOME: path.join(base, '.local', 'share'),
    XDG_CACHE_HOME: path.join(base, '.cache'),
    XDG_STATE_HOME: path.join(base, '.local', 'state'),
  };
  const tmp = path.join(base, 'tmp');
  const project = path.join(base, projectName);
  for (const dir of [...Object.values(xdg), tmp, project]) fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(project, rel)), { recursive: true });
    fs.writeFileSync(path.join(project, rel), text);
  }
  // The plugin-package marker folder in the project stays out of `git status`.
  const git = spawnSync(
    'bash',
    [
      '-c',
      'git init -q && printf ".opencode/\\n" >> .git/info/exclude && git add -A && git -c user.name=dev -c user.email=dev@example.invalid commit -qm init',
    ],
    { cwd: project, encoding: 'utf8' },
  );
  if (git.status !== 0) throw new Error(`git init in ${project}: ${git.stderr}`);
  const configDir = path.join(xdg.XDG_CONFIG_HOME, 'opencode');
  fs.mkdirSync(configDir, { recursive: true });
  fs.writeFileSync(
    path.join(configDir, 'opencode.json'),
    JSON.stringify(
      {
        model: 'scripted/billing-model',
        small_model: 'scripted/billing-model',
        autoupdate: false,
        share: 'disabled',
        provider: {
          scripted: {
            npm: '@ai-sdk/openai-compatible',
            name: 'Scripted',
            options: { baseURL: modelUrl, apiKey: 'sk-scripted' },
            models: { 'billing-model': { name: 'Billing model', tool_call: true } },
          },
        },
      },
      null,
      2,
    ) + '\n',
  );
  markPluginInstalled(configDir);
  markPluginInstalled(path.join(project, '.opencode'));
  const env = cleanEnv(base, tmp, { ...xdg, OPENCODE_DISABLE_MODELS_FETCH: '1', OPENCODE_DISABLE_AUTOUPDATE: '1' });
  return { home: base, project, openCodeData: path.join(xdg.XDG_DATA_HOME, 'opencode'), env };
}
