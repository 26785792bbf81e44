// Where an agent's MEMORY.md lives and how it is written (docs/memory.md, "MEMORY.md"):
// DIR/memory/<agent folder>/MEMORY.md, with the previous version as MEMORY.md.bak beside it.
//
// The agent folder is a reversible encoding of the agent id, so two agents never share a file and
// no id can name a folder outside DIR/memory: letters, digits, `_` and `-` stay as they are, every
// other byte of the id's UTF-8 (`.`, `/`, spaces, `%` itself) becomes `%XX`. `team a` is
// `team%20a`, `team_a` stays `team_a`, `..` is `%2E%2E`. An encoding longer than a file name
// should be is cut and ends in `~` and the SHA-256 of the id (`~` is no character of the encoding).
//
// Files written under the earlier naming (every character but letters, digits, `_`, `.` and `-`
// replaced by `_`, which let `team a` and `team_a` share one file and `..` write DIR/MEMORY.md) are
// moved to the new place on the agent's next write, but only when their content is the agent's own
// last write (its hash is recorded with the head): a file two agents shared goes to the one that
// wrote it last.

import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeFileAtomicAsync } from '../node/fsync';

export const MEMORY_FILE = 'MEMORY.md';
/** The one backup kept: the version before the last write. */
export const MEMORY_BACKUP = `${MEMORY_FILE}.bak`;
/** Longest agent folder name before it is cut and hashed (file names may have 255 bytes). */
const MAX_FOLDER_NAME = 200;
/** Backups the earlier scheme kept, one per write (`MEMORY.md.2026-11-27T10-00-00-000Z.bak`): removed when the agent writes next. */
const STAMPED_BACKUP = /^MEMORY\.md\.\d{4}-\d{2}-\d{2}T[0-9-]+Z\.bak$/;

const isKept = (byte: number) =>
  (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a) || byte === 0x5f || byte === 0x2d;

const sha256 = (text: string | Buffer) => crypto.createHash('sha256').update(text).digest('hex');

/** The folder name of an agent's MEMORY.md under DIR/memory: one-to-one, never `.`, `..` or a path. */
export function agentFolderName(agentId: string): string {
  let encoded = '';
  for (const byte of Buffer.from(agentId, 'utf8')) encoded += isKept(byte) ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  if (encoded === '') return '%'; // the empty id: no other id encodes to a lone `%`
  if (encoded.length <= MAX_FOLDER_NAME) return encoded;
  return `${encoded.slice(0, MAX_FOLDER_NAME - 65).replace(/%[0-9A-F]?$/, '')}~${sha256(agentId)}`;
}

/** Where the earlier naming put the agent's MEMORY.md (see the top of this file). */
function legacyFile(memoryDir: string, agentId: string): string {
  return path.join(memoryDir, agentId.replace(/[^A-Za-z0-9_.-]/g, '_'), MEMORY_FILE);
}

async function readIfExists(file: string): Promise<Buffer | null> {
  try {
    return await fs.promises.readFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'EISDIR') return null;
    throw err;
  }
}

/** Moves the agent's file from where the earlier naming put it, when it holds the agent's own last write. */
async function adoptLegacyFile(memoryDir: string, agentId: string, file: string, lastWrittenHash: string | null): Promise<void> {
  const legacy = legacyFile(memoryDir, agentId);
  if (!lastWrittenHash || legacy === file || fs.existsSync(file)) return;
  const content = await readIfExists(legacy);
  if (content === null || sha256(content) !== lastWrittenHash) return; // another agent's, or changed by hand: left alone
  await fs.promises.rename(legacy, file);
}

/**
 * Writes the agent's MEMORY.md (atomically) and keeps the version before it as MEMORY.md.bak (one
 * backup, replaced on every write); returns the file's path. `lastWrittenHash`: the SHA-256 of the
 * agent's previous write, as the head recorded it (for moving a file of the earlier naming).
 */
export async function writeMemoryFile(memoryDir: string, agentId: string, content: string, lastWrittenHash: string | null): Promise<string> {
  const dir = path.join(memoryDir, agentFolderName(agentId));
  // The encoding never yields a separator, `.` or `..`: this only guards against a future mistake.
  if (path.dirname(dir) !== memoryDir) throw new Error('memory folder outside DIR/memory');
  const file = path.join(dir, MEMORY_FILE);
  await fs.promises.mkdir(dir, { recursive: true, mode: 0o700 });
  await adoptLegacyFile(memoryDir, agentId, file, lastWrittenHash);
  const previous = await readIfExists(file);
  if (previous !== null) await writeFileAtomicAsync(path.join(dir, MEMORY_BACKUP), previous);
  await writeFileAtomicAsync(file, content);
  for (const name of await fs.promises.readdir(dir)) if (STAMPED_BACKUP.test(name)) await fs.promises.rm(path.join(dir, name), { force: true });
  return file;
}
