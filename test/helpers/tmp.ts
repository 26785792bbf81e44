// Temp directories for tests, removed after the run.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const made: string[] = [];

export function tempDir(prefix = 'baton-test-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}

export function cleanupTempDirs(): void {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

/**
 * A temp folder (its real path, as harnesses report it) holding one new 0700 folder per entry of
 * `layout` (name → path inside it): the HOME, config, project and data folders an end-to-end run
 * of a harness CLI gets.
 */
export function tempFolders<K extends string>(prefix: string, layout: Record<K, string>): Record<K | 'base', string> {
  const base = fs.realpathSync(tempDir(prefix));
  const folders = { base } as Record<K | 'base', string>;
  for (const [name, rel] of Object.entries(layout) as Array<[K, string]>) {
    folders[name] = path.join(base, rel);
    fs.mkdirSync(folders[name], { recursive: true, mode: 0o700 });
  }
  return folders;
}
