// The OpenCode plugin, as TypeScript: bundled by esbuild into dist/opencode-plugin.js (an ES
// module), which `baton install opencode` writes to `.opencode/plugin/baton.js` behind a short
// generated header (install.ts). OpenCode (Bun) loads it and calls every export, so the module has
// exactly one export, the plugin function. It maps OpenCode's events onto the sessions & hooks
// API (docs/harnesses.md: v2 event payloads, `session.created` with `info.parentID` for task
// children, handlers not serialised) and gives a session what its start answered (a child its
// parent's context, any session the memories of earlier ones) through
// `experimental.chat.system.transform`. Node built-ins only: the bundle carries the rest, Baton's
// data-directory resolution and the endpoint's one caller (node/endpointCall.ts: endpoint.json,
// liveness, the bounded POST, hooks.log), under the typed API client (calls by route id, bodies
// typed by the contract). It never throws into OpenCode: every failure is swallowed and noted in
// <data dir>/hooks.log.

import { ApiClient, postTransport } from '../../api/client';
import { HOOK_HEADER } from '../../api/routes';
import type { BodyIn, ResponseOf } from '../../api/schemas';
import { errorClassOf } from '../../core/errors';
import { hashText } from '../../core/hash';
import { MEMORIES_HEADING, memorySectionOf } from '../../core/startMemories';
import { EndpointProblem, liveEndpoint, logHookProblem, postJson } from '../../node/endpointCall';
import { resolveDataDir } from '../../node/paths';
import { slimMessages, type OpenCodeMessage, type OpenCodePart } from './messages';

/** Defined by the header install.ts writes: the data directory fixed at install time, or null. */
declare const EMBEDDED_DATA_DIR: string | null;

const HARNESS = 'opencode';
/** Per HTTP call to Baton, and per call into OpenCode's own client. */
const TIMEOUT_MS = 1000;

/** What a session's end adds to its body: how it ended, and the parent OpenCode named. */
type EndFields = Pick<BodyIn<'sessionEnd'>, 'status' | 'reason' | 'parentSessionKey'>;

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
interface Started {
  parentID: string | null;
  inject: string;
}
/** The routes the plugin calls, and what they answer. */
type PluginRoute = 'sessionStart' | 'userPromptSubmit' | 'sessionEnd';
type Reply = ResponseOf<PluginRoute>;

function dataDir(): string {
  const embedded = typeof EMBEDDED_DATA_DIR === 'undefined' ? null : EMBEDDED_DATA_DIR;
  return embedded || resolveDataDir();
}

// One line per problem (node/endpointCall.ts writes it); the same message at most once a minute
// (a stopped server is not news).
const lastLogged = new Map<string, number>();
function log(event: string | undefined, message: string): void {
  const now = Date.now();
  if (now - (lastLogged.get(message) ?? 0) < 60000) return;
  if (lastLogged.size > 100) lastLogged.clear();
  lastLogged.set(message, now);
  logHookProblem(dataDir(), HARNESS, event, message);
}

// After a network failure (refused, timed out) the next calls to that endpoint are skipped for a
// moment, so one hook never waits out several timeouts in a row.
let unreachable = { url: '', until: 0 };

/** The answer of a POST the server refused with 409 when the caller asked to hear it (not logged). */
const CONFLICT = 'conflict';

/**
 * Calls Baton by route id, the body typed by the contract (api/routes.ts, api/schemas.ts); the reply,
 * or null on any failure (logged); CONFLICT for a 409 when `conflictOk`. The endpoint is found again
 * on every call: the server may have restarted with a new port and token.
 */
async function post<K extends PluginRoute>(id: K, body: BodyIn<K>, event: string | undefined): Promise<ResponseOf<K> | null>;
async function post<K extends PluginRoute>(
  id: K,
  body: BodyIn<K>,
  event: string | undefined,
  conflictOk: true,
): Promise<ResponseOf<K> | null | typeof CONFLICT>;
async function post<K extends PluginRoute>(
  id: K,
  body: BodyIn<K>,
  event: string | undefined,
  conflictOk = false,
): Promise<ResponseOf<K> | null | typeof CONFLICT> {
  const ep = liveEndpoint(dataDir());
  if (!ep) {
    log(event, 'no running Baton endpoint for ' + dataDir());
    return null;
  }
  if (unreachable.url === ep.url && Date.now() < unreachable.until) return null;
  // The hook header: the server notes when OpenCode's events last got through (`baton doctor`).
  const headers = { [HOOK_HEADER]: HARNESS + ' ' + (event || 'other-event') };
  const api = new ApiClient(postTransport((route, json) => postJson(ep, route, json, { deadline: Date.now() + TIMEOUT_MS, headers })));
  try {
    return await api.call(id, { body } as { body: BodyIn<K> });
  } catch (err) {
    const answered = err instanceof EndpointProblem && err.status !== undefined;
    if (answered && err.status === 409 && conflictOk) return CONFLICT;
    if (!answered) unreachable = { url: ep.url, until: Date.now() + 2000 };
    // The problem's message names route, status and error code only: never the server's message.
    log(event, err instanceof EndpointProblem ? err.message : errorClassOf(err));
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

  /**
   * Per session: the memories it was told at its starts. Baton tells a session each memory once per
   * context epoch, so a start again (after an error) brings none of the earlier ones; yet the
   * system prompt is rebuilt for every request, so the plugin keeps them and adds them each time.
   */
  const toldMemories = new Map<string, string>();

  async function messagesOf(id: string): Promise<OpenCodeMessage[] | null> {
    try {
      const list = unwrap(await within(client.session.messages({ path: { id } })));
      return Array.isArray(list) ? slimMessages(list) : null;
    } catch (err) {
      log('messages', errorClassOf(err));
      return null;
    }
  }

  /** Per session: how many messages Baton's last reply said it covers, and the mark of the last of them. */
  const covered = new Map<string, { messages: number; mark: string }>();

  /**
   * Sends the messages Baton does not hold yet: after the point its last reply named, when that
   * message is unchanged here; else (or when Baton no longer agrees: 409) the whole list.
   */
  async function syncTranscript(id: string, event: string, end?: EndFields): Promise<Reply | null> {
    const list = await messagesOf(id);
    const transcript = list && list.length > 0 ? list : null;
    const base = { harness: HARNESS, sessionKey: id, project: directory };
    const route = end ? 'sessionEnd' : 'userPromptSubmit';
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
      'sessionStart',
      { harness: HARNESS, sessionKey: id, parentSessionKey: parentID ?? undefined, project: session.directory || directory, title: session.title || undefined },
      event,
    );
    if (!reply) return null;
    return { parentID, inject: keepMemories(id, typeof reply.inject === 'string' ? reply.inject : '') };
  }

  function keepMemories(id: string, inject: string): string {
    const section = memorySectionOf(inject);
    const rest = inject.slice(0, inject.length - section.length).trimEnd();
    const before = toldMemories.get(id);
    const told = before && section ? `${before}\n${section.slice(MEMORIES_HEADING.length + 1)}` : before || section;
    if (told) toldMemories.set(id, told);
    return [rest, told].filter(Boolean).join('\n\n');
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

  /** Children whose block was chosen again for their task (their first prompt). */
  const tasked = new Set<string>();

  /**
   * A task sub-agent's first prompt is its task: the block it was answered at its start (before
   * OpenCode sent the prompt) is asked for again with that task, so the parent's turns in it are
   * chosen for what the child was asked (docs/inheritance.md, "The child's task"). Before its first
   * model request: the system transform adds whichever block is held then.
   */
  async function chooseForTask(id: string, session: Started, task: string, event: string): Promise<void> {
    if (!session.parentID || tasked.has(id)) return;
    tasked.add(id);
    const reply = await post(
      'sessionStart',
      { harness: HARNESS, sessionKey: id, parentSessionKey: session.parentID, project: directory, task: task.slice(0, 20_000), injectMemories: false },
      event,
    );
    if (reply && typeof reply.inject === 'string') started.set(id, Promise.resolve({ parentID: session.parentID, inject: keepMemories(id, reply.inject) }));
  }

  /** The parent OpenCode named at start, repeated at the end: a changed parent is re-recorded ('opencode-parent'). */
  async function parentOf(id: string): Promise<Pick<EndFields, 'parentSessionKey'>> {
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
        await post('sessionEnd', { harness: HARNESS, sessionKey: id, project: directory, reason: 'deleted', ...(await parentOf(id)) }, type);
        started.delete(id);
        toldMemories.delete(id);
        tasked.delete(id);
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
        log(event && event.type, errorClassOf(err));
      }
    },

    'chat.message': async (input: { sessionID?: string } | undefined, output: { parts?: unknown } | undefined): Promise<void> => {
      try {
        const id = input && input.sessionID;
        if (typeof id !== 'string' || !id) return;
        const session = await ensureStarted(id, undefined, 'chat.message');
        const userPrompt = promptText(output && output.parts);
        if (userPrompt) await post('userPromptSubmit', { harness: HARNESS, sessionKey: id, project: directory, userPrompt }, 'chat.message');
        if (userPrompt && session) await chooseForTask(id, session, userPrompt, 'chat.message');
      } catch (err) {
        log('chat.message', errorClassOf(err));
      }
    },

    // Runs before every model request. A session gets what its start answered (a child its inherited
    // block; any session the memories of earlier sessions) on each of its requests (the system
    // prompt is rebuilt every time), and never twice in one request.
    'experimental.chat.system.transform': async (input: { sessionID?: string } | undefined, output: { system?: unknown } | undefined): Promise<void> => {
      try {
        const id = input && input.sessionID;
        if (typeof id !== 'string' || !id || !output || !Array.isArray(output.system)) return;
        const system = output.system as string[];
        const session = await ensureStarted(id, undefined, 'system.transform');
        const block = session ? session.inject : '';
        if (block && !system.includes(block)) system.push(block);
      } catch (err) {
        log('system.transform', errorClassOf(err));
      }
    },
  };
};
