// The HTTP hooks follow the server when it moves: Claude Code posts them to the URL written at
// install time, and a server restarted on another port (its default one taken) is no longer
// there. The SessionStart hook command (Claude Code never posts SessionStart over HTTP) finds the
// running server through the data directory's endpoint.json and points Baton's HTTP entries at
// it. Claude Code 2.1.328 re-reads a changed settings file within a few seconds, so the session
// running meanwhile posts its later events there too; the events before that lose their answers,
// and the transcript each later event sends brings the store up to date (docs/harnesses.md,
// "HTTP hooks").

import * as path from 'node:path';
import { isOurEntry, type Matcher } from '../hookCommand';
import { resolveDataDir } from '../../node/paths';
import { readJsonFile, writeJsonFile } from '../settingsFile';

/** The settings files whose Baton HTTP entries follow the server: the project's and the user's. */
export function hookSettingsFiles(env: NodeJS.ProcessEnv, cwd: string | undefined, configDir: string): string[] {
  const project = env.CLAUDE_PROJECT_DIR || cwd;
  return [...(project ? [path.join(path.resolve(project), '.claude', 'settings.json')] : []), path.join(configDir, 'settings.json')];
}

/** The data directory a Baton hook command names (`--data-dir DIR`, shell-quoted or not), else the default one. */
function dataDirOf(command: string): string {
  const m = /--data-dir (?:'((?:[^']|'\\'')*)'|(\S+))/.exec(command);
  const flag = m ? (m[1] !== undefined ? m[1].replace(/'\\''/g, "'") : m[2]) : undefined;
  return resolveDataDir({ flag });
}

/** Every Baton hook command of `harness` in a hooks object. */
function ourCommands(hooks: Record<string, Matcher[]>, harness: string): string[] {
  return Object.values(hooks)
    .flatMap((matchers) => (Array.isArray(matchers) ? matchers : []))
    .flatMap((m) => m.hooks ?? [])
    .filter((e) => e.type === 'command' && typeof e.command === 'string' && isOurEntry(e, harness))
    .map((e) => e.command!);
}

/**
 * Points Baton's HTTP hook entries for `harness` in `file` at `url`; true when the file changed.
 * Only a file whose hook command serves `dataDir` (the same install): another install's entries
 * post to another data directory's server and stay as they are.
 */
export function repointHttpHooks(file: string, harness: string, url: string, dataDir: string): boolean {
  const settings = readJsonFile(file);
  const hooks = settings.hooks as Record<string, Matcher[]> | undefined;
  if (!hooks || typeof hooks !== 'object') return false;
  if (!ourCommands(hooks, harness).some((command) => dataDirOf(command) === path.resolve(dataDir))) return false;
  const target = `${url.replace(/\/$/, '')}/api/hooks/${harness}`;
  let changed = false;
  for (const matchers of Object.values(hooks)) {
    for (const matcher of Array.isArray(matchers) ? matchers : []) {
      for (const entry of matcher.hooks ?? []) {
        if (entry.type !== 'http' || !isOurEntry(entry, harness) || entry.url === target) continue;
        entry.url = target;
        changed = true;
      }
    }
  }
  if (changed) writeJsonFile(file, settings);
  return changed;
}
