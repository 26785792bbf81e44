// A harness run with its own config folder (CLAUDE_CONFIG_DIR, CODEX_HOME, HOME the server does
// not know) names transcripts outside the server's allowed roots, and the server refuses to open
// them. The hook runs inside the harness's own environment, so it reads the new bytes itself and
// sends them (docs/security.md, "Transcripts outside the roots"): it asks where the session's
// chunks of that file stopped, checks its file still has the same bytes there, and sends the next
// bounded piece (or the file from its start, when it was rewritten). The server never opens a path
// outside its roots, and a token holder gains nothing it could not already send inline.

import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ApiClient, CallInput } from '../api/client';
import type { RouteId } from '../api/routes';
import { TAIL_BYTES, tailMark } from '../core/fileCursor';
import type { ApiPoster } from '../harnesses/harness';
import { EndpointProblem } from '../node/endpointCall';
import { openRegularFile, readAt } from '../node/safeRead';

/** The most a hook sends in one call: the rest goes with the next one (the hook's budget is 900 ms). */
export const CHUNK_BYTES = 2 * 1024 * 1024;

const TRANSCRIPT_ROUTES = new Set<RouteId>(['userPromptSubmit', 'sessionEnd', 'checkpointExtract']);

interface Chunk {
  path: string;
  offset: number;
  data: string;
  tailMark: string;
  eof: boolean;
}

/** The bytes of `file` after `cursor` (or from its start when its bytes before the cursor differ), up to CHUNK_BYTES; null when it is not a readable regular file. */
export function readChunk(file: string, cursor: { offset: number; tailMark: string }, maxBytes = CHUNK_BYTES): Chunk | null {
  // Not a symlink, FIFO, device or folder, and never a blocking open (node/safeRead.ts).
  const opened = openRegularFile(file);
  if (!opened) return null;
  const { fd, size } = opened;
  try {
    let from = 0;
    if (cursor.offset > 0 && size >= cursor.offset) {
      const tail = readAt(fd, cursor.offset - Math.min(TAIL_BYTES, cursor.offset), Math.min(TAIL_BYTES, cursor.offset));
      if (tailMark(tail) === cursor.tailMark) from = cursor.offset;
    }
    const data = readAt(fd, from, Math.min(maxBytes, Math.max(0, size - from)));
    return { path: file, offset: from, data: data.toString('base64'), tailMark: from === 0 ? '' : cursor.tailMark, eof: from + data.length >= size };
  } catch {
    return null;
  } finally {
    fs.closeSync(fd);
  }
}

function refusedPath(err: unknown): boolean {
  return err instanceof EndpointProblem && err.status === 400 && err.code === 'invalid_request';
}

/**
 * The hook's API client, which sends a transcript's bytes itself when the server may not open
 * its path. Calls without a transcriptPath, and paths the server reads, pass through unchanged.
 */
export function withTranscriptChunks(client: ApiClient): ApiPoster {
  return {
    async call<K extends RouteId>(id: K, input: CallInput<K> = {}) {
      const body = input.body as Record<string, unknown> | undefined;
      const transcriptPath = body?.transcriptPath;
      if (!TRANSCRIPT_ROUTES.has(id) || typeof transcriptPath !== 'string' || !path.isAbsolute(transcriptPath)) return client.call(id, input);
      try {
        return await client.call(id, input);
      } catch (err) {
        if (!refusedPath(err)) throw err;
        const { transcriptPath: _dropped, ...rest } = body!;
        let cursor = await client.call('transcriptCursor', {
          body: { harness: String(rest.harness), sessionKey: String(rest.sessionKey), agentId: rest.agentId as string | undefined, path: transcriptPath },
        });
        // Twice at most: when the server's cursor moved on meanwhile (409), once more from the start.
        for (let attempt = 0; ; attempt++) {
          const chunk = readChunk(transcriptPath, cursor);
          if (!chunk) throw err;
          try {
            return await client.call(id, { ...input, body: { ...rest, transcriptChunk: chunk } as CallInput<K>['body'] });
          } catch (again) {
            if (attempt > 0 || !(again instanceof EndpointProblem && again.status === 409)) throw again;
            cursor = { offset: 0, tailMark: '' };
          }
        }
      }
    },
  };
}
