// `baton import copilot` and VS Code's chat session watcher: VS Code agent mode's chat sessions
// (workspaceStorage/<hash>/chatSessions/*.jsonl, chatSessions.ts) into Baton, for chats that ran
// without Baton's hooks. Each chat session is a session keyed by its id (as the hooks key it), each
// runSubagent call a child `<session>/agent-<call id>` under it. New sessions are started with
// source `import` and ended with reason `import`; imported sessions later only get the turns they
// lack (transcripts are stored as deltas, so importing again adds nothing); sessions the
// hooks recorded live are left as they are. Not part of
// the Harness object: it is not needed by the hook command.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BatonError } from '../../core/errors';
import { importRoot, MAX_IMPORT_META_BYTES, readImportText } from '../../node/importFile';
import { subagentKey } from '../claudeStyleHooks';
import { writeImportedSession, type ImportIo } from '../sessionImport';
import { parseChatSession } from './chatSessions';
import { HARNESS } from './hooks';
import { vscodeWorkspaceStorageRoots } from './workspaceStorage';

/**
 * Baton's own chat participant (`@baton`, package.json chatParticipants): its conversations are
 * Baton sessions already, so its requests in a chat are not imported again.
 */
export const BATON_PARTICIPANT = 'baton.chat';

export interface CopilotImportOptions extends ImportIo {
  /** A chat session file, a chatSessions folder, a workspaceStorage/<hash> folder or a workspaceStorage folder; default: every known one. */
  source?: string;
}

export interface CopilotImportResult {
  sources: string[];
  via: 'server' | 'store';
  files: number;
  sessions: number;
  subagents: number;
  created: number;
  turnsAdded: number;
  skipped: number;
  warnings: string[];
}

function isDir(p: string): boolean {
  return fs.statSync(p, { throwIfNoEntry: false })?.isDirectory() === true;
}

function sessionFiles(dir: string): string[] {
  try {
    return fs
      .readdirSync(dir)
      .filter((n) => n.endsWith('.jsonl') || n.endsWith('.json'))
      .sort()
      .map((n) => path.join(dir, n));
  } catch {
    return [];
  }
}

/** The chat session files under `source` (see CopilotImportOptions.source). */
export function chatSessionFiles(source: string): string[] {
  if (!isDir(source)) return fs.existsSync(source) ? [source] : [];
  if (path.basename(source) === 'chatSessions') return sessionFiles(source);
  if (isDir(path.join(source, 'chatSessions'))) return sessionFiles(path.join(source, 'chatSessions'));
  return fs
    .readdirSync(source)
    .sort()
    .flatMap((hash) => sessionFiles(path.join(source, hash, 'chatSessions')));
}

/** The workspace folder a workspaceStorage/<hash> folder belongs to (its workspace.json), if a local one. */
export function workspaceFolderOf(chatSessionFile: string): string | undefined {
  try {
    const storage = path.dirname(path.dirname(chatSessionFile));
    const text = readImportText(path.join(storage, 'workspace.json'), importRoot(storage), MAX_IMPORT_META_BYTES);
    const meta = JSON.parse(text) as { folder?: unknown };
    return typeof meta.folder === 'string' && meta.folder.startsWith('file://') ? fileURLToPath(meta.folder) : undefined;
  } catch {
    return undefined;
  }
}

/** Imports chat session files through the API; never throws for one bad file (it is skipped with a warning). */
export async function importCopilotChatSessions(options: CopilotImportOptions): Promise<CopilotImportResult> {
  const sources = options.source ? [path.resolve(options.source)] : vscodeWorkspaceStorageRoots(process.env, os.homedir()).filter(isDir);
  if (options.source && !fs.existsSync(sources[0])) throw new BatonError('not_found', `${sources[0]} does not exist (expected a chatSessions folder or file)`);
  const result: CopilotImportResult = { sources, via: 'store', files: 0, sessions: 0, subagents: 0, created: 0, turnsAdded: 0, skipped: 0, warnings: [] };
  const warn = (message: string) => {
    result.warnings.push(message);
    options.onWarning?.(message);
  };
  // Each file is read only as a regular file under the folder it was found in (node/importFile.ts).
  const files = sources.flatMap((source) => {
    const root = importRoot(source);
    return chatSessionFiles(source).map((file) => ({ file, root }));
  });
  const access = await options.open();
  result.via = access.via;
  try {
    for (const { file, root } of files) {
      result.files++;
      try {
        const chat = parseChatSession(readImportText(file, root), path.basename(file).replace(/\.jsonl?$/, ''), [BATON_PARTICIPANT]);
        if (!chat || (chat.messages.length === 0 && chat.subagents.length === 0)) {
          result.skipped++;
          continue;
        }
        const project = workspaceFolderOf(file);
        const title = chat.title ?? chat.messages.find((m) => m.role === 'user')?.content.split('\n')[0];
        // A chat the hooks recorded live is kept as they stored it (they hold it more exactly, and render tools their own way).
        const written = await writeImportedSession(access.api, HARNESS, { key: chat.sessionId, title, project, transcript: chat.messages }, { keepLive: true });
        result.sessions++;
        result.created += written.created ? 1 : 0;
        result.turnsAdded += written.appended;
        // The hooks recorded this chat and its sub-agents (under the call ids they saw): nothing to add.
        if (written.live) continue;
        for (const s of chat.subagents) {
          const child = await writeImportedSession(
            access.api,
            HARNESS,
            {
              key: subagentKey(chat.sessionId, s.callId),
              parentKey: chat.sessionId,
              agentId: s.callId,
              agentType: s.agentName,
              title: s.description,
              project,
              status: 'completed',
              transcript: s.messages,
            },
            { keepLive: true },
          );
          result.sessions++;
          result.subagents++;
          result.created += child.created ? 1 : 0;
          result.turnsAdded += child.appended;
        }
      } catch (err) {
        warn(`${file}: skipped (${(err as Error).message})`);
        result.skipped++;
      }
    }
  } finally {
    await access.close();
  }
  return result;
}
