// The OpenCode plugin, as TypeScript: bundled by esbuild into dist/opencode-plugin.js (an ES
// module), which `baton install opencode` writes to `.opencode/plugin/baton.js` behind a short
// generated header (install.ts). OpenCode (Bun) loads it and calls every export, so the module has
// exactly one export, the plugin function. It maps OpenCode's events onto the sessions & hooks
// API (docs/harnesses.md: v2 event payloads, `session.created` with `info.parentID` for task
// children, handlers not serialised) and gives a child session its parent's context through
// `experimental.chat.system.transform`. Node built-ins and fetch only: the bundle carries the rest
// (Baton's own data-directory resolution). It never throws into OpenCode: every failure is
// swallowed and noted in <data dir>/hooks.log.

import { HOOK_HEADER, ROUTES } from '../../api/routes';
import { hashText } from '../../core/hash';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { layout, resolveDataDir } from '../../node/paths';
import { slimMessages, type OpenCodeMessage, type OpenCodePart } from './messages';

/** Defined by the header install.ts writes: the data directory fixed at install time, or null. */
declare const EMBEDDED_DATA_DIR: string | null;

const HARNESS = 'opencode';
/** Per HTTP call to Baton, and per call into OpenCode's own client. */
const TIMEOUT_MS = 1000;

type Obj = Record<string, unknown>;

// OpenCode's shapes, as far as the plugin reads them (v2 SDK; docs/harnesses.md).
interface SessionInfo {
  id?: string;
  parentID?: string;
  directory?: string;
  title?: string;
}
interface OpenCodeEvent {
  type?: string;
  properties?: { sessionID?: string; info?: SessionInfo; error?: { name?: string } };
}
/** The SDK answers { data, error }; tests and older clients may hand back the value itself. */
type Answer<T> = T | { data?: T; error?: unknown };
interface OpenCodeClient {
  session: {
    get(args: { path: { id: string } }): Promise<Answer<SessionInfo>>;
    messages(args: { path: { id: string } }): Promise<Answer<OpenCodeMessage[]>>;
  };
}
interface PluginInput {
  client: OpenCodeClient;
  directory: string;
}
interface Endpoint {
  url: string;
  token: string;
  pid?: number;
}
interface Started {
  parentID: string | null;
  inject: string;
}
type Reply = Obj & { inject?: unknown; error?: unknown };

function dataDir(): string {
  const embedded = typeof EMBEDDED_DATA_DIR === 'undefined' ? null : EMBEDDED_DATA_DIR;
  return embedded || resolveDataDir();
}

// One line per problem; the same message at most once a minute (a stopped server is not news).
const lastLogged = new Map<string, number>();
function log(event: string | undefined, message: unknown): void {
  try {
    const text = String(message).replace(/\s+/g, ' ').slice(0, 300);
    const now = Date.now();
    if (now - (lastLogged.get(text) ?? 0) < 60000) return;
    if (lastLogged.size > 100) lastLogged.clear();
    lastLogged.set(text, now);
    const dir = dataDir();
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.appendFileSync(path.join(dir, 'hooks.log'), new Date().toISOString() + ' ' + HARNESS + ' ' + (event || '?') + ': ' + text + '\n', { mode: 0o600 });
  } catch {
    /* logging must not fail the hook either */
  }
}

/** An error as hooks.log names it: its class and system error code, never its message (it may quote input). */
function errClass(err: unknown): string {
  if (!err || typeof err !== 'object') return typeof err;
  const e = err as { name?: unknown; code?: unknown; cause?: { code?: unknown } };
  const name = typeof e.name === 'string' && /^[A-Za-z][A-Za-z0-9_]{0,63}$/.test(e.name) ? e.name : 'Error';
  const code = [e.code, e.cause && e.cause.code].find((c): c is string => typeof c === 'string' && /^[A-Z][A-Z0-9_]{0,63}$/.test(c));
  return code ? name + ' ' + code : name;
}

/** endpoint.json, read again on every call: the server may have restarted with a new port and token. */
function endpoint(): Endpoint | null {
  let info: Partial<Endpoint> | null;
  try {
    info = JSON.parse(fs.readFileSync(layout(dataDir()).endpoint, 'utf8')) as Partial<Endpoint> | null;
  } catch {
    return null;
  }
  if (!info || typeof info.url !== 'string' || typeof info.token !== 'string') return null;
  try {
    if (typeof info.pid === 'number') process.kill(info.pid, 0); // a left-over file of a dead server?
  } catch (err) {
    if (!err || (err as NodeJS.ErrnoException).code !== 'EPERM') return null; // EPERM: alive, just not ours to signal
  }
  return info as Endpoint;
}

// After a network failure (refused, timed out) the next calls to that endpoint are skipped for a
// moment, so one hook never waits out several timeouts in a row.
let unreachable = { url: '', until: 0 };

/** The answer of a POST the server refused with 409 when the caller asked to hear it (not logged). */
const CONFLICT = 'conflict';

/** POST to Baton; the reply's JSON, or null on any failure (logged); CONFLICT for a 409 when `conflictOk`. */
async function post(route: string, body: Obj, event: string | undefined): Promise<Reply | null>;
async function post(route: string, body: Obj, event: string | undefined, conflictOk: true): Promise<Reply | null | typeof CONFLICT>;
async function post(route: string, body: Obj, event: string | undefined, conflictOk = false): Promise<Reply | null | typeof CONFLICT> {
  const ep = endpoint();
  if (!ep) {
    log(event, 'no running Baton endpoint for ' + dataDir());
    return null;
  }
  if (unreachable.url === ep.url && Date.now() < unreachable.until) return null;
  try {
    const res = await fetch(ep.url + route, {
      method: 'POST',
      // The hook header: the server notes when OpenCode's events last got through (`baton doctor`).
      headers: { authorization: 'Bearer ' + ep.token, 'content-type': 'application/json', [HOOK_HEADER]: HARNESS + ' ' + (event || 'other-event') },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const json = (await res.json().catch(() => undefined)) as Reply | undefined;
    if (res.status === 409 && conflictOk) return CONFLICT;
    if (!res.ok) {
      // The server's stable error code only: its message may quote what was sent.
      const code = json && typeof json.code === 'string' && /^[a-z_]{1,40}$/.test(json.code) ? ' ' + json.code : '';
      log(event, route + ': HTTP ' + res.status + code);
      return null;
    }
    if (!json || typeof json !== 'object' || Array.isArray(json)) {
      log(event, route + ': HTTP ' + res.status + ' but the reply is not a JSON object');
      return null;
    }
    return json;
  } catch (err) {
    unreachable = { url: ep.url, until: Date.now() + 2000 };
    log(event, route + ': ' + errClass(err));
    return null;
  }
}

/** A promise, or undefined after TIMEOUT_MS (OpenCode's client must not hold a hook up either). */
function within<T>(promise: Promise<T> | T): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(resolve, TIMEOUT_MS, undefined)));
  return Promise.race([Promise.resolve(promise), late]).finally(() => clearTimeout(timer));
}

function unwrap<T>(res: Answer<T> | undefined): T | undefined {
  return res && typeof res === 'object' && !Array.isArray(res) && 'data' in res ? (res as { data?: T }).data : (res as T | undefined);
}

/** What the user typed: text parts, without the synthetic ones OpenCode or plugins add. */
function promptText(parts: unknown): string {
  return (Array.isArray(parts) ? (parts as OpenCodePart[]) : [])
    .filter((p) => p && p.type === 'text' && !p.synthetic && !p.ignored && typeof p.text === 'string')
    .map((p) => p.text)
    .join('\n\n')
    .trim();
}

export const BatonPlugin = async ({ client, directory }: PluginInput) => {
  /** session id -> promise of { parentID, inject } once session-start succeeded. */
  const started = new Map<string, Promise<Started | null>>();

  async function messagesOf(id: string): Promise<OpenCodeMessage[] | null> {
    try {
      const list = unwrap(await within(client.session.messages({ path: { id } })));
      return Array.isArray(list) ? slimMessages(list) : null;
    } catch (err) {
      log('messages', errClass(err));
      return null;
    }
  }

  /** Per session: how many messages Baton's last reply said it covers, and the mark of the last of them. */
  const covered = new Map<string, { messages: number; mark: string }>();

  /**
   * Sends the messages Baton does not hold yet: after the point its last reply named, when that
   * message is unchanged here; else (or when Baton no longer agrees: 409) the whole list.
   */
  async function syncTranscript(id: string, event: string, end?: Obj): Promise<Reply | null> {
    const list = await messagesOf(id);
    const transcript = list && list.length > 0 ? list : null;
    const base = { harness: HARNESS, sessionKey: id, project: directory };
    const route = end ? ROUTES.sessionEnd.path : ROUTES.userPromptSubmit.path;
    if (!transcript && !end) return null;
    const known = covered.get(id);
    let reply: Reply | null | typeof CONFLICT = CONFLICT;
    if (
      transcript &&
      known &&
      known.messages > 0 &&
      transcript.length >= known.messages &&
      hashText(JSON.stringify(transcript[known.messages - 1])) === known.mark
    ) {
      reply = await post(route, { ...base, ...end, transcript: transcript.slice(known.messages), transcriptFrom: known }, event, true);
    }
    if (reply === CONFLICT) reply = await post(route, { ...base, ...end, ...(transcript ? { transcript } : {}) }, event);
    const cursor = reply && (reply.transcriptCursor as { messages?: unknown; mark?: unknown } | undefined);
    if (cursor && typeof cursor.messages === 'number' && typeof cursor.mark === 'string') covered.set(id, { messages: cursor.messages, mark: cursor.mark });
    else covered.delete(id);
    return reply;
  }

  async function startSession(id: string, given: SessionInfo | undefined, event: string): Promise<Started | null> {
    let info: unknown = given;
    if (!info) {
      // chat.message (or a model request) can run before the session.created handler: ask OpenCode.
      try {
        info = unwrap(await within(client.session.get({ path: { id } })));
      } catch {
        info = undefined;
      }
    }
    const session: SessionInfo = info && typeof info === 'object' ? (info as SessionInfo) : {};
    const parentID = typeof session.parentID === 'string' && session.parentID ? session.parentID : null;
    // The block is built from the parent's stored transcript: bring it up to date first.
    if (parentID) await syncTranscript(parentID, event);
    const reply = await post(
      ROUTES.sessionStart.path,
      { harness: HARNESS, sessionKey: id, parentSessionKey: parentID ?? undefined, project: session.directory || directory, title: session.title || undefined },
      event,
    );
    if (!reply) return null;
    return { parentID, inject: typeof reply.inject === 'string' ? reply.inject : '' };
  }

  /** Starts a session once, whichever hook sees it first; a failed start is retried next time. */
  function ensureStarted(id: string, info: SessionInfo | undefined, event: string): Promise<Started | null> {
    let pending = started.get(id);
    if (!pending) {
      const attempt = startSession(id, info, event).catch(() => null);
      pending = attempt;
      started.set(id, attempt);
      void attempt.then((r) => {
        if (!r && started.get(id) === attempt) started.delete(id);
      });
    }
    return pending;
  }

  /** The parent OpenCode named at start, repeated at the end: a changed parent is re-recorded ('opencode-parent'). */
  async function parentOf(id: string): Promise<Obj> {
    const session = await started.get(id);
    return session && session.parentID ? { parentSessionKey: session.parentID } : {};
  }

  async function onEvent(event: OpenCodeEvent): Promise<void> {
    const props = event.properties || {};
    const id = props.sessionID || (props.info && props.info.id);
    if (typeof id !== 'string' || !id) return;
    const type = String(event.type);
    switch (type) {
      case 'session.created':
        await ensureStarted(id, props.info, type);
        return;
      case 'session.idle':
        await ensureStarted(id, undefined, type);
        await syncTranscript(id, type);
        return;
      case 'session.error': {
        await ensureStarted(id, undefined, type);
        // The user pressing Esc is not a failure: keep the transcript, leave the session open.
        if (props.error && props.error.name === 'MessageAbortedError') return void (await syncTranscript(id, type));
        await syncTranscript(id, type, { status: 'failed', reason: 'error', ...(await parentOf(id)) });
        started.delete(id); // a later prompt in this session starts it again (active)
        return;
      }
      case 'session.deleted':
        await post(ROUTES.sessionEnd.path, { harness: HARNESS, sessionKey: id, project: directory, reason: 'deleted', ...(await parentOf(id)) }, type);
        started.delete(id);
        return;
      default:
        return;
    }
  }

  return {
    event: async ({ event }: { event?: OpenCodeEvent }): Promise<void> => {
      try {
        if (event && typeof event.type === 'string') await onEvent(event);
      } catch (err) {
        log(event && event.type, errClass(err));
      }
    },

    'chat.message': async (input: { sessionID?: string } | undefined, output: { parts?: unknown } | undefined): Promise<void> => {
      try {
        const id = input && input.sessionID;
        if (typeof id !== 'string' || !id) return;
        await ensureStarted(id, undefined, 'chat.message');
        const userPrompt = promptText(output && output.parts);
        if (userPrompt) await post(ROUTES.userPromptSubmit.path, { harness: HARNESS, sessionKey: id, project: directory, userPrompt }, 'chat.message');
      } catch (err) {
        log('chat.message', errClass(err));
      }
    },

    // Runs before every model request. A child session gets its inherited block on each of its
    // requests (the system prompt is rebuilt every time), and never twice in one request.
    'experimental.chat.system.transform': async (input: { sessionID?: string } | undefined, output: { system?: unknown } | undefined): Promise<void> => {
      try {
        const id = input && input.sessionID;
        if (typeof id !== 'string' || !id || !output || !Array.isArray(output.system)) return;
        const system = output.system as string[];
        const session = await ensureStarted(id, undefined, 'system.transform');
        const block = session && session.parentID ? session.inject : '';
        if (block && !system.includes(block)) system.push(block);
      } catch (err) {
        log('system.transform', errClass(err));
      }
    },
  };
};
