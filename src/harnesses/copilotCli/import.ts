// `baton import copilot-cli`: backfills GitHub Copilot CLI history ($COPILOT_HOME/session-state/
// <sessionId>/events.jsonl) into Baton. One log holds a session and every sub-agent it started,
// their events told apart by `agentId` (events.ts). Keys and writes are the live hooks' (hooks.ts):
// the session is keyed by its sessionId and sent as its own lines of the log; each sub-agent is
// keyed by its agentId, under the sub-agent that started it or else the session, and sent as the
// message list the hooks send. So an import after live hooks adds nothing, and live hooks after an
// import make no second session. Parents are written before their children; importing twice adds
// nothing; a file that cannot be read, is not Copilot CLI's log or holds no record is skipped with
// a warning (docs/security.md, "Importing harness history").

import * as fs from 'node:fs';
import * as path from 'node:path';
import { BatonError } from '../../core/errors';
import { asObj, type Obj } from '../../core/normalize';
import { importRoot, readImportText } from '../../node/importFile';
import type { HarnessImporter } from '../harness';
import {
  importByLevel,
  importedTurns,
  importTally,
  writeAndCount,
  type ImportedSession,
  type ImportIo,
  type ImportResult,
  type SessionWrite,
} from '../sessionImport';
import { COPILOT_CLI_JSONL, cliTurns, copilotCliTranscript, eventOwner, loggedSubagents, sessionStartOf, turnMessages } from './events';
import { HARNESS } from './hooks';
import { EVENTS_FILE, sessionStateDir } from './paths';

export interface CopilotCliImportOptions extends ImportIo {
  /** The session-state folder, one session's folder or one events.jsonl; default: sessionStateDir(). */
  source?: string;
}

export interface CopilotCliImportResult extends ImportResult {
  /** Event logs found (each one session with its sub-agents), read or skipped. */
  files: number;
}

/** One session or sub-agent of a log, as the import writes it. */
export interface CopilotCliImportItem extends ImportedSession {
  /** The session's key (its sessionId), for a sub-agent too. */
  sessionId: string;
  project?: string;
  title?: string;
  status?: 'completed';
}

/** A log read into records: its lines that are JSON objects (a torn or garbled line is left out), with their text. */
interface ReadLog {
  records: Obj[];
  lines: string[];
}

function readLog(text: string): ReadLog {
  const records: Obj[] = [];
  const lines: string[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    let record: Obj | undefined;
    try {
      record = asObj(JSON.parse(line));
    } catch {
      continue; // the last line while Copilot CLI was writing it, or garbage
    }
    if (!record) continue;
    records.push(record);
    lines.push(line.replace(/\r$/, ''));
  }
  return { records, lines };
}

/** An event of Copilot's shape (`{type, data, id}`): not decisive alone, VS Code agent mode writes the same. */
function isEventShaped(record: Obj): boolean {
  return typeof record.type === 'string' && asObj(record.data) !== undefined && typeof record.id === 'string';
}

/**
 * Whether the log is Copilot CLI's: its first decisive record (one only Copilot CLI writes) comes
 * before any record of another shape and before a session.start that is not Copilot CLI's (VS Code
 * agent mode's).
 */
function isCopilotCliLog(records: Obj[]): boolean {
  for (const record of records) {
    if (copilotCliTranscript.recognizes(record)) return true;
    if (record.type === 'session.start' || !isEventShaped(record)) return false;
  }
  return false;
}

/** The session's own lines of the log (those without an agentId): what the server reads as its transcript. */
function sessionText(log: ReadLog): string {
  const own = log.lines.filter((_, i) => eventOwner(log.records[i]) === undefined);
  return own.length ? own.join('\n') + '\n' : '';
}

/** The session's own lines of a log's text (complete JSON lines without an agentId): the same session turns, without its sub-agents' events. */
export function sessionOwnText(raw: string): string {
  return sessionText(readLog(raw));
}

/** The session's key: its session.start's sessionId, else the name of the folder Copilot CLI keeps its log in. */
function sessionIdOf(records: Obj[], file: string): string | undefined {
  return sessionStartOf(records)?.sessionId ?? (path.basename(file) === EVENTS_FILE ? path.basename(path.dirname(file)) : undefined);
}

/**
 * The session and its sub-agents of one log, parents first (depth 0, then the sub-agents the session
 * started, then theirs). A sub-agent whose spawner is not in the log is placed under the session.
 */
export function copilotCliItems(records: Obj[], file: string): CopilotCliImportItem[] {
  const sessionId = sessionIdOf(records, file);
  if (!sessionId) return [];
  const cwd = sessionStartOf(records)?.cwd;
  const project = cwd ? path.resolve(cwd) : undefined;
  const subagents = loggedSubagents(records).filter((s) => s.agentId !== sessionId);
  const byId = new Map(subagents.map((s) => [s.agentId, s]));
  /** The spawner's agentId (undefined: the session) and the depth below the session; a spawner not in the log, or a loop, is the session. */
  const placeOf = (agentId: string): { spawner?: string; depth: number } => {
    const spawner = byId.get(agentId)?.parentAgentId;
    if (!spawner || !byId.has(spawner)) return { depth: 1 };
    const seen = new Set([agentId]);
    let depth = 1;
    for (let at: string | undefined = spawner; at !== undefined; at = byId.get(at)?.parentAgentId) {
      if (seen.has(at)) return { depth: 1 };
      if (!byId.has(at)) break;
      seen.add(at);
      depth++;
    }
    return { spawner, depth };
  };
  const items: CopilotCliImportItem[] = [{ key: sessionId, sessionId, file, depth: 0, project }];
  for (const s of subagents) {
    const { spawner, depth } = placeOf(s.agentId);
    items.push({
      key: s.agentId,
      sessionId,
      file,
      parentKey: spawner ?? sessionId,
      agentId: s.agentId,
      agentType: s.agentType,
      depth,
      project,
      title: s.description?.slice(0, 500),
      status: s.completed ? 'completed' : undefined,
    });
  }
  return items.sort((a, b) => a.depth - b.depth);
}

function isDir(p: string): boolean {
  return fs.statSync(p, { throwIfNoEntry: false })?.isDirectory() === true;
}

/**
 * The event logs `source` holds: itself (a file), its events.jsonl (a session's folder), or each of
 * its folders' events.jsonl (the session-state folder). Whatever such a name is (a FIFO, a symlink
 * to outside) is decided when it is read (node/importFile.ts).
 */
export function copilotCliLogFiles(source: string): string[] {
  if (!isDir(source)) return [source];
  const own = path.join(source, EVENTS_FILE);
  if (exists(own)) return [own];
  return fs
    .readdirSync(source)
    .sort()
    .map((name) => path.join(source, name, EVENTS_FILE))
    .filter(exists);
}

/** Whether a name is there (not following a symlink it is): a file beside the session folders (a lock) has no log in it. */
function exists(file: string): boolean {
  try {
    fs.lstatSync(file);
    return true;
  } catch {
    return false; // ENOENT, ENOTDIR, EACCES
  }
}

/** The records of a log when it is Copilot CLI's; otherwise why it is skipped. */
function loadLog(file: string, root: string): ReadLog | { skip: string } {
  let text: string;
  try {
    text = readImportText(file, root);
  } catch (err) {
    return { skip: `cannot be read (${(err as Error).message})` };
  }
  const log = readLog(text);
  if (log.records.length === 0) return { skip: 'empty (no event in it)' };
  if (!isCopilotCliLog(log.records)) return { skip: 'not a GitHub Copilot CLI session log' };
  if (!sessionIdOf(log.records, file)) return { skip: 'no session.start names its session' };
  return log;
}

/** Every session and sub-agent under `source`, parents first; logs that are skipped are reported through `warn`. */
export function scanCopilotCliSessions(source: string, warn: (message: string) => void = () => {}): CopilotCliImportItem[] {
  const resolved = path.resolve(source);
  const root = importRoot(resolved);
  const items: CopilotCliImportItem[] = [];
  for (const file of copilotCliLogFiles(resolved)) {
    const log = loadLog(file, root);
    if ('skip' in log) warn(`${file}: skipped, ${log.skip}`);
    else items.push(...copilotCliItems(log.records, file));
  }
  return items.sort((a, b) => a.depth - b.depth);
}

/** The session with the most sub-agents under `source`: the one to open first. */
export function featuredCopilotCliSession(source: string): string | null {
  if (!fs.existsSync(source)) return null;
  const counts = new Map<string, number>();
  for (const item of scanCopilotCliSessions(source)) counts.set(item.sessionId, (counts.get(item.sessionId) ?? 0) + (item.depth > 0 ? 1 : 0));
  let best: string | null = null;
  for (const [key, n] of counts) if (best === null || n > counts.get(best)!) best = key;
  return best;
}

/** Logs read while their items are written: a level reads each of its logs once, a few at a time. */
class LogCache {
  private readonly logs = new Map<string, ReadLog | { skip: string }>();
  constructor(
    private readonly root: string,
    private readonly size: number,
  ) {}

  get(file: string): ReadLog | { skip: string } {
    let log = this.logs.get(file);
    if (log) this.logs.delete(file);
    else log = loadLog(file, this.root);
    this.logs.set(file, log);
    if (this.logs.size > this.size) this.logs.delete(this.logs.keys().next().value!);
    return log;
  }
}

export async function importCopilotCli(options: CopilotCliImportOptions): Promise<CopilotCliImportResult> {
  const source = path.resolve(options.source ?? sessionStateDir());
  if (!fs.existsSync(source))
    throw new BatonError('not_found', `${source} does not exist (expected Copilot CLI's session-state folder, a session's folder or its events.jsonl)`);
  const tally = importTally(source, options.onWarning);
  const result: CopilotCliImportResult = Object.assign(tally.result, { files: copilotCliLogFiles(source).length });
  const { warn } = tally;
  // Logs that are skipped are warned about (and counted) here; they never become items.
  const before = result.warnings.length;
  const items = scanCopilotCliSessions(source, warn);
  result.skipped += result.warnings.length - before;
  // A level's items are in file order, so the few logs being written are those cached.
  const cache = new LogCache(importRoot(source), 4);
  const writer = await options.open();
  result.via = writer.via;
  // A session not written (no turn and no sub-agent, or a failed write): its sub-agents are not either.
  const written = new Set<string>();
  const spawners = new Set(items.map((i) => i.parentKey));

  const importOne = async (item: CopilotCliImportItem): Promise<void> => {
    if (item.parentKey && !written.has(item.parentKey)) {
      warn(`${item.file}: sub-agent ${item.key} skipped, its parent ${item.parentKey} was not imported`);
      result.skipped++;
      return;
    }
    const log = cache.get(item.file);
    if ('skip' in log) {
      warn(`${item.file}: skipped, ${log.skip}`);
      result.skipped++;
      return;
    }
    let write: SessionWrite;
    if (item.parentKey) {
      // A message list, as the hooks send it; never the log's path (the server would read the session's turns from it).
      const { key, parentKey, agentId, agentType, project, title, status } = item;
      write = { key, parentKey, agentId, agentType, project, title, status, transcript: turnMessages(cliTurns(log.records, agentId)) };
    } else {
      const transcript = sessionText(log);
      const hasTurns = importedTurns(transcript, HARNESS, { parser: copilotCliTranscript, fallbackFormat: COPILOT_CLI_JSONL }).length > 0;
      if (!hasTurns && !spawners.has(item.key)) {
        result.skipped++; // a session that never got to a prompt: nothing to show
        return;
      }
      write = { key: item.key, project: item.project, transcript, file: item.file };
    }
    // writeAndCount warns only when the write failed: then the session's children are not written either.
    let failed = false;
    const origin = item.parentKey ? `${item.file} (sub-agent ${item.key})` : item.file;
    await writeAndCount(writer.api, HARNESS, write, origin, { result, warn: (message) => ((failed = true), warn(message)) });
    if (!failed) written.add(item.key);
  };

  await importByLevel(items, writer, importOne, options.onProgress);
  return result;
}

export const COPILOT_CLI_IMPORTER: HarnessImporter = {
  description: 'import GitHub Copilot CLI sessions and their sub-agents from its session-state folder',
  label: 'GitHub Copilot CLI',
  source: {
    as: 'argument',
    help: "the session-state folder, one session's folder or its events.jsonl (default: $COPILOT_HOME/session-state or ~/.copilot/session-state)",
  },
  defaultSource: () => sessionStateDir(),
  run: (source, io) => importCopilotCli({ ...io, source }),
  featured: featuredCopilotCliSession,
};
