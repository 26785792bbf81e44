// `baton import claude-code`: backfills Claude Code history (`~/.claude/projects`) into Baton.
// Each `<project>/<session>.jsonl` is a main session; each `<project>/<session>/subagents/
// agent-<id>.jsonl` a sub-agent keyed `<session>/agent-<id>` (as the live connector keys it), whose
// parent is the session, or the sub-agent its `agent-<id>.meta.json` names as `parentAgentId`.
// Writes go through the running server when one holds the data directory, else straight to the
// store (sessionImport.ts, shared with the Codex import). Parents are written before their
// children. Transcripts are stored as deltas, so importing twice adds nothing. A file that cannot
// be read or parsed is skipped with a warning.
// Not part of the Harness object (registry.ts): it needs the store, which hooks must not load.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { BatonError } from '../../core/errors';
import { importRoot, MAX_IMPORT_META_BYTES, readImportText } from '../../node/importFile';
import { HARNESS, subagentKey } from './hooks';
import { claudeConfigDir } from './install';
import { asObj, type Obj } from '../../core/normalize';
import { CLAUDE_CODE_JSONL, claudeCodeTranscript } from './transcript';
import { importByLevel, importedTurns, importTally, writeAndCount, type ImportedSession, type ImportIo, type ImportResult } from '../sessionImport';

export type { ImportResult };

export interface ImportItem extends ImportedSession {
  /** Baton session key: `<session>` or `<session>/agent-<id>`. */
  key: string;
  sessionId: string;
}

export interface ImportOptions extends ImportIo {
  /** The `projects` folder to read. */
  projectsDir: string;
}

/** `$CLAUDE_CONFIG_DIR/projects`, else `~/.claude/projects`. */
export function defaultClaudeProjectsDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(path.resolve(claudeConfigDir(env)), 'projects');
}

function readDir(dir: string, warn: (m: string) => void): fs.Dirent[] {
  try {
    return fs.readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') warn(`${dir}: ${(err as Error).message}`);
    return [];
  }
}

function readMeta(file: string, root: string, warn: (m: string) => void): { agentType?: string; parentAgentId?: string } {
  if (!fs.lstatSync(file, { throwIfNoEntry: false })) return {};
  try {
    const meta = asObj(JSON.parse(readImportText(file, root, MAX_IMPORT_META_BYTES))) ?? {};
    const str = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : undefined);
    return { agentType: str(meta.agentType), parentAgentId: str(meta.parentAgentId) };
  } catch (err) {
    warn(`${file}: unreadable sub-agent metadata (${(err as Error).message}); its parent is taken to be the main session`);
    return {};
  }
}

/**
 * Every transcript under `projectsDir`, parents before children. A `.jsonl` name that is not a
 * folder is listed whatever it is: reading it (importOne) decides, and skips a FIFO, a device or
 * a symlink to outside the folder with a warning naming it.
 */
export function scanClaudeProjects(projectsDir: string, warn: (m: string) => void = () => {}): ImportItem[] {
  const root = importRoot(projectsDir);
  const mains: ImportItem[] = [];
  const subs: Array<ImportItem & { parentAgentId?: string }> = [];
  for (const project of readDir(projectsDir, warn)) {
    if (!project.isDirectory()) continue;
    const projectDir = path.join(projectsDir, project.name);
    for (const entry of readDir(projectDir, warn)) {
      const full = path.join(projectDir, entry.name);
      if (!entry.isDirectory() && entry.name.endsWith('.jsonl')) {
        const sessionId = entry.name.slice(0, -'.jsonl'.length);
        if (sessionId) mains.push({ key: sessionId, file: full, sessionId, depth: 0 });
      } else if (entry.isDirectory()) {
        const sessionId = entry.name;
        const dir = path.join(full, 'subagents');
        for (const sub of readDir(dir, warn)) {
          const m = /^agent-(.+)\.jsonl$/.exec(sub.name);
          if (!m || sub.isDirectory()) continue;
          const meta = readMeta(path.join(dir, `agent-${m[1]}.meta.json`), root, warn);
          subs.push({
            key: subagentKey(sessionId, m[1]),
            file: path.join(dir, sub.name),
            sessionId,
            agentId: m[1],
            agentType: meta.agentType,
            parentAgentId: meta.parentAgentId,
            depth: 1,
          });
        }
      }
    }
  }
  // Nested sub-agents: the meta file names the spawning sub-agent of the same session.
  const byKey = new Map(subs.map((s) => [s.key, s]));
  const depthOf = (s: (typeof subs)[number], seen: Set<string>): number => {
    const spawner = s.parentAgentId ? byKey.get(subagentKey(s.sessionId, s.parentAgentId)) : undefined;
    if (!spawner || seen.has(spawner.key)) return 1;
    seen.add(spawner.key);
    return 1 + depthOf(spawner, seen);
  };
  const items: ImportItem[] = subs.map(({ parentAgentId, ...s }) => ({
    ...s,
    parentKey: parentAgentId && parentAgentId !== s.agentId ? subagentKey(s.sessionId, parentAgentId) : s.sessionId,
    depth: depthOf({ ...s, parentAgentId }, new Set([s.key])),
  }));
  const byName = (a: ImportItem, b: ImportItem) => a.depth - b.depth || a.file.localeCompare(b.file);
  return [...mains.sort(byName), ...items.sort(byName)];
}

// Content blocks the transcript reader drops anyway (and that make files large): private
// reasoning, images and documents (base64), also inside tool results.
const DROPPED_BLOCKS = new Set(['thinking', 'redacted_thinking', 'image', 'document']);

function keepBlocks(content: unknown): unknown {
  if (!Array.isArray(content)) return content;
  return content
    .filter((b) => !DROPPED_BLOCKS.has(String(asObj(b)?.type)))
    .map((b) => {
      const block = asObj(b);
      return block?.type === 'tool_result' && Array.isArray(block.content) ? { ...block, content: keepBlocks(block.content) } : b;
    });
}

export interface ParsedTranscript {
  /** Only what Baton reads from the file, as JSONL: reads to exactly the same turns, much smaller. */
  text: string;
  cwd?: string;
  /** Timestamp of the first line. */
  startedAt?: string;
  records: number;
}

/** An assistant message's model and the token counts of its usage: its spend (transcript.ts claudeUsage). */
function requestOf(message: Obj): Obj {
  const usage = asObj(message.usage);
  if (message.role !== 'assistant' || !usage) return {};
  const counts: Obj = {};
  for (const k of ['input_tokens', 'output_tokens', 'cache_read_input_tokens', 'cache_creation_input_tokens'])
    if (typeof usage[k] === 'number') counts[k] = usage[k];
  return { model: message.model, usage: counts };
}

/** Null when the file holds no Claude Code record at all. */
export function parseClaudeTranscript(raw: string): ParsedTranscript | null {
  const out: string[] = [];
  let cwd: string | undefined;
  let startedAt: string | undefined;
  let records = 0;
  for (const line of raw.split('\n')) {
    if (!line.trim()) continue;
    let r: Obj | undefined;
    try {
      r = asObj(JSON.parse(line));
    } catch {
      continue; // a torn line (the harness was writing) or garbage
    }
    if (!r || typeof r.type !== 'string') continue;
    records++;
    if (startedAt === undefined && typeof r.timestamp === 'string') startedAt = r.timestamp;
    if (cwd === undefined && typeof r.cwd === 'string' && r.cwd) cwd = r.cwd;
    if (!['user', 'assistant', 'summary', 'system'].includes(r.type)) continue;
    const kept: Obj = { type: r.type };
    for (const k of ['isSidechain', 'isMeta', 'isCompactSummary', 'timestamp', 'summary', 'content', 'costUSD']) if (r[k] !== undefined) kept[k] = r[k];
    const message = asObj(r.message);
    if (message) kept.message = { id: message.id, role: message.role, content: keepBlocks(message.content), ...requestOf(message) };
    out.push(JSON.stringify(kept));
  }
  return records === 0 ? null : { text: out.join('\n') + (out.length ? '\n' : ''), cwd, startedAt, records };
}

export async function importClaudeCode(options: ImportOptions): Promise<ImportResult> {
  const source = path.resolve(options.projectsDir);
  if (!fs.existsSync(source) || !fs.statSync(source).isDirectory())
    throw new BatonError('not_found', `${source} is not a directory (expected Claude Code's projects folder)`);
  const tally = importTally(source, options.onWarning);
  const { result, warn } = tally;
  const items = scanClaudeProjects(source, warn);
  const root = importRoot(source);
  const writer = await options.open();
  result.via = writer.via;
  const projects = new Map<string, string>();

  /** One file: read, reduce, write. Never throws: a problem skips this file only. */
  const importOne = async (item: ImportItem): Promise<void> => {
    let parsed: ParsedTranscript | null;
    try {
      parsed = parseClaudeTranscript(readImportText(item.file, root));
    } catch (err) {
      warn(`${item.file}: skipped, cannot be read (${(err as Error).message})`);
      result.skipped++;
      return;
    }
    if (!parsed) {
      // An empty file is a session that never got going; anything else is not a transcript.
      if (fs.statSync(item.file, { throwIfNoEntry: false })?.size) warn(`${item.file}: skipped, not a Claude Code transcript (no JSON record on any line)`);
      result.skipped++;
      return;
    }
    const turns = importedTurns(parsed.text, HARNESS, { parser: claudeCodeTranscript, fallbackFormat: CLAUDE_CODE_JSONL });
    if (turns.length === 0) {
      result.skipped++; // only snapshots, attachments and the like: nothing to show
      return;
    }
    const project = parsed.cwd ? path.resolve(parsed.cwd) : item.parentKey ? projects.get(item.parentKey) : undefined;
    if (project) projects.set(item.key, project);
    // A large transcript is read by the server from the file itself (allowed under ~/.claude/projects).
    await writeAndCount(writer.api, HARNESS, { ...item, project, transcript: parsed.text }, item.file, tally);
  };

  // Every parent is written before its children (level by level), a few files at a time.
  await importByLevel(items, writer, importOne, options.onProgress);
  return result;
}
