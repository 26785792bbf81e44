// The hooks token of Claude Code's HTTP hooks on disk: written as `env.BATON_HOOK_TOKEN` into a
// settings file Claude Code reads and a project never commits, owner-only, with no backup copy,
// and kept out of git (docs/security.md, "The hooks token").

import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { HOOK_TOKEN_ENV } from '../harness';
import { writeFileAtomic } from '../../node/fsync';
import { readJsonFile } from '../settingsFile';

/** The hooks token an earlier install wrote into `file` (undefined: none). */
export function readHookToken(file: string, envVar = HOOK_TOKEN_ENV): string | undefined {
  const env = readJsonFile(file).env as Record<string, unknown> | undefined;
  const value = env?.[envVar];
  return typeof value === 'string' && value ? value : undefined;
}

/** Sets (or, with undefined, removes) one `env` variable of a Claude Code settings file; the file is then readable only by its owner. */
export function setSettingsEnv(file: string, name: string, value: string | undefined): boolean {
  const settings = readJsonFile(file);
  const env = { ...((settings.env as Record<string, unknown>) ?? {}) };
  if (env[name] === value) return false;
  if (value === undefined) delete env[name];
  else env[name] = value;
  const next: Record<string, unknown> = { ...settings, env };
  if (Object.keys(env).length === 0) delete next.env;
  // No backup copy: a backup of a file holding a token would be a second, unignored copy of it.
  fs.mkdirSync(path.dirname(file), { recursive: true });
  writeFileAtomic(file, JSON.stringify(next, null, 2) + '\n', 0o600);
  fs.chmodSync(file, 0o600);
  return true;
}

function git(args: string[], cwd: string): { code: number; out: string } {
  try {
    return { code: 0, out: execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 5000 }).trim() };
  } catch (err) {
    const status = (err as { status?: number | null }).status;
    return { code: typeof status === 'number' ? status : -1, out: '' };
  }
}

/**
 * Keeps the token file out of git: when the project is a git work tree and the file is not ignored
 * yet, its path goes into the clone's own `info/exclude` (never committed). Returns what was done.
 */
export function keepOutOfGit(file: string): 'ignored' | 'excluded' | 'not-a-repo' {
  const dir = path.dirname(path.dirname(file));
  const check = git(['check-ignore', '-q', file], dir);
  if (check.code === 0) return 'ignored';
  if (check.code !== 1) return 'not-a-repo';
  const top = git(['rev-parse', '--show-toplevel'], dir).out;
  const exclude = git(['rev-parse', '--path-format=absolute', '--git-path', 'info/exclude'], dir).out;
  if (!top || !exclude) return 'not-a-repo';
  const pattern = '/' + path.relative(top, file).split(path.sep).join('/');
  fs.mkdirSync(path.dirname(exclude), { recursive: true });
  const before = fs.existsSync(exclude) ? fs.readFileSync(exclude, 'utf8') : '';
  fs.appendFileSync(exclude, `${before && !before.endsWith('\n') ? '\n' : ''}# Baton: holds the hooks token\n${pattern}\n`);
  return 'excluded';
}
