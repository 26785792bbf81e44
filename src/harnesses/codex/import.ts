// `baton import codex`: backfills Codex history ($CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl)
// into Baton. Each rollout is one thread; its first line, `session_meta`, names the thread (`id`),
// the root session it belongs to (`session_id`) and, for a sub-agent, the thread that spawned it
// (`parent_thread_id`) and its nickname and role. Keys and parents are the live hooks' (see
// claudeStyleHooks.ts): a root thread is keyed by its id, a sub-agent `<root>/agent-<thread>`, under
// the root or under the sub-agent that spawned it; so import and live hooks never make two
// sessions of one thread. Parents are written before their children; transcripts are stored as
// deltas, so importing twice adds nothing; a file that cannot be read or is not a rollout is
// skipped with a warning. Not part of the Harness object (registry.ts): it needs the store.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { BatonError } from '../../core/errors';
import { importRoot, openImportFile, readImportText } from '../../node/importFile';
import { subagentKey } from '../claudeStyleHooks';
import { asObj, type Obj } from '../../core/normalize';
import { CODEX_JSONL, codexTranscript } from './transcript';
import { importByLevel, importedTurns, importTally, writeAndCount, type ImportedSession, type ImportIo, type ImportResult } from '../sessionImport';
import { HARNESS } from './hooks';
import { firstLineOf, rolloutMeta, type RolloutMeta } from './rollout';
import { codexHome } from './install';

export type { ImportResult };

export interface CodexImportItem extends ImportedSession {
  /** The thread's own id (session_meta `id`). */
  threadId: string;
  /** The root session's thread id. */
  rootId: string;
  cwd?: string;
}

export interface CodexImportOptions extends ImportIo {
  /** The `sessions` folder to read. */
  sessionsDir: string;
}

/** `$CODEX_HOME/sessions`, else `~/.codex/sessions`. */
export function defaultCodexSessionsDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(path.resolve(codexHome(env)), 'sessions');
}

/**
 * Every `.jsonl` name under `dir` (Codex's YYYY/MM/DD folders, or any other nesting) that is not a
 * folder: reading it decides what it is (a FIFO, a device or a symlink to outside is skipped with a
 * warning). Symlinked folders are not entered.
 */
function jsonlFiles(dir: string, warn: (m: string) => void): string[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') warn(`${dir}: ${(err as Error).message}`);
    return [];
  }
  const files: string[] = [];
  for (const e of entries) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) files.push(...jsonlFiles(full, warn));
    else if (e.name.endsWith('.jsonl')) files.push(full);
  }
  return files;
}

/**
 * Every rollout under `sessionsDir`, parents before children. Files whose first line is not a Codex
 * session_meta are reported through `warn` and left out.
 */
export function scanCodexSessions(sessionsDir: string, warn: (m: string) => void = () => {}): CodexImportItem[] {
  const root = importRoot(sessionsDir);
  const metas: Array<{ file: string; meta: RolloutMeta }> = [];
  for (const file of jsonlFiles(sessionsDir, warn).sort()) {
    let meta: RolloutMeta | null;
    try {
      const { fd } = openImportFile(file, root);
      try {
        meta = rolloutMeta(firstLineOf(fd));
      } finally {
        fs.closeSync(fd);
      }
    } catch (err) {
      warn(`${file}: skipped, cannot be read (${(err as Error).message})`);
      continue;
    }
    if (meta) metas.push({ file, meta });
    else if (fs.statSync(file, { throwIfNoEntry: false })?.size) warn(`${file}: skipped, not a Codex rollout (its first line is no session_meta)`);
  }
  const byThread = new Map(metas.map((m) => [m.meta.threadId, m.meta]));
  /** The root thread and the depth below it, following parent_thread_id (session_id when Codex wrote it). */
  const placeOf = (meta: RolloutMeta): { rootId: string; depth: number } => {
    let depth = 0;
    let at = meta;
    const seen = new Set([meta.threadId]);
    while (at.parentThreadId && at.parentThreadId !== at.threadId) {
      depth++;
      const up = byThread.get(at.parentThreadId);
      if (!up || seen.has(up.threadId)) return { rootId: meta.sessionId ?? at.parentThreadId, depth };
      seen.add(up.threadId);
      at = up;
    }
    return { rootId: meta.sessionId ?? at.threadId, depth };
  };
  const items = metas.map(({ file, meta }): CodexImportItem => {
    const { rootId, depth } = placeOf(meta);
    const isRoot = !meta.parentThreadId || meta.threadId === rootId;
    if (isRoot) return { key: meta.threadId, file, threadId: meta.threadId, rootId: meta.threadId, depth: 0, cwd: meta.cwd };
    const spawner = meta.parentThreadId!;
    return {
      key: subagentKey(rootId, meta.threadId),
      file,
      threadId: meta.threadId,
      rootId,
      parentKey: spawner === rootId ? rootId : subagentKey(rootId, spawner),
      agentId: meta.threadId,
      // Codex names a role when the spawner asked for one; otherwise the nickname is what it shows.
      agentType: meta.role ?? meta.nickname,
      depth: Math.max(1, depth),
      cwd: meta.cwd,
    };
  });
  return items.sort((a, b) => a.depth - b.depth || a.file.localeCompare(b.file));
}

export interface ReducedRollout {
  /** Only the records the transcript reader uses, as JSONL: reads to exactly the same turns. */
  text: string;
  records: number;
}

/** A token_count's running total and last request's counts, without the rest (context window, rate limits). */
function tokenInfo(info: Obj): Obj {
  return { total_token_usage: info.total_token_usage, last_token_usage: info.last_token_usage };
}

/**
 * The rollout reduced to what Baton reads (response items but private reasoning, compaction
 * summaries, and the models and token counts of its spend): the same turns, a fraction of the size. Null when no line is a JSON record.
 */
export function reduceRollout(raw: string): ReducedRollout | null {
  const out: string[] = [];
  let records = 0;
  for (const line of raw.split('\n')) {
    if (!line.trim()) continue;
    let r: Obj | undefined;
    try {
      r = asObj(JSON.parse(line));
    } catch {
      continue; // a torn line (Codex was writing) or garbage
    }
    if (!r || typeof r.type !== 'string') continue;
    records++;
    const payload = asObj(r.payload);
    if (!payload) continue;
    if (r.type === 'compacted' || (r.type === 'response_item' && payload.type !== 'reasoning'))
      out.push(JSON.stringify({ timestamp: r.timestamp, type: r.type, payload }));
    // The spend (transcript.ts codexUsage): each turn's model, each request's token counts.
    else if (r.type === 'turn_context' && typeof payload.model === 'string')
      out.push(JSON.stringify({ timestamp: r.timestamp, type: r.type, payload: { model: payload.model } }));
    else if (r.type === 'event_msg' && payload.type === 'token_count' && asObj(payload.info))
      out.push(JSON.stringify({ timestamp: r.timestamp, type: r.type, payload: { type: payload.type, info: tokenInfo(asObj(payload.info)!) } }));
  }
  return records === 0 ? null : { text: out.join('\n') + (out.length ? '\n' : ''), records };
}

export async function importCodex(options: CodexImportOptions): Promise<ImportResult> {
  const source = path.resolve(options.sessionsDir);
  if (!fs.existsSync(source) || !fs.statSync(source).isDirectory())
    throw new BatonError('not_found', `${source} is not a directory (expected Codex's sessions folder)`);
  const tally = importTally(source, options.onWarning);
  const { result, warn } = tally;
  // Files that are not rollouts are warned about (and counted) here; they never become items.
  const before = result.warnings.length;
  const items = scanCodexSessions(source, warn);
  result.skipped += result.warnings.length - before;
  const root = importRoot(source);
  const writer = await options.open();
  result.via = writer.via;
  const projects = new Map<string, string>();

  const importOne = async (item: CodexImportItem): Promise<void> => {
    let reduced: ReducedRollout | null;
    try {
      reduced = reduceRollout(readImportText(item.file, root));
    } catch (err) {
      warn(`${item.file}: skipped, cannot be read (${(err as Error).message})`);
      result.skipped++;
      return;
    }
    const turns = reduced ? importedTurns(reduced.text, HARNESS, { parser: codexTranscript, fallbackFormat: CODEX_JSONL }) : [];
    if (!reduced || turns.length === 0) {
      result.skipped++; // a thread that never got to a message: nothing to show
      return;
    }
    const project = item.cwd ? path.resolve(item.cwd) : item.parentKey ? projects.get(item.parentKey) : undefined;
    if (project) projects.set(item.key, project);
    await writeAndCount(writer.api, HARNESS, { ...item, project, transcript: reduced.text }, item.file, tally);
  };

  await importByLevel(items, writer, importOne, options.onProgress);
  return result;
}
