// Reads the files a run names, for the child's prompt (docs/runs.md, "What the child is told"):
// only inside the workspace, text only (a NUL byte marks a binary), within a byte budget shared by
// all files. Every file goes through the one reader of files a request names
// (src/node/payloadFiles.ts): the workspace is the only root, the file is opened once without
// blocking, and where the open descriptor really is decides, so a file or a folder on its path
// swapped for a symlink or a FIFO after the check is refused, never read and never waited on. A
// file that cannot be given is named with the reason instead; nothing here fails the run.

import * as fs from 'node:fs';
import * as path from 'node:path';
import type { RunFile, RunFileStatus } from '../core/runs';
import { FileRefused, withPayloadFile, type RefusalReason } from '../node/payloadFiles';

/** How much of a file is looked at to tell text from binary. */
const SNIFF_BYTES = 8000;
/** Opening and reading one file must be done within this. */
const FILE_READ_MS = 5000;

function inside(root: string, target: string): boolean {
  const rel = path.relative(root, target);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

async function realRoot(workspace: string | undefined): Promise<string | null> {
  if (!workspace || !path.isAbsolute(workspace)) return null;
  try {
    return await fs.promises.realpath(workspace);
  } catch {
    return null;
  }
}

const STATUS_OF: Record<RefusalReason, RunFileStatus> = {
  missing: 'missing',
  outside: 'outside',
  'not-a-file': 'not a file',
  unreadable: 'unreadable',
  'too-large': 'unreadable',
  'timed-out': 'unreadable',
};

/** Drops a UTF-8 sequence cut in half at the end (a byte budget may end mid-character). */
function wholeCharacters(bytes: Buffer): string {
  let end = bytes.length;
  let back = 0;
  while (back < 3 && end - back - 1 >= 0 && (bytes[end - back - 1] & 0xc0) === 0x80) back++;
  const lead = end - back - 1;
  if (lead >= 0 && bytes[lead] >= 0xc0) {
    const need = bytes[lead] >= 0xf0 ? 4 : bytes[lead] >= 0xe0 ? 3 : 2;
    if (back + 1 < need) end = lead;
  }
  return bytes.subarray(0, end).toString('utf8');
}

export async function readRunFiles(workspace: string | undefined, names: string[], budgetBytes: number): Promise<RunFile[]> {
  const root = await realRoot(workspace);
  let left = budgetBytes;
  const out: RunFile[] = [];
  for (const name of names) {
    if (!root) {
      out.push({ path: name, status: 'no workspace' });
      continue;
    }
    const lexical = path.resolve(root, name);
    if (!inside(root, lexical)) {
      out.push({ path: name, status: 'outside' });
      continue;
    }
    try {
      out.push(
        await withPayloadFile(lexical, { roots: [root], timeoutMs: FILE_READ_MS }, async (file): Promise<RunFile> => {
          if (left <= 0) return { path: name, status: 'over budget', bytes: file.size };
          const head = Buffer.from(await file.read(0, Math.min(file.size, left)));
          if (head.subarray(0, SNIFF_BYTES).includes(0)) return { path: name, status: 'binary', bytes: file.size };
          left -= head.length;
          const content = wholeCharacters(head);
          return { path: name, status: head.length < file.size ? 'truncated' : 'included', content, bytes: file.size };
        }),
      );
    } catch (err) {
      out.push({ path: name, status: err instanceof FileRefused ? STATUS_OF[err.reason] : 'unreadable' });
    }
  }
  return out;
}
