// Reading and writing harness settings files (JSON) without losing what the user had: parse,
// merge, write atomically, keep a one-time backup of the original.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { BatonError } from '../core/errors';
import { writeFileAtomic } from '../node/fsync';

export function readJsonFile(file: string): Record<string, unknown> {
  if (!fs.existsSync(file)) return {};
  const text = fs.readFileSync(file, 'utf8');
  if (!text.trim()) return {};
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch (err) {
    throw new BatonError('invalid_request', `${file} is not valid JSON (${(err as Error).message}); fix it before installing`);
  }
  throw new BatonError('invalid_request', `${file} does not hold a JSON object`);
}

export function writeJsonFile(file: string, value: unknown): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const backup = `${file}.baton-backup`;
  if (fs.existsSync(file) && !fs.existsSync(backup)) fs.copyFileSync(file, backup);
  const mode = fs.existsSync(file) ? fs.statSync(file).mode & 0o777 : 0o644;
  writeFileAtomic(file, JSON.stringify(value, null, 2) + '\n', mode);
}

/** Shell-quotes one argument for the POSIX shell that harnesses run hook commands with. */
export function shellQuote(arg: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}
