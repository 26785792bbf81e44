// The OpenCode connector: the text of the plugin `baton install opencode` writes to
// `.opencode/plugin/baton.js`. OpenCode (Bun) loads it as an ES module and calls every export,
// so the module has exactly one export, the plugin function. It maps OpenCode's events onto the
// sessions & hooks API (see FACTS: v2 event payloads, `session.created` with `info.parentID` for
// task children, handlers not serialised) and gives a child session its parent's context through
// `experimental.chat.system.transform`. Self-contained: node built-ins and fetch only.

/** First line of the generated file: how install/uninstall recognise the file as Baton's. */
export const OPENCODE_PLUGIN_MARKER = '// Baton plugin for OpenCode';

export interface OpenCodePluginOptions {
  /** Baton's data directory, fixed at install time; otherwise resolved when the plugin runs. */
  dataDir?: string;
}

export function openCodePluginSource(options: OpenCodePluginOptions = {}): string {
  // A function replacement: a `$` in the path must not be read as a replacement pattern.
  return PLUGIN.replace('__BATON_DATA_DIR__', () => JSON.stringify(options.dataDir ?? null));
}

// The plugin itself: plain JavaScript, as written to disk (only the marker and the data dir are filled in).
const PLUGIN = `${OPENCODE_PLUGIN_MARKER} (written by \`baton install opencode\`; reinstall rather than edit).
// Reports OpenCode sessions, their lineage (task children) and transcripts to the local Baton
// server, and hands each child session the "Inherited from Parent Session" block. It never throws
// into OpenCode: every failure is swallowed and noted in <data dir>/hooks.log.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const EMBEDDED_DATA_DIR = __BATON_DATA_DIR__;
const HARNESS = 'opencode';
/** Per HTTP call to Baton, and per call into OpenCode's own client. */
const TIMEOUT_MS = 1000;

function dataDir() {
  if (EMBEDDED_DATA_DIR) return EMBEDDED_DATA_DIR;
  const env = process.env;
  if (env.BATON_DATA_DIR) return path.resolve(env.BATON_DATA_DIR);
  if (env.XDG_DATA_HOME) return path.join(path.resolve(env.XDG_DATA_HOME), 'baton');
  return path.join(os.homedir(), '.local', 'share', 'baton');
}

// One line per problem; the same message at most once a minute (a stopped server is not news).
const lastLogged = new Map();
function log(event, message) {
  try {
    const text = String(message).replace(/\\s+/g, ' ').slice(0, 300);
    const now = Date.now();
    if (now - (lastLogged.get(text) ?? 0) < 60000) return;
    if (lastLogged.size > 100) lastLogged.clear();
    lastLogged.set(text, now);
    const dir = dataDir();
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.appendFileSync(path.join(dir, 'hooks.log'), new Date().toISOString() + ' ' + HARNESS + ' ' + (event || '?') + ': ' + text + '\\n', { mode: 0o600 });
  } catch {
    /* logging must not fail the hook either */
  }
}

/** An error as hooks.log names it: its class and system error code, never its message (it may quote input). */
function errClass(err) {
  if (!err || typeof err !== 'object') return typeof err;
  const name = typeof err.name === 'string' && /^[A-Za-z][A-Za-z0-9_]{0,63}$/.test(err.name) ? err.name : 'Error';
  const code = [err.code, err.cause && err.cause.code].find((c) => typeof c === 'string' && /^[A-Z][A-Z0-9_]{0,63}$/.test(c));
  return code ? name + ' ' + code : name;
}

/** endpoint.json, read again on every call: the server may have restarted with a new port and token. */
function endpoint() {
  let info;
  try {
    info = JSON.parse(fs.readFileSync(path.join(dataDir(), 'endpoint.json'), 'utf8'));
  } catch {
    return null;
  }
  if (!info || typeof info.url !== 'string' || typeof info.token !== 'string') return null;
  try {
    if (typeof info.pid === 'number') process.kill(info.pid, 0); // a left-over file of a dead server?
  } catch (err) {
    if (!err || err.code !== 'EPERM') return null; // EPERM: alive, just not ours to signal
  }
  return info;
}

// After a network failure (refused, timed out) the next calls to that endpoint are skipped for a
// moment, so one hook never waits out several timeouts in a row.
let unreachable = { url: '', until: 0 };

/** POST to Baton; the reply's JSON, or null on any failure (logged). */
async function post(route, body, event) {
  const ep = endpoint();
  if (!ep) {
    log(event, 'no running Baton endpoint for ' + dataDir());
    return null;
  }
  if (unreachable.url === ep.url && Date.now() < unreachable.until) return null;
  try {
    const res = await fetch(ep.url + route, {
      method: 'POST',
      headers: { authorization: 'Bearer ' + ep.token, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const json = await res.json().catch(() => undefined);
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
function within(promise) {
  let timer;
  const late = new Promise((resolve) => (timer = setTimeout(resolve, TIMEOUT_MS, undefined)));
  return Promise.race([Promise.resolve(promise), late]).finally(() => clearTimeout(timer));
}

/** The SDK answers { data, error }; tests and older clients may hand back the value itself. */
function unwrap(res) {
  return res && typeof res === 'object' && !Array.isArray(res) && 'data' in res ? res.data : res;
}

/** What the user typed: text parts, without the synthetic ones OpenCode or plugins add. */
function promptText(parts) {
  return (Array.isArray(parts) ? parts : [])
    .filter((p) => p && p.type === 'text' && !p.synthetic && !p.ignored && typeof p.text === 'string')
    .map((p) => p.text)
    .join('\\n\\n')
    .trim();
}

/** A message list Baton reads as OpenCode ([{info, parts}]), without what it would drop anyway. */
function slim(messages) {
  return messages.map((m) => ({
    info: { role: m.info && m.info.role, time: { created: m.info && m.info.time && m.info.time.created } },
    parts: (Array.isArray(m.parts) ? m.parts : []).flatMap((p) => {
      if (p && p.type === 'text' && !p.synthetic && !p.ignored) return [{ type: 'text', text: p.text }];
      if (p && p.type === 'tool') {
        const s = p.state || {};
        return [{ type: 'tool', tool: p.tool, state: { input: s.input, output: s.output, error: s.error } }];
      }
      return []; // reasoning, step markers, files, patches, snapshots
    }),
  }));
}

export const BatonPlugin = async ({ client, directory }) => {
  /** session id -> promise of { parentID, inject } once session-start succeeded. */
  const started = new Map();

  async function messagesOf(id) {
    try {
      const list = unwrap(await within(client.session.messages({ path: { id } })));
      return Array.isArray(list) ? slim(list) : null;
    } catch (err) {
      log('messages', errClass(err));
      return null;
    }
  }

  /** Sends the session's whole message list; Baton stores only what is new. */
  async function syncTranscript(id, event, end) {
    const list = await messagesOf(id);
    const transcript = list && list.length > 0 ? list : null;
    const body = { harness: HARNESS, sessionKey: id, project: directory, ...(transcript ? { transcript } : {}) };
    if (end) return post('/api/hooks/session-end', { ...body, ...end }, event);
    if (transcript) return post('/api/hooks/user-prompt-submit', body, event);
    return null;
  }

  async function startSession(id, info, event) {
    if (!info) {
      // chat.message (or a model request) can run before the session.created handler: ask OpenCode.
      try {
        info = unwrap(await within(client.session.get({ path: { id } })));
      } catch {
        info = undefined;
      }
    }
    info = info && typeof info === 'object' ? info : {};
    const parentID = typeof info.parentID === 'string' && info.parentID ? info.parentID : null;
    // The block is built from the parent's stored transcript: bring it up to date first.
    if (parentID) await syncTranscript(parentID, event);
    const reply = await post(
      '/api/hooks/session-start',
      { harness: HARNESS, sessionKey: id, parentSessionKey: parentID ?? undefined, project: info.directory || directory, title: info.title || undefined },
      event,
    );
    if (!reply) return null;
    return { parentID, inject: typeof reply.inject === 'string' ? reply.inject : '' };
  }

  /** Starts a session once, whichever hook sees it first; a failed start is retried next time. */
  function ensureStarted(id, info, event) {
    let pending = started.get(id);
    if (!pending) {
      pending = startSession(id, info, event).catch(() => null);
      started.set(id, pending);
      pending.then((r) => {
        if (!r && started.get(id) === pending) started.delete(id);
      });
    }
    return pending;
  }

  async function onEvent(event) {
    const props = event.properties || {};
    const id = props.sessionID || (props.info && props.info.id);
    if (typeof id !== 'string' || !id) return;
    switch (event.type) {
      case 'session.created':
        await ensureStarted(id, props.info, event.type);
        return;
      case 'session.idle':
        await ensureStarted(id, undefined, event.type);
        await syncTranscript(id, event.type);
        return;
      case 'session.error': {
        await ensureStarted(id, undefined, event.type);
        // The user pressing Esc is not a failure: keep the transcript, leave the session open.
        if (props.error && props.error.name === 'MessageAbortedError') return void (await syncTranscript(id, event.type));
        await syncTranscript(id, event.type, { status: 'failed', reason: 'error' });
        started.delete(id); // a later prompt in this session starts it again (active)
        return;
      }
      case 'session.deleted':
        await post('/api/hooks/session-end', { harness: HARNESS, sessionKey: id, project: directory, reason: 'deleted' }, event.type);
        started.delete(id);
        return;
      default:
        return;
    }
  }

  return {
    event: async ({ event }) => {
      try {
        if (event && typeof event.type === 'string') await onEvent(event);
      } catch (err) {
        log(event && event.type, errClass(err));
      }
    },

    'chat.message': async (input, output) => {
      try {
        const id = input && input.sessionID;
        if (typeof id !== 'string' || !id) return;
        await ensureStarted(id, undefined, 'chat.message');
        const userPrompt = promptText(output && output.parts);
        if (userPrompt) await post('/api/hooks/user-prompt-submit', { harness: HARNESS, sessionKey: id, project: directory, userPrompt }, 'chat.message');
      } catch (err) {
        log('chat.message', errClass(err));
      }
    },

    // Runs before every model request. A child session gets its inherited block on each of its
    // requests (the system prompt is rebuilt every time), and never twice in one request.
    'experimental.chat.system.transform': async (input, output) => {
      try {
        const id = input && input.sessionID;
        if (typeof id !== 'string' || !id || !output || !Array.isArray(output.system)) return;
        const session = await ensureStarted(id, undefined, 'system.transform');
        const block = session && session.parentID ? session.inject : '';
        if (block && !output.system.includes(block)) output.system.push(block);
      } catch (err) {
        log('system.transform', errClass(err));
      }
    },
  };
};
`;
