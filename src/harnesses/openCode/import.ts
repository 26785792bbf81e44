// `baton import opencode [--path P]`: backfills OpenCode history into Baton (docs/harnesses.md).
// Reads either OpenCode's own database (`<data>/opencode/opencode.db` with its write-ahead log,
// read from the bytes with sql.js: sqliteImage.ts) or `opencode export` files (one JSON document
// `{info, messages}` per session, as the demo keeps them). Each OpenCode session is a Baton session
// keyed by its id, a task child (`parentID`) under its parent, exactly as the plugin (plugin.ts)
// keys them; transcripts are the message list the plugin sends (messages.ts), the same turns, so
// whichever of the two comes second adds nothing. Parents are written before children;
// transcripts are stored as deltas, so importing twice adds nothing; a broken file or session is
// skipped with a warning.
// Writes go through the running server when one holds the data directory, else to the store.
// Not part of the Harness object (registry.ts): hooks must not load it.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Database, SqlJsStatic } from 'sql.js';
import { BatonError } from '../../core/errors';
import { ImportFileError, importRoot, MAX_IMPORT_FILE_BYTES, openImportFile, readImportFile, readImportText } from '../../node/importFile';
import { asObj, type Obj } from '../../core/normalize';
import { importedTurns, importTally, writeAndCount, type ImportIo, type ImportResult } from '../sessionImport';
import { slimMessages, type OpenCodeMessage } from './messages';
import { MAX_DATABASE_BYTES, sqliteImage } from './sqliteImage';

/** The harness id: `baton import opencode`, and the `harness` of the sessions written. */
export const HARNESS = 'opencode';
const DB_FILE = 'opencode.db';

/** One OpenCode session, as read from the database or an export file. */
export interface OpenCodeSession {
  id: string;
  parentID?: string;
  title?: string;
  directory?: string;
  /** The agent that ran it (a task child's sub-agent type, such as `general`). */
  agent?: string;
  messages: OpenCodeMessage[];
  /** Where it was read from, for warnings. */
  origin: string;
}

export interface OpenCodeImportOptions extends ImportIo {
  /** OpenCode's data folder (holding opencode.db), an opencode.db file, a folder of `opencode export` files or one such file. */
  source: string;
  /** sql.js, for reading opencode.db (the store's loader). */
  loadSqlJs(): Promise<SqlJsStatic>;
}

export interface OpenCodeImportResult extends ImportResult {
  /** What was read: OpenCode's database, or export files. */
  format: 'database' | 'exports';
}

/** `$XDG_DATA_HOME/opencode`, else `~/.local/share/opencode` (where OpenCode keeps opencode.db). */
export function defaultOpenCodeDataDir(env: NodeJS.ProcessEnv = process.env, home = os.homedir()): string {
  return path.join(env.XDG_DATA_HOME || path.join(home, '.local', 'share'), 'opencode');
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

/** Session info as OpenCode shapes it (`Session.Info`: export files, and the database's columns mapped to it). */
function sessionFrom(info: Obj, messages: OpenCodeMessage[], origin: string): OpenCodeSession | null {
  const id = str(info.id);
  if (!id) return null;
  return { id, parentID: str(info.parentID), title: str(info.title), directory: str(info.directory), agent: str(info.agent), messages, origin };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * The write-ahead log beside the database, or null: none, or one that is not a regular file of at
 * most MAX_DATABASE_BYTES in the database's folder (skipped with a warning: the database is read
 * without it).
 */
function readWal(file: string, root: string, warn: (m: string) => void): Buffer | null {
  const wal = `${file}-wal`;
  if (!fs.lstatSync(wal, { throwIfNoEntry: false })) return null;
  try {
    return readImportFile(wal, root, MAX_DATABASE_BYTES);
  } catch (err) {
    if (!(err instanceof ImportFileError)) throw err;
    warn(`${wal}: skipped, ${err.message}; the database is read without its write-ahead log`);
    return null;
  }
}

/** Reads opencode.db (with its -wal beside it) from the bytes: nothing is written or locked. */
export async function readOpenCodeDatabase(file: string, loadSqlJs: () => Promise<SqlJsStatic>, warn: (m: string) => void): Promise<OpenCodeSession[]> {
  let db: Database;
  try {
    // The database where it really is (the folder that was named, or a symlink's target), its log beside it, as SQLite finds it.
    const real = fs.realpathSync(file);
    const root = importRoot(real);
    // Both files are capped and the image is checked against them (sqliteImage.ts): a crafted
    // header or log cannot make the import allocate more than the files hold.
    const main = readImportFile(real, root, MAX_DATABASE_BYTES);
    const wal = readWal(real, root, warn);
    const SQL = await loadSqlJs();
    db = new SQL.Database(sqliteImage(main, wal));
  } catch (err) {
    throw new BatonError('invalid_request', `${file}: cannot be read as OpenCode's database (${(err as Error).message})`);
  }
  try {
    const rows = (sql: string): Obj[] => {
      const stmt = db.prepare(sql);
      const out: Obj[] = [];
      while (stmt.step()) out.push(stmt.getAsObject());
      stmt.free();
      return out;
    };
    let sessionRows: Obj[];
    try {
      sessionRows = rows('SELECT id, parent_id, title, directory, agent FROM session ORDER BY time_created, id');
    } catch (err) {
      throw new BatonError('invalid_request', `${file}: not OpenCode's database (${(err as Error).message})`);
    }
    // Messages in the order OpenCode lists them (created, then id), parts by id, as its API does.
    const parts = new Map<string, unknown[]>();
    for (const row of rows('SELECT message_id, data FROM part ORDER BY message_id, id')) {
      const data = asObj(parseJson(String(row.data)));
      if (!data) continue; // a part OpenCode could not read either
      const list = parts.get(String(row.message_id)) ?? [];
      list.push(data);
      parts.set(String(row.message_id), list);
    }
    const messages = new Map<string, OpenCodeMessage[]>();
    for (const row of rows('SELECT id, session_id, data FROM message ORDER BY session_id, time_created, id')) {
      const info = asObj(parseJson(String(row.data)));
      if (!info) {
        warn(`${file}: message ${String(row.id)} skipped (its data is not JSON)`);
        continue;
      }
      const list = messages.get(String(row.session_id)) ?? [];
      list.push({ info: info as OpenCodeMessage['info'], parts: (parts.get(String(row.id)) ?? []) as OpenCodeMessage['parts'] });
      messages.set(String(row.session_id), list);
    }
    return sessionRows.flatMap((row) => {
      const session = sessionFrom(
        { id: row.id, parentID: row.parent_id, title: row.title, directory: row.directory, agent: row.agent },
        messages.get(String(row.id)) ?? [],
        `${file} (session ${String(row.id)})`,
      );
      return session ? [session] : [];
    });
  } finally {
    db.close();
  }
}

/** One `opencode export` document (`{info, messages: [{info, parts}]}`), or null when the file is not one. */
export function parseOpenCodeExport(text: string, origin: string): OpenCodeSession | null {
  // `opencode export` prints a status line before the JSON when stdout and stderr are merged.
  const start = text.indexOf('{');
  const doc = asObj(start >= 0 ? parseJson(text.slice(start)) : undefined);
  const info = asObj(doc?.info);
  if (!doc || !info || !Array.isArray(doc.messages)) return null;
  const messages = doc.messages.filter((m): m is OpenCodeMessage => asObj(m) !== undefined && asObj((m as Obj).info) !== undefined);
  return sessionFrom(info, messages, origin);
}

function readExports(files: string[], root: string, warn: (m: string) => void): { sessions: OpenCodeSession[]; skipped: number } {
  const sessions: OpenCodeSession[] = [];
  let skipped = 0;
  for (const file of files) {
    let session: OpenCodeSession | null;
    try {
      session = parseOpenCodeExport(readImportText(file, root), file);
    } catch (err) {
      warn(`${file}: skipped, cannot be read (${(err as Error).message})`);
      skipped++;
      continue;
    }
    if (!session) {
      warn(`${file}: skipped, not an \`opencode export\` document ({info, messages})`);
      skipped++;
    } else sessions.push(session);
  }
  return { sessions, skipped };
}

/** What `source` is: a database file, or export files (a folder's `*.json`, or one file). */
function locate(source: string): { format: 'database'; file: string } | { format: 'exports'; files: string[] } {
  const stat = fs.statSync(source, { throwIfNoEntry: false });
  if (!stat) throw new BatonError('not_found', `${source} does not exist (expected OpenCode's data folder, its ${DB_FILE}, or \`opencode export\` files)`);
  if (stat.isDirectory()) {
    const db = path.join(source, DB_FILE);
    if (fs.existsSync(db)) return { format: 'database', file: db };
    const files = fs
      .readdirSync(source)
      .filter((n) => n.endsWith('.json'))
      .sort()
      .map((n) => path.join(source, n));
    if (files.length === 0) throw new BatonError('not_found', `${source} holds neither ${DB_FILE} nor \`opencode export\` files (*.json)`);
    return { format: 'exports', files };
  }
  const head = Buffer.alloc(16);
  let opened: { fd: number };
  try {
    opened = openImportFile(source, importRoot(source), Math.max(MAX_DATABASE_BYTES, MAX_IMPORT_FILE_BYTES));
  } catch (err) {
    throw new BatonError('invalid_request', `${source}: ${(err as Error).message}`);
  }
  try {
    fs.readSync(opened.fd, head, 0, 16, 0);
  } finally {
    fs.closeSync(opened.fd);
  }
  return head.toString('latin1').startsWith('SQLite format 3') || source.endsWith('.db')
    ? { format: 'database', file: source }
    : { format: 'exports', files: [source] };
}

/** Sessions ordered so that each parent comes before its children, with their depth (0 for roots). */
export function parentsFirst(sessions: OpenCodeSession[]): Array<OpenCodeSession & { depth: number }> {
  const byId = new Map(sessions.map((s) => [s.id, s]));
  const depthOf = (s: OpenCodeSession): number => {
    let depth = 0;
    const seen = new Set([s.id]);
    for (let p = s.parentID && byId.get(s.parentID); p && !seen.has(p.id); p = p.parentID ? byId.get(p.parentID) : undefined) {
      seen.add(p.id);
      depth++;
    }
    return depth;
  };
  return sessions.map((s) => ({ ...s, depth: depthOf(s) })).sort((a, b) => a.depth - b.depth);
}

export async function importOpenCode(options: OpenCodeImportOptions): Promise<OpenCodeImportResult> {
  const source = path.resolve(options.source);
  const where = locate(source);
  const tally = importTally(source, options.onWarning);
  const result: OpenCodeImportResult = Object.assign(tally.result, { format: where.format });
  const warn = tally.warn;
  let sessions: OpenCodeSession[];
  if (where.format === 'database') sessions = await readOpenCodeDatabase(where.file, options.loadSqlJs, warn);
  else {
    const read = readExports(where.files, importRoot(source), warn);
    sessions = read.sessions;
    result.skipped += read.skipped;
  }
  const writer = await options.open();
  result.via = writer.via;
  try {
    // One at a time, parents first: a child's start finds its parent stored.
    for (const session of parentsFirst(sessions)) {
      // Exactly the list the plugin sends, as it arrives over HTTP.
      const json = JSON.stringify(slimMessages(session.messages));
      if (importedTurns(json, HARNESS, { fallbackFormat: 'messages-json' }).length === 0) {
        result.skipped++; // a session that never got a message in: nothing to show
        continue;
      }
      // Keyed and parented as the plugin keys them; a transcript over the inline limit is skipped with a warning.
      const write = {
        key: session.id,
        project: session.directory,
        title: session.title,
        ...(session.parentID ? { parentKey: session.parentID, agentType: session.agent } : {}),
        transcript: JSON.parse(json) as OpenCodeMessage[],
      };
      await writeAndCount(writer.api, HARNESS, write, session.origin, tally);
    }
  } finally {
    await writer.close();
  }
  return result;
}
