// Damaged files are never deleted or cut short: they are moved into DIR/quarantine/ under a
// timestamped name, where they stay until someone removes them (see docs/storage.md).

import * as fs from 'node:fs';
import * as path from 'node:path';
import { fsyncDir, writeFileAtomic } from '../../node/fsync';

export function quarantineDir(dataDir: string): string {
  return path.join(dataDir, 'quarantine');
}

/** A name in quarantine for `file` that no earlier move has used. */
function quarantineName(dataDir: string, file: string): string {
  const dir = quarantineDir(dataDir);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  for (let n = 0; n < 1000; n++) {
    const candidate = path.join(dir, `${stamp}${n ? `-${n}` : ''}-${path.basename(file)}`);
    if (!fs.existsSync(candidate)) return candidate;
  }
  throw new Error(`no free name in ${dir} for ${path.basename(file)}`);
}

/** Moves `file` into quarantine (an atomic rename); returns where it went. */
export function moveToQuarantine(dataDir: string, file: string): string {
  const target = quarantineName(dataDir, file);
  fs.renameSync(file, target);
  fsyncDir(path.dirname(target));
  fsyncDir(path.dirname(file));
  return target;
}

/**
 * Replaces `file` with `clean`, keeping the original bytes in quarantine. The original is linked
 * (or copied) there first and the clean copy then renamed over it, so a crash at any point leaves
 * either the original or the clean file in place, never neither.
 */
export function replaceKeepingOriginal(dataDir: string, file: string, clean: Uint8Array): string {
  const target = quarantineName(dataDir, file);
  try {
    fs.linkSync(file, target);
  } catch {
    fs.copyFileSync(file, target, fs.constants.COPYFILE_EXCL);
    const fd = fs.openSync(target, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  }
  fsyncDir(path.dirname(target));
  writeFileAtomic(file, clean);
  return target;
}
