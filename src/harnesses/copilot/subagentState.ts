// The sub-agents of VS Code agent mode a chat session is running, between one hook process and the
// next. VS Code's hooks say little on their own: the task is only in PreToolUse(runSubagent), the
// sub-agent's own prompt and tool calls arrive with the parent's session id. So each runSubagent
// call is noted here, one small file per call (`<data dir>/copilot/<session>/<call>.json`): parallel
// hooks never rewrite each other's notes, and a note lives from PreToolUse until the call's
// PostToolUse (stale ones are swept after a few hours). Inside the server (VS Code's payloads on
// Claude Code's HTTP hooks) the notes live in the server's own data directory, and every access is
// asynchronous: none holds the server's event loop.

import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

export type SubagentPhase = 'pending' | 'running' | 'stopped';

export interface SubagentNote {
  /** The runSubagent call id without VS Code's `__vscode-N` suffix (SubagentStart's agent_id). */
  callId: string;
  prompt?: string;
  description?: string;
  agentName?: string;
  agentType?: string;
  /** pending: the tool call was seen; running: SubagentStart opened its session; stopped: SubagentStop ended it. */
  phase: SubagentPhase;
  /** When the note was first written (ms since the epoch): orders parallel sub-agents. */
  createdAt: number;
  /** A tool hook fired while it ran beside others: whose it was is read from the transcript at its end. */
  ambiguous?: boolean;
}

/** Notes older than this belong to sub-agents whose end never reached Baton. */
const STALE_MS = 6 * 60 * 60 * 1000;

const fileName = (id: string) => Buffer.from(id, 'utf8').toString('base64url').slice(0, 200) + '.json';

export class SubagentNotes {
  private readonly dir: string;

  constructor(dataDir: string, sessionId: string) {
    this.dir = path.join(dataDir, 'copilot', fileName(sessionId).slice(0, -'.json'.length));
  }

  async get(callId: string): Promise<SubagentNote | undefined> {
    try {
      return JSON.parse(await fs.promises.readFile(path.join(this.dir, fileName(callId)), 'utf8')) as SubagentNote;
    } catch {
      return undefined;
    }
  }

  async put(note: SubagentNote): Promise<void> {
    await fs.promises.mkdir(this.dir, { recursive: true, mode: 0o700 });
    const file = path.join(this.dir, fileName(note.callId));
    const tmp = `${file}.${process.pid}.${crypto.randomUUID()}.tmp`;
    await fs.promises.writeFile(tmp, JSON.stringify(note), { mode: 0o600 });
    await fs.promises.rename(tmp, file);
  }

  /** Merges `changes` into the call's note (creating it). */
  async update(callId: string, changes: Partial<SubagentNote>): Promise<SubagentNote> {
    const before = await this.get(callId);
    const note: SubagentNote = { phase: 'pending', createdAt: Date.now(), ...before, ...dropUndefined(changes), callId };
    await this.put(note);
    return note;
  }

  async remove(callId: string): Promise<void> {
    await fs.promises.rm(path.join(this.dir, fileName(callId)), { force: true });
    try {
      await fs.promises.rmdir(this.dir); // only when empty
    } catch {
      /* other notes remain */
    }
  }

  /** Every note of the session, oldest first; stale ones are deleted on the way. */
  async all(): Promise<SubagentNote[]> {
    let names: string[];
    try {
      names = (await fs.promises.readdir(this.dir)).filter((n) => n.endsWith('.json'));
    } catch {
      return [];
    }
    const notes: SubagentNote[] = [];
    for (const name of names) {
      const file = path.join(this.dir, name);
      try {
        const note = JSON.parse(await fs.promises.readFile(file, 'utf8')) as SubagentNote;
        if (Date.now() - note.createdAt > STALE_MS) await fs.promises.rm(file, { force: true });
        else notes.push(note);
      } catch {
        /* torn or removed meanwhile */
      }
    }
    return notes.sort((a, b) => a.createdAt - b.createdAt);
  }
}

function dropUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
