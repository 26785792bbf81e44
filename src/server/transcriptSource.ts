// Reads a harness transcript named by a hook payload, but only when it is safe to: the path must
// resolve (realpath, so no symlink escapes) under an allowed root, be a regular file and fit the
// size cap. Otherwise the request is refused (400) and the file is never opened.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { BatonError } from '../core/errors';
import { normalizeTranscript } from '../harnesses/registry';
import type { Turn } from '../core/types';

function realRoots(roots: string[]): string[] {
  return roots.flatMap((root) => {
    try {
      return [fs.realpathSync(root)];
    } catch {
      return [];
    }
  });
}

export function resolveTranscriptPath(requested: string, roots: string[], maxBytes: number): string {
  if (!path.isAbsolute(requested)) throw new BatonError('invalid_request', 'transcriptPath must be an absolute path');
  let real: string;
  try {
    real = fs.realpathSync(requested);
  } catch {
    throw new BatonError('invalid_request', 'transcriptPath does not exist');
  }
  const allowed = realRoots(roots).some((root) => real === root || real.startsWith(root + path.sep));
  if (!allowed) throw new BatonError('invalid_request', 'transcriptPath is outside the allowed transcript folders');
  const stat = fs.statSync(real);
  if (!stat.isFile()) throw new BatonError('invalid_request', 'transcriptPath is not a regular file');
  if (stat.size > maxBytes) throw new BatonError('invalid_request', `transcriptPath is ${stat.size} bytes; the limit is ${maxBytes}`);
  return real;
}

export interface TranscriptInput {
  harness: string;
  transcriptPath?: string;
  transcript?: unknown;
}

/** The turns of an inline transcript (string or message list) or of an allowed file; [] when neither. */
export function loadTranscriptTurns(input: TranscriptInput, roots: string[], maxBytes: number): Turn[] {
  if (input.transcript !== undefined && input.transcript !== null) {
    const raw = typeof input.transcript === 'string' ? input.transcript : JSON.stringify(input.transcript);
    return normalizeTranscript(raw, { harness: input.harness });
  }
  if (input.transcriptPath) {
    const file = resolveTranscriptPath(input.transcriptPath, roots, maxBytes);
    return normalizeTranscript(fs.readFileSync(file, 'utf8'), { harness: input.harness });
  }
  return [];
}
