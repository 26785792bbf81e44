// The OpenCode plugin as OpenCode runs it: written by the real installer into a temp
// `.opencode/plugin/baton.js`, imported as an ES module, its hooks called with OpenCode v2 payloads
// and a client object answering with OpenCode's shapes ({ data } of sessions and [{info, parts}]),
// against a real Baton server (startDaemon) found through BATON_DATA_DIR/endpoint.json.

import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { INHERIT_HEADING } from '../../src/core/inherit';
import { MEMORIES_HEADING } from '../../src/core/startMemories';
import { installOpenCode, openCodePluginPath, openCodePluginSource, uninstallOpenCode } from '../../src/harnesses/openCode/install';
import { startDaemon, type Daemon } from '../../src/server/daemon';
import { writeEndpoint } from '../../src/node/endpoint';
import { readHookFirings } from '../../src/node/hookHealth';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'opencode');

type Obj = Record<string, any>;
type Hook = (...args: any[]) => Promise<void>;
type Hooks = Record<string, Hook>;

function fixture(name: string): Obj {
  return JSON.parse(fs.readFileSync(path.join(FIXTURES, name), 'utf8')) as Obj;
}

/** OpenCode's SDK client, as far as the plugin uses it; answers like the real one ({ data } or { error }). */
function fakeClient() {
  const sessions = new Map<string, Obj>();
  const messages = new Map<string, Obj[]>();
  const calls = { get: [] as string[], messages: [] as string[] };
  let getDelayMs = 0;
  const client = {
    session: {
      get: async ({ path: p }: { path: { id: string } }) => {
        calls.get.push(p.id);
        await new Promise((r) => setTimeout(r, getDelayMs));
        const info = sessions.get(p.id);
        return info ? { data: structuredClone(info) } : { error: { name: 'NotFoundError', data: { message: `Session not found: ${p.id}` } } };
      },
      messages: async ({ path: p }: { path: { id: string } }) => {
        calls.messages.push(p.id);
        return { data: structuredClone(messages.get(p.id) ?? []) };
      },
    },
  };
  return { client, sessions, messages, calls, setGetDelay: (ms: number) => (getDelayMs = ms) };
}

async function loadPlugin(file: string, fake: ReturnType<typeof fakeClient>, directory: string): Promise<{ hooks: Hooks; exports: string[] }> {
  const mod = (await import(pathToFileURL(file).href)) as Record<string, (input: unknown) => Promise<Hooks>>;
  const hooks = await mod.BatonPlugin({
    client: fake.client,
    project: { id: '4b8e1f0c2d7a9e3b5c6d8f1a2e4b7c9d0f3a5e6b', worktree: directory, vcs: 'git', time: { created: Date.now() } },
    directory,
    worktree: directory,
    serverUrl: new URL('http://127.0.0.1:4096'),
    $: undefined,
  });
  return { hooks, exports: Object.keys(mod) };
}

const model = { providerID: 'fake', modelID: 'fake-model' };
const created = (info: Obj) => ({ event: { type: 'session.created', properties: { sessionID: info.id, info } } });
const idle = (id: string) => ({ event: { type: 'session.idle', properties: { sessionID: id } } });
const chatInput = (m: Obj) => ({ sessionID: m.info.sessionID, agent: 'build', model, messageID: m.info.id });
const chatOutput = (m: Obj) => ({ message: structuredClone(m.info), parts: structuredClone(m.parts) });

async function transform(hooks: Hooks, sessionID: string, system: string[] = ['You are opencode, an interactive CLI tool.']): Promise<string[]> {
  const output = { system };
  await hooks['experimental.chat.system.transform']({ sessionID, model }, output);
  return output.system;
}

describe('OpenCode plugin (real Baton server)', function () {
  this.timeout(60_000);
  const sessionsFixture = fixture('sessions.json');
  const messagesFixture = fixture('messages.json');
  const PARENT = sessionsFixture.parent.id as string;
  const CHILD = sessionsFixture.child.id as string;
  const WARMUP = 'ses_warmup';
  let daemon: Daemon;
  let dataDir: string;
  let projectDir: string;
  let fake: ReturnType<typeof fakeClient>;
  let hooks: Hooks;
  let block: string;
  const savedEnv = process.env.BATON_DATA_DIR;

  before(async () => {
    dataDir = tempDir('baton-oc-data-');
    projectDir = tempDir('baton-oc-project-');
    daemon = await startDaemon({ dataDir, port: 0 });
    process.env.BATON_DATA_DIR = dataDir;
    // The plugin gives up on any call slower than 1 s: warm the server (worker, sql.js, journal) first,
    // so a loaded test machine does not turn its first requests into timeouts.
    const warm = (route: string, body: object) =>
      fetch(daemon.server.url + route, {
        method: 'POST',
        headers: { authorization: `Bearer ${daemon.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    await warm('/api/hooks/session-start', { harness: 'opencode', sessionKey: WARMUP, project: '/warm' });
    await warm('/api/hooks/user-prompt-submit', {
      harness: 'opencode',
      sessionKey: WARMUP,
      transcript: [{ info: { role: 'user' }, parts: [{ type: 'text', text: 'warm up' }] }],
    });
    await warm('/api/hooks/session-start', { harness: 'opencode', sessionKey: `${WARMUP}-child`, parentSessionKey: WARMUP });
    await warm('/api/hooks/session-end', { harness: 'opencode', sessionKey: `${WARMUP}-child`, status: 'failed' });
    fake = fakeClient();
    fake.sessions.set(PARENT, { ...sessionsFixture.parent, directory: projectDir });
    fake.sessions.set(CHILD, { ...sessionsFixture.child, directory: projectDir });
    const { file } = installOpenCode({ scope: 'project', projectDir });
    assert.equal(file, path.join(projectDir, '.opencode', 'plugin', 'baton.js'));
    const loaded = await loadPlugin(file, fake, projectDir);
    assert.deepEqual(loaded.exports, ['BatonPlugin'], 'OpenCode calls every export: exactly one, the plugin');
    hooks = loaded.hooks;
    assert.equal(typeof hooks.event, 'function');
    assert.equal(typeof hooks['chat.message'], 'function');
  });

  after(async () => {
    if (savedEnv === undefined) delete process.env.BATON_DATA_DIR;
    else process.env.BATON_DATA_DIR = savedEnv;
    await daemon.stop();
    cleanupTempDirs();
  });

  const session = (key: string) => daemon.store.read('getSession', { scope: 'all', key });
  /** Session keys, without the warm-up ones. */
  const ours = async () =>
    (await daemon.store.read('listSessions', { scope: 'all', limit: 100 })).sessions
      .map((x) => x.key)
      .filter((k) => !k.startsWith(WARMUP))
      .sort();
  const turns = async (key: string) => (await daemon.store.read('turns', { scope: 'all', key, from: 1, limit: 500 })).turns;

  it('records the parent session and its prompt; a root session gets no block', async () => {
    const [userMsg, toolMsg] = messagesFixture.parent as Obj[];
    await hooks.event(created(fake.sessions.get(PARENT)!));
    await hooks['chat.message'](chatInput(userMsg), chatOutput(userMsg));
    // While the parent runs its task tool, OpenCode holds its prompt and the running tool call.
    const running = structuredClone(toolMsg);
    running.parts.find((p: Obj) => p.type === 'tool').state = {
      status: 'running',
      input: running.parts.find((p: Obj) => p.type === 'tool').state.input,
      time: { start: Date.now() },
    };
    fake.messages.set(PARENT, [userMsg, running]);

    const parent = await session(PARENT);
    assert.ok(parent);
    assert.equal(parent.harness, 'opencode');
    assert.equal(parent.project, projectDir);
    assert.equal(parent.title, sessionsFixture.parent.title);
    assert.equal(parent.parentSessionKey, null);
    assert.deepEqual(
      (await turns(PARENT)).map((t) => [t.role, t.text]),
      [['user', messagesFixture.parentPrompt]],
      'only what the user typed, not the synthetic part',
    );
    assert.deepEqual(await transform(hooks, PARENT), ['You are opencode, an interactive CLI tool.']);
    // The plugin names itself and the event (x-baton-hook): the server noted when they got through.
    const fired = readHookFirings(dataDir).harnesses.opencode ?? {};
    assert.ok(fired['session.created'] && fired['chat.message'], JSON.stringify(fired));
  });

  it('starts the child with its lineage even when its chat.message runs before its session.created handler', async () => {
    const [childPrompt] = messagesFixture.child as Obj[];
    fake.setGetDelay(30);
    const getsBefore = fake.calls.get.length;
    // Not serialised (docs/harnesses.md): the child's first chat.message starts before session.created is handled.
    const chat = hooks['chat.message'](chatInput(childPrompt), chatOutput(childPrompt));
    const event = hooks.event(created(fake.sessions.get(CHILD)!));
    await Promise.all([chat, event]);
    fake.setGetDelay(0);
    assert.deepEqual(fake.calls.get.slice(getsBefore), [CHILD], 'chat.message looked the child up itself (parentID), once');

    const child = await session(CHILD);
    assert.ok(child);
    assert.equal(child.parentSessionKey, PARENT);
    assert.equal(child.lineageSource, 'explicit');
    assert.equal(child.harness, 'opencode');
    assert.deepEqual(await ours(), [CHILD, PARENT].sort());
    assert.deepEqual(
      (await turns(CHILD)).map((t) => t.text),
      [messagesFixture.childPrompt],
    );
    // The parent's running state was sent before the child started: its block holds the parent's reply so far.
    assert.ok(fake.calls.messages.includes(PARENT));
    assert.ok((await turns(PARENT)).some((t) => t.text.includes('explorer map the payment call sites')));
  });

  it("puts exactly the inherited block into the child's system prompt, once per request", async () => {
    // What a child of the parent with this child's task receives now (the parent has not changed
    // since the child started): its first prompt is its task, and the plugin asked again with it.
    assert.equal((await session(CHILD))?.task, messagesFixture.childPrompt, "the child's first prompt is stored as its task");
    const preview = await fetch(
      `${daemon.server.url}/api/sessions/${encodeURIComponent(PARENT)}/inherited?task=${encodeURIComponent(messagesFixture.childPrompt)}`,
      {
        headers: { authorization: `Bearer ${daemon.token}` },
      },
    ).then((r) => r.json() as Promise<Obj>);
    assert.equal(preview.empty, false);
    const system = await transform(hooks, CHILD);
    assert.equal(system.length, 2);
    block = system[1];
    assert.equal(block, preview.block, 'the block the server computed for this child and its task');
    assert.ok(block.includes('(for the task)'), 'chosen for the task');
    assert.ok(block.startsWith(INHERIT_HEADING));
    assert.ok(block.includes('OPENCODE-PARENT-4417'), "the block carries the parent's prompt");
    assert.ok(block.includes(`session ${PARENT}`));
    // The same request's system array again (a second plugin hook pass) does not get a second copy,
    const again = await transform(hooks, CHILD, system);
    assert.equal(again.filter((s) => s === block).length, 1);
    // and the child's next model request (the system prompt is rebuilt) gets it again, once.
    const next = await transform(hooks, CHILD);
    assert.deepEqual(next, ['You are opencode, an interactive CLI tool.', block]);
  });

  it('gives a fresh plugin instance (OpenCode restarted) the same block through a duplicate session-start', async () => {
    const other = fakeClient();
    other.sessions.set(CHILD, { ...sessionsFixture.child, directory: projectDir });
    const copy = path.join(projectDir, '.opencode', 'plugin', 'baton-copy.js');
    fs.copyFileSync(path.join(projectDir, '.opencode', 'plugin', 'baton.js'), copy);
    const { hooks: fresh } = await loadPlugin(copy, other, projectDir);
    const system = await transform(fresh, CHILD);
    assert.deepEqual(system.slice(1), [block]);
    assert.deepEqual(other.calls.get, [CHILD]);
    assert.deepEqual(await ours(), [CHILD, PARENT].sort(), 'no new session');
    fs.rmSync(copy);
  });

  it('stores the transcripts sent on session.idle, without storing a prompt twice', async () => {
    fake.messages.set(CHILD, messagesFixture.child as Obj[]);
    await hooks.event(idle(CHILD));
    const child = await turns(CHILD);
    assert.deepEqual(
      child.map((t) => t.role),
      ['user', 'tool', 'tool', 'assistant'],
    );
    assert.equal(child[0].text, messagesFixture.childPrompt);
    assert.match(child[1].text, /^grep\(\{"pattern":"stripe\\\\\.","path":"src\/checkout"\}\)$/);
    assert.match(child[3].text, /OPENCODE-CHILD-9902/);
    assert.equal(child[3].at, new Date(messagesFixture.child[1].info.time.created).toISOString(), 'OpenCode times are kept');

    fake.messages.set(PARENT, messagesFixture.parent as Obj[]);
    await hooks.event(idle(PARENT));
    const parent = await turns(PARENT);
    assert.equal(parent.filter((t) => t.role === 'user').length, 1);
    assert.deepEqual(
      parent.map((t) => t.role),
      ['user', 'assistant', 'tool', 'tool', 'assistant'],
    );
    assert.match(parent[2].text, /^task\(/);
    assert.equal(parent[4].text, 'Both Stripe call sites now go through PaymentGateway.');
    // Idle again with nothing new: nothing added.
    await hooks.event(idle(PARENT));
    assert.equal((await turns(PARENT)).length, parent.length);
    const search = await daemon.store.read('search', { scope: 'all', query: 'OPENCODE-CHILD-9902', limit: 5 });
    assert.deepEqual(
      search.map((h) => h.sessionKey),
      [CHILD],
    );
  });

  it('ends a failed child on session.error and a deleted session on session.deleted', async () => {
    await hooks.event({
      event: {
        type: 'session.error',
        properties: { sessionID: CHILD, error: { name: 'MessageAbortedError', data: { message: 'The operation was aborted.' } } },
      },
    });
    assert.equal((await session(CHILD))!.status, 'active', 'Esc is not a failure');
    await hooks.event({
      event: { type: 'session.error', properties: { sessionID: CHILD, error: { name: 'APIError', data: { message: 'upstream 500', isRetryable: false } } } },
    });
    const child = await session(CHILD);
    assert.equal(child!.status, 'failed');
    assert.equal(child!.endReason, 'error');
    await hooks.event({ event: { type: 'session.deleted', properties: { sessionID: PARENT, info: fake.sessions.get(PARENT) } } });
    const parent = await session(PARENT);
    assert.equal(parent!.status, 'ended');
    assert.equal(parent!.endReason, 'deleted');
    // A prompt after the failure (the user retries in the child) makes it active again.
    const [childPrompt] = messagesFixture.child as Obj[];
    await hooks['chat.message'](chatInput(childPrompt), {
      ...chatOutput(childPrompt),
      parts: [{ ...childPrompt.parts[0], id: 'prt_retry', text: 'try again' }],
    });
    assert.equal((await session(CHILD))!.status, 'active');
    assert.equal((await session(CHILD))!.parentSessionKey, PARENT);
    // Events without a session, or of other types, are ignored.
    await hooks.event({ event: { type: 'session.error', properties: { error: { name: 'UnknownError', data: { message: 'x' } } } } });
    await hooks.event({ event: { type: 'message.part.updated', properties: { part: {} } } });
    await hooks.event({ event: { type: 'server.connected', properties: {} } });
  });

  it('puts the memories of earlier sessions into a root session’s system prompt, and keeps them when the session starts again', async () => {
    // A project of its own, so no other test's session is told this memory.
    const project = '/repo/oc-memories';
    const root = 'ses_memroot';
    const remembered = await fetch(daemon.server.url + '/api/hooks/remember', {
      method: 'POST',
      headers: { authorization: `Bearer ${daemon.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ harness: 'opencode', content: 'we decided the otter importer reads UTF-16 input', project, type: 'decision' }),
    });
    assert.equal(remembered.status, 200);
    const info = { id: root, directory: project, title: 'memories', time: { created: Date.now(), updated: Date.now() } };
    fake.sessions.set(root, info);
    await hooks.event(created(info));
    const system = await transform(hooks, root);
    assert.equal(system.length, 2, 'a root session gets its start context too');
    assert.ok(system[1].startsWith(MEMORIES_HEADING));
    assert.match(system[1], /\n- \[decision\] we decided the otter importer reads UTF-16 input/);
    assert.equal((await transform(hooks, root, system)).length, 2, 'once per request');
    // A failure ends the session; the next prompt starts it again, and Baton tells it nothing twice
    // in the same epoch: the plugin keeps what it was told, since the system prompt is rebuilt.
    await hooks.event({ event: { type: 'session.error', properties: { sessionID: root, error: { name: 'APIError', data: { message: 'upstream 500' } } } } });
    await hooks['chat.message']({ sessionID: root, agent: 'build', model, messageID: 'msg_mem' }, { parts: [{ type: 'text', text: 'again' }] });
    assert.deepEqual(await transform(hooks, root), ['You are opencode, an interactive CLI tool.', system[1]]);
  });

  it('uses the data directory embedded at install time over $BATON_DATA_DIR', async () => {
    const dir = tempDir('baton-oc-embedded-');
    const { file } = installOpenCode({ scope: 'project', projectDir: dir, dataDir });
    assert.ok(fs.readFileSync(file, 'utf8').includes(JSON.stringify(dataDir)));
    const saved = process.env.BATON_DATA_DIR;
    process.env.BATON_DATA_DIR = tempDir('baton-oc-elsewhere-');
    try {
      const other = fakeClient();
      other.sessions.set('ses_embedded01', { id: 'ses_embedded01', directory: dir, title: 'embedded', time: { created: Date.now(), updated: Date.now() } });
      const { hooks: embedded } = await loadPlugin(file, other, dir);
      await embedded['chat.message'](
        { sessionID: 'ses_embedded01', model },
        { message: { id: 'msg_e1', sessionID: 'ses_embedded01', role: 'user' }, parts: [{ id: 'prt_e1', type: 'text', text: 'embedded data dir works' }] },
      );
    } finally {
      process.env.BATON_DATA_DIR = saved;
    }
    assert.equal((await session('ses_embedded01'))?.project, dir);
  });

  it('never throws into OpenCode when Baton is down, stale or hanging, and notes it in hooks.log', async () => {
    await daemon.stop();
    const [userMsg] = messagesFixture.parent as Obj[];
    const everyHook = async (h: Hooks, id: string) => {
      const started = Date.now();
      await h.event(created({ ...fake.sessions.get(PARENT)!, id }));
      await h['chat.message'](chatInput({ ...userMsg, info: { ...userMsg.info, sessionID: id } }), chatOutput(userMsg));
      const system = await transform(h, id);
      await h.event(idle(id));
      await h.event({ event: { type: 'session.error', properties: { sessionID: id, error: { name: 'APIError' } } } });
      await h.event({ event: { type: 'session.deleted', properties: { sessionID: id, info: { id } } } });
      return { ms: Date.now() - started, system };
    };
    // 1. No endpoint.json any more.
    const down = await everyHook(hooks, 'ses_down01');
    assert.deepEqual(down.system, ['You are opencode, an interactive CLI tool.']);
    assert.ok(down.ms < 1500, `returned in ${down.ms} ms`);
    // 2. A left-over endpoint.json naming a port nobody listens on.
    const closed = net.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const closedPort = (closed.address() as net.AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    writeEndpoint(dataDir, { url: `http://127.0.0.1:${closedPort}`, port: closedPort, pid: process.pid, token: 'stale' });
    const refused = await everyHook(hooks, 'ses_refused01');
    assert.ok(refused.ms < 3000, `returned in ${refused.ms} ms`);
    // 3. A server that accepts and never answers: each call gives up within its 1 s timeout.
    const sockets: net.Socket[] = [];
    const hang = net.createServer((s) => sockets.push(s));
    await new Promise<void>((r) => hang.listen(0, '127.0.0.1', r));
    const hangPort = (hang.address() as net.AddressInfo).port;
    writeEndpoint(dataDir, { url: `http://127.0.0.1:${hangPort}`, port: hangPort, pid: process.pid, token: 'hang' });
    try {
      const hanging = await everyHook(hooks, 'ses_hang01');
      assert.ok(hanging.ms < 4000, `returned in ${hanging.ms} ms`);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => hang.close(() => r()));
    }
    // A client that throws is survived too.
    const broken = fakeClient();
    broken.client.session.get = async () => {
      throw new Error('client exploded');
    };
    broken.client.session.messages = async () => {
      throw new Error('client exploded');
    };
    const { hooks: brokenHooks } = await loadPlugin(path.join(projectDir, '.opencode', 'plugin', 'baton.js'), broken, projectDir);
    await everyHook(brokenHooks, 'ses_broken01');
    await hooks['experimental.chat.system.transform']({ sessionID: CHILD }, undefined);
    await hooks['chat.message']({}, {});
    await hooks.event({});

    const log = fs.readFileSync(path.join(dataDir, 'hooks.log'), 'utf8');
    assert.match(log, /opencode session\.created: no running Baton endpoint/);
    assert.match(log, /ECONNREFUSED|fetch failed/);
    assert.match(log, /timeout|aborted/i);
    assert.ok(!log.includes('OPENCODE-PARENT-4417'), 'never the transcript text');
  });
});

describe('OpenCode plugin installer', () => {
  after(cleanupTempDirs);

  it('writes the plugin once (same content: no write) and uninstalls only its own file', () => {
    const projectDir = tempDir('baton-oc-install-');
    const first = installOpenCode({ scope: 'project', projectDir });
    assert.equal(first.changed, true);
    assert.equal(first.file, path.join(projectDir, '.opencode', 'plugin', 'baton.js'));
    assert.equal(fs.readFileSync(first.file, 'utf8'), openCodePluginSource({}));
    const before = fs.statSync(first.file);
    const second = installOpenCode({ scope: 'project', projectDir });
    assert.deepEqual(second, { file: first.file, changed: false });
    assert.equal(fs.statSync(first.file).mtimeMs, before.mtimeMs);
    assert.equal(fs.statSync(first.file).ino, before.ino, 'not rewritten');
    // A different data dir is a different plugin: rewritten in place.
    assert.equal(installOpenCode({ scope: 'project', projectDir, dataDir: '/srv/baton$1' }).changed, true);
    assert.ok(fs.readFileSync(first.file, 'utf8').includes('const EMBEDDED_DATA_DIR = "/srv/baton$1";'));

    const mine = path.join(projectDir, '.opencode', 'plugin', 'mine.js');
    fs.writeFileSync(mine, 'export const Mine = async () => ({});\n');
    assert.deepEqual(uninstallOpenCode({ scope: 'project', projectDir }), { file: first.file, removed: true });
    assert.equal(fs.existsSync(first.file), false);
    assert.equal(fs.existsSync(mine), true);
    assert.deepEqual(uninstallOpenCode({ scope: 'project', projectDir }), { file: first.file, removed: false });
  });

  it("puts the user-scope plugin under $XDG_CONFIG_HOME/opencode and never touches someone else's baton.js", () => {
    const config = tempDir('baton-oc-xdg-');
    const saved = process.env.XDG_CONFIG_HOME;
    process.env.XDG_CONFIG_HOME = config;
    try {
      assert.equal(openCodePluginPath({ scope: 'user' }), path.join(config, 'opencode', 'plugin', 'baton.js'));
      const { file } = installOpenCode({ scope: 'user' });
      assert.equal(file, path.join(config, 'opencode', 'plugin', 'baton.js'));
      assert.equal(uninstallOpenCode({ scope: 'user' }).removed, true);
      fs.writeFileSync(file, 'export const Baton = async () => ({});\n');
      assert.throws(() => installOpenCode({ scope: 'user' }), /not Baton's plugin/);
      assert.equal(uninstallOpenCode({ scope: 'user' }).removed, false);
      assert.equal(fs.readFileSync(file, 'utf8'), 'export const Baton = async () => ({});\n');
    } finally {
      if (saved === undefined) delete process.env.XDG_CONFIG_HOME;
      else process.env.XDG_CONFIG_HOME = saved;
    }
    assert.equal(openCodePluginPath({ scope: 'user' }, { HOME: '/home/x' }).endsWith(path.join('.config', 'opencode', 'plugin', 'baton.js')), true);
  });
});
