// GitHub Copilot CLI's hook mapping (src/harnesses/copilotCli/hooks.ts) through a real server on
// 127.0.0.1 with a temp data dir: the hook inputs the real Copilot CLI 1.0.102 sent, replayed in
// their recorded order from its session log (test/fixtures/copilotCli/session-state: each
// `hook.start` record holds the event in `data.hookType` and the input in `data.input`). The log is
// written into a temp $COPILOT_HOME as Copilot CLI had written it when each hook ran, and the
// sub-agents' first prompts carry what Baton's subagentStart answered (Copilot CLI prompts a
// sub-agent with `<additionalContext>\n\n<task>`). Then the built hook command (dist/hook.js
// copilot-cli --event …) against a real daemon.

import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ApiClient, httpTransport } from '../../src/api/client';
import { INHERIT_HEADING } from '../../src/core/inherit';
import type { Obj } from '../../src/core/normalize';
import type { HookOutput, HookRun } from '../../src/harnesses/harness';
import { HookInputError } from '../../src/harnesses/claudeStyleHooks';
import { COPILOT_CLI_EVENTS, copilotCliHooks } from '../../src/harnesses/copilotCli/hooks';
import { TASK_HEADING } from '../../src/core/handedContext';
import { startDaemon, type Daemon } from '../../src/server/daemon';
import { HOOK } from '../helpers/hookProcess';
import { assertStoreUnchanged, startTestServer, storeState, type TestServer } from '../helpers/server';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';

const FIXTURE_STATE = path.join(__dirname, '..', 'fixtures', 'copilotCli', 'session-state');
const SESSION = 'b3695a2b-6c2e-4447-825a-c18dfbbd8099';
const ALPHA = '70acc7aa-5de9-403c-af7c-16d07cc478ac';
const BETA = '4e7b3cc7-a266-4603-ad03-2fc49774121f';
const GRAND = '543936b3-e117-40a5-aa83-8bee8c1de357';
/** The id Copilot CLI gives the nested sub-agent's hooks as their sessionId: used nowhere else. */
const NESTED_INTERNAL_ID = 'bd715662-3fed-4131-a849-7dcb6595c25e';
const TASKS: Record<string, string> = { [ALPHA]: 'ALPHA task NESTME', [BETA]: 'BETA task', [GRAND]: 'GRANDCHILD task do it' };
/** Where the recording's Copilot CLI kept its state, and what its hooks answered subagentStart with. */
const RECORDED_HOME = '/tmp/cpl/home/.copilot';
const RECORDED_CONTEXT = 'CTX-subagentStart-MARK\n\n';

const fixtureLines = () =>
  fs
    .readFileSync(path.join(FIXTURE_STATE, SESSION, 'events.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim());

/** One recorded hook: its line in the log, its event and its input. */
interface RecordedHook {
  line: number;
  event: string;
  input: Obj;
}

function recordedHooks(lines: string[]): RecordedHook[] {
  const hooks: RecordedHook[] = [];
  lines.forEach((text, line) => {
    const r = JSON.parse(text) as Obj;
    const data = r.data as Obj;
    if (r.type === 'hook.start' && (COPILOT_CLI_EVENTS as readonly string[]).includes(data.hookType as string))
      hooks.push({ line, event: data.hookType as string, input: data.input as Obj });
  });
  return hooks;
}

/** Turns of a stored session, as [role, text]. */
async function turnsOf(server: TestServer, key: string): Promise<string[][]> {
  return (await server.store.read('turns', { scope: 'all', key, from: 1, limit: 500 })).turns.map((t) => [t.role, t.text]);
}

describe('GitHub Copilot CLI hook mapping against a real server (recorded hook inputs replayed in order)', function () {
  this.timeout(60_000);

  let server: TestServer;
  let client: ApiClient;
  let copilotHome: string;
  let log: string;
  let savedCopilotHome: string | undefined;
  const failures: string[] = [];
  /** What each replayed hook printed, in order. */
  const outputs: Array<{ event: string; input: Obj; output: HookOutput | null }> = [];
  /** What Baton's subagentStart handed each sub-agent (its additionalContext). */
  const handed = new Map<string, string>();

  const run = (event: string): HookRun => ({ event, stepFailed: (step, err) => failures.push(`${event} ${step}: ${(err as Error).message}`) });
  const handle = (event: string, input: Obj) => copilotCliHooks.handle(input, client, run(event));
  const session = async (key: string) => server.store.read('getSession', { scope: 'all', key });

  before(async () => {
    savedCopilotHome = process.env.COPILOT_HOME;
    copilotHome = tempDir('baton-copilot-home-');
    // The hooks find a session's log under $COPILOT_HOME when the payload names none.
    process.env.COPILOT_HOME = copilotHome;
    const stateDir = path.join(copilotHome, 'session-state');
    log = path.join(stateDir, SESSION, 'events.jsonl');
    fs.mkdirSync(path.dirname(log), { recursive: true });
    server = await startTestServer({ transcriptRoots: [stateDir] });
    client = new ApiClient(httpTransport({ url: server.daemon.server.url, token: server.token }));

    const lines = fixtureLines().map((l) => l.split(RECORDED_HOME).join(copilotHome));
    for (const hook of recordedHooks(lines)) {
      // The log as Copilot CLI had written it when the hook ran: up to the hook's own start.
      fs.writeFileSync(log, lines.slice(0, hook.line + 1).join('\n') + '\n');
      const input = { ...hook.input };
      if (hook.event === 'userPromptSubmitted' && typeof input.agentId === 'string') {
        const prompt = input.prompt as string;
        assert.ok(prompt.startsWith(RECORDED_CONTEXT), prompt);
        // Copilot CLI prompts a sub-agent with what subagentStart answered, then its task; with no answer, the task alone.
        const context = handed.get(input.agentId);
        const task = prompt.slice(RECORDED_CONTEXT.length);
        input.prompt = context === undefined ? task : `${context}\n\n${task}`;
      }
      const output = await handle(hook.event, input);
      outputs.push({ event: hook.event, input, output });
      if (hook.event === 'subagentStart' && output?.additionalContext) handed.set(input.agentId as string, output.additionalContext);
    }
    fs.writeFileSync(log, lines.join('\n') + '\n');
  });

  after(async () => {
    await server?.daemon.stop();
    if (savedCopilotHome === undefined) delete process.env.COPILOT_HOME;
    else process.env.COPILOT_HOME = savedCopilotHome;
    cleanupTempDirs();
  });

  it('replays every installed event the recording holds, with no step failing', () => {
    assert.deepEqual(
      outputs.map((o) => o.event),
      [
        'sessionStart',
        'userPromptSubmitted',
        'subagentStart',
        'subagentStart',
        'userPromptSubmitted',
        'userPromptSubmitted',
        'agentStop',
        'subagentStart',
        'subagentStop',
        'userPromptSubmitted',
        'agentStop',
        'subagentStop',
        'agentStop',
        'subagentStop',
        'agentStop',
        'sessionEnd',
      ],
    );
    assert.deepEqual(failures, []);
  });

  it('keys the session by its sessionId, with its prompt and reply from the log', async () => {
    const main = (await session(SESSION))!;
    assert.equal(main.harness, 'copilot-cli');
    assert.equal(main.parentSessionKey, null);
    assert.equal(main.project, '/tmp/cpl/proj');
    const turns = await turnsOf(server, SESSION);
    assert.deepEqual(turns[0], ['user', 'Remember codename PARENTMARK. Delegate.']);
    assert.deepEqual(turns.at(-1), ['assistant', 'PARENT-FINAL']);
    assert.ok(!turns.some(([role, text]) => role === 'user' && Object.values(TASKS).includes(text)), "no sub-agent's task is the session's prompt");
  });

  it("puts alpha and beta (their agentIds) under the session, the nested one under alpha, and nothing under the nested hooks' internal sessionId", async () => {
    const alpha = (await session(ALPHA))!;
    const beta = (await session(BETA))!;
    const grand = (await session(GRAND))!;
    assert.equal(alpha.parentSessionKey, SESSION);
    assert.equal(beta.parentSessionKey, SESSION);
    assert.equal(grand.parentSessionKey, ALPHA, 'the nested sub-agent is under its spawner, not the session');
    for (const [s, id, type] of [
      [alpha, ALPHA, 'general-purpose'],
      [beta, BETA, 'explore'],
      [grand, GRAND, 'general-purpose'],
    ] as const) {
      assert.equal(s.harness, 'copilot-cli');
      assert.equal(s.harnessAgentId, id);
      assert.equal(s.harnessAgentType, type);
    }
    assert.equal(await session(NESTED_INTERNAL_ID), null, 'no session for the internal id');
    const all = (await server.store.read('listSessions', { scope: 'all', limit: 100 })).sessions;
    assert.deepEqual(all.map((s) => s.key).sort(), [SESSION, ALPHA, BETA, GRAND].sort(), 'exactly the session and its three sub-agents');
  });

  it("each child's first user turn is exactly its task (no block text), then its own work and reply", async () => {
    for (const [key, task] of Object.entries(TASKS)) {
      const turns = await turnsOf(server, key);
      assert.deepEqual(turns[0], ['user', task], `${key}'s first turn`);
      assert.ok(!turns.some(([, text]) => text.includes(INHERIT_HEADING) || text.includes(TASK_HEADING)), `${key} stores none of the block`);
      assert.equal(turns.filter(([role]) => role === 'user').length, 1, `${key}: its task is stored once`);
    }
    assert.deepEqual((await turnsOf(server, ALPHA)).at(-1), ['assistant', 'SUB-DONE']);
    assert.deepEqual(await turnsOf(server, BETA), [
      ['user', 'BETA task'],
      ['assistant', 'SUB-REPLY done HASCTX'],
    ]);
    assert.deepEqual(await turnsOf(server, GRAND), [
      ['user', 'GRANDCHILD task do it'],
      ['assistant', 'SUB-REPLY done HASCTX'],
    ]);
    for (const key of [ALPHA, BETA, GRAND]) assert.equal((await session(key))!.status, 'completed', `${key} ended at its subagentStop`);
    // The task call's prompt, read from the log at the child's start, is stored on it (the block was chosen for it).
    for (const [key, task] of Object.entries(TASKS)) assert.equal((await session(key))!.task, task, `${key}'s task`);
  });

  it('subagentStart answers a top-level additionalContext (the inherited block ending with "## Task"), the same in hookSpecificOutput', () => {
    // beta is an `explore` agent: it inherits the digest profile (docs/inheritance.md, "Profiles"),
    // empty this early in the session, so it is handed nothing and prompted with its task alone.
    assert.deepEqual([...handed.keys()], [ALPHA, GRAND], 'the general-purpose sub-agents are handed the block');
    const starts = outputs.filter((o) => o.event === 'subagentStart' && o.output !== null);
    assert.equal(starts.length, 2);
    for (const { output } of starts) {
      assert.ok(output);
      const text = output.additionalContext!;
      assert.equal(typeof text, 'string');
      assert.ok(text.startsWith(INHERIT_HEADING), text.slice(0, 80));
      assert.ok(text.endsWith(`\n\n${TASK_HEADING}`), text.slice(-80));
      assert.deepEqual(output.hookSpecificOutput, { hookEventName: 'subagentStart', additionalContext: text });
    }
    // The session's words reach its sub-agents, and alpha's own task reaches the one it started.
    assert.ok(handed.get(ALPHA)!.includes('PARENTMARK'));
    assert.ok(handed.get(GRAND)!.includes('NESTME'), handed.get(GRAND));
    // The other events hand no context in this recording but sessionStart/userPromptSubmitted may;
    // whatever they hand is at the top level too.
    for (const { output } of outputs) if (output) assert.equal(output.additionalContext, output.hookSpecificOutput.additionalContext);
  });

  it('a second sessionEnd (Copilot CLI may fire it twice) changes no turn, status, end reason, lineage or count: only when it ended', async () => {
    const end = recordedHooks(fixtureLines()).find((h) => h.event === 'sessionEnd')!;
    /** Each session as stored, without when it was last written. */
    const stored = async () => {
      const state = await storeState(server.store);
      const sessions = state.sessions.sessions.map(({ updatedAt: _u, endedAt: _e, ...rest }) => rest);
      return { sessions, stats: state.stats, turns: await turnsOf(server, SESSION) };
    };
    const before = await stored();
    assert.equal(before.sessions.find((s) => s.key === SESSION)?.status, 'ended');
    assert.equal(await handle('sessionEnd', end.input), null);
    assert.deepEqual(await stored(), before);
    assert.deepEqual(failures, []);
  });

  it('a payload without sessionId, or an event Baton does not install, is a HookInputError; nothing is stored', async () => {
    const before = await storeState(server.store);
    const start = recordedHooks(fixtureLines()).find((h) => h.event === 'subagentStart')!.input;
    const { sessionId: _dropped, ...noSession } = start;
    await assert.rejects(handle('subagentStart', noSession), (err: Error) => err instanceof HookInputError && /sessionId/.test(err.message));
    await assert.rejects(handle('sessionStart', { cwd: '/tmp/cpl/proj' }), HookInputError);
    for (const event of ['preToolUse', 'SubagentStart', 'bogus', undefined])
      await assert.rejects(
        copilotCliHooks.handle({ sessionId: SESSION, cwd: '/tmp/cpl/proj' }, client, { event, stepFailed: () => undefined }),
        (err: Error) => err instanceof HookInputError && /--event/.test(err.message),
        String(event),
      );
    await assertStoreUnchanged(server.store, before, 'rejected hook inputs');
  });
});

describe("GitHub Copilot CLI: a background sub-agent's <system_notification> prompt is not the user's", function () {
  this.timeout(60_000);
  let server: TestServer;
  let client: ApiClient;
  let savedCopilotHome: string | undefined;
  const NOTICE = '<system_notification>\nAgent scout (explore) completed. Use read_agent to read its result.\n</system_notification>';

  before(async () => {
    savedCopilotHome = process.env.COPILOT_HOME;
    process.env.COPILOT_HOME = tempDir('baton-copilot-home-');
    server = await startTestServer({ transcriptRoots: [path.join(process.env.COPILOT_HOME, 'session-state')] });
    client = new ApiClient(httpTransport({ url: server.daemon.server.url, token: server.token }));
  });
  after(async () => {
    await server?.daemon.stop();
    if (savedCopilotHome === undefined) delete process.env.COPILOT_HOME;
    else process.env.COPILOT_HOME = savedCopilotHome;
    cleanupTempDirs();
  });

  it('stores the user prompt as a user turn and the notice only as the system turn the log holds', async () => {
    const sid = 'c0ffee00-0000-4000-8000-00000000b9a0';
    const log = path.join(process.env.COPILOT_HOME!, 'session-state', sid, 'events.jsonl');
    fs.mkdirSync(path.dirname(log), { recursive: true });
    // The recording's session.start, for this session.
    const start = { ...(JSON.parse(fixtureLines()[0]) as Obj) };
    start.data = { ...(start.data as Obj), sessionId: sid, context: { cwd: '/repo' } };
    const records: Obj[] = [start];
    const at = (n: number) => `2026-11-28T12:00:0${n}.000Z`;
    const write = () => fs.writeFileSync(log, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const stepFailed: string[] = [];
    const hook = (event: string, input: Obj) => copilotCliHooks.handle(input, client, { event, stepFailed: (step) => stepFailed.push(step) });

    write();
    await hook('sessionStart', { sessionId: sid, cwd: '/repo', source: 'new', timestamp: 1 });
    // As in the recording, the prompt hook fires before the log holds the prompt.
    await hook('userPromptSubmitted', { sessionId: sid, cwd: '/repo', prompt: 'Scout the repo in the background', timestamp: 2 });
    records.push({ type: 'user.message', id: 'u1', timestamp: at(1), parentId: null, data: { content: 'Scout the repo in the background' } });
    records.push({ type: 'assistant.message', id: 'a1', timestamp: at(2), parentId: 'u1', data: { messageId: 'm1', content: 'A scout is on it.' } });
    // The background sub-agent finished: Copilot CLI writes its notice, then fires the prompt hook with it.
    records.push({ type: 'user.message', id: 'u2', timestamp: at(3), parentId: 'a1', data: { content: NOTICE } });
    write();
    assert.equal(await hook('userPromptSubmitted', { sessionId: sid, cwd: '/repo', prompt: NOTICE, timestamp: 3 }), null);

    const turns = await turnsOf(server, sid);
    assert.deepEqual(
      turns.filter(([role]) => role === 'user'),
      [['user', 'Scout the repo in the background']],
    );
    assert.ok(!turns.some(([role, text]) => role === 'user' && text.includes('system_notification')), JSON.stringify(turns));
    assert.deepEqual(turns.at(-1), ['system', NOTICE], 'the session is brought up to date from its log');
    assert.deepEqual(stepFailed, []);
  });
});

describe("GitHub Copilot CLI: a hook waits (briefly) for Copilot CLI's batched log to record its own start", function () {
  this.timeout(60_000);
  let server: TestServer;
  let client: ApiClient;
  let savedCopilotHome: string | undefined;
  let copilotHome: string;

  before(async () => {
    savedCopilotHome = process.env.COPILOT_HOME;
    copilotHome = tempDir('baton-copilot-home-');
    process.env.COPILOT_HOME = copilotHome;
    server = await startTestServer({ transcriptRoots: [path.join(copilotHome, 'session-state')] });
    client = new ApiClient(httpTransport({ url: server.daemon.server.url, token: server.token }));
  });
  after(async () => {
    await server?.daemon.stop();
    if (savedCopilotHome === undefined) delete process.env.COPILOT_HOME;
    else process.env.COPILOT_HOME = savedCopilotHome;
    cleanupTempDirs();
  });

  it("subagentStart reads the log once it holds the hook's start (the child's title from its task call); without it, the child still opens", async () => {
    const lines = fixtureLines().map((l) => l.split(RECORDED_HOME).join(copilotHome));
    const log = path.join(copilotHome, 'session-state', SESSION, 'events.jsonl');
    fs.mkdirSync(path.dirname(log), { recursive: true });
    const upTo = (line: number) => fs.writeFileSync(log, lines.slice(0, line + 1).join('\n') + '\n');
    const failures: string[] = [];
    const hook = (h: RecordedHook) => copilotCliHooks.handle(h.input, client, { event: h.event, stepFailed: (step) => failures.push(step) });
    const [sessionStart, prompt, alphaStart, betaStart] = recordedHooks(lines);
    assert.deepEqual([alphaStart.input.agentId, betaStart.input.agentId], [ALPHA, BETA]);
    upTo(sessionStart.line);
    await hook(sessionStart);
    upTo(prompt.line);
    await hook(prompt);

    // Copilot CLI has not yet written alpha's start (nor its subagent.started) when the hook runs: it does shortly after.
    const firstSubagentLine = lines.findIndex((l) => l.includes('"subagent.started"'));
    upTo(firstSubagentLine - 1);
    const answered = hook(alphaStart);
    await new Promise((resolve) => setTimeout(resolve, 120));
    upTo(alphaStart.line);
    assert.ok((await answered)?.additionalContext);
    const alpha = (await server.store.read('getSession', { scope: 'all', key: ALPHA }))!;
    assert.equal(alpha.title, 'alpha work', 'the title from the task call the log recorded after the hook began');
    assert.equal(alpha.parentSessionKey, SESSION);

    // A log that never records the hook's start: the hook gives up waiting and the child opens all the same.
    const t0 = Date.now();
    await hook(betaStart);
    assert.ok(Date.now() - t0 < 5_000, `answered within its budget (${Date.now() - t0} ms)`);
    const beta = (await server.store.read('getSession', { scope: 'all', key: BETA }))!;
    assert.equal(beta.parentSessionKey, SESSION);
    assert.equal(beta.harnessAgentType, 'explore');
    assert.deepEqual(failures, []);
  });
});

/** The built hook command as Copilot CLI runs it: `node dist/hook.js copilot-cli --event E --data-dir D`, payload on stdin. */
function runCopilotCliHook(event: string, dataDir: string, payload: unknown, env: NodeJS.ProcessEnv): Promise<{ status: number | null; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [HOOK, 'copilot-cli', '--event', event, '--data-dir', dataDir], { env: { ...process.env, ...env }, stdio: 'pipe' });
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c));
    child.stderr.resume();
    const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.on('close', (status) => {
      clearTimeout(kill);
      resolve({ status, stdout });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(JSON.stringify(payload));
  });
}

describe('the built hook command for GitHub Copilot CLI (dist/hook.js copilot-cli --event …) against a real daemon', function () {
  this.timeout(60_000);
  let dataDir: string;
  let copilotHome: string;
  let daemon: Daemon;

  before(async function () {
    assert.ok(fs.existsSync(HOOK), `${HOOK} is missing: run \`node scripts/dev/build.mjs\` first`);
    dataDir = tempDir();
    copilotHome = tempDir('baton-copilot-home-');
    daemon = await startDaemon({ dataDir, port: 0, config: { transcriptRoots: [path.join(copilotHome, 'session-state')] } });
  });
  after(async () => {
    await daemon?.stop();
    cleanupTempDirs();
  });

  it('subagentStart prints JSON with a top-level additionalContext (the inherited block, ending with "## Task")', async () => {
    const lines = fixtureLines().map((l) => l.split(RECORDED_HOME).join(copilotHome));
    const log = path.join(copilotHome, 'session-state', SESSION, 'events.jsonl');
    fs.mkdirSync(path.dirname(log), { recursive: true });
    const env = { COPILOT_HOME: copilotHome };
    const hooks = recordedHooks(lines);
    // The session's start and prompt, then alpha's start, each with the log as it was then.
    for (const hook of hooks.slice(0, 3)) {
      fs.writeFileSync(log, lines.slice(0, hook.line + 1).join('\n') + '\n');
      const r = await runCopilotCliHook(hook.event, dataDir, hook.input, env);
      assert.equal(r.status, 0, hook.event);
      if (hook.event !== 'subagentStart') continue;
      assert.equal(hook.input.agentId, ALPHA);
      assert.notEqual(r.stdout, '', `subagentStart printed its answer (hooks.log: ${readHooksLog(dataDir)})`);
      const out = JSON.parse(r.stdout) as HookOutput;
      assert.equal(typeof out.additionalContext, 'string');
      assert.ok(out.additionalContext!.startsWith(INHERIT_HEADING), out.additionalContext);
      assert.ok(out.additionalContext!.includes('PARENTMARK'), "the session's prompt is in it");
      assert.ok(out.additionalContext!.endsWith(`\n\n${TASK_HEADING}`));
      assert.deepEqual(out.hookSpecificOutput, { hookEventName: 'subagentStart', additionalContext: out.additionalContext });
    }
    const alpha = await daemon.store.read('getSession', { scope: 'all', key: ALPHA });
    assert.equal(alpha?.parentSessionKey, SESSION);
  });

  it('a payload without sessionId, or an event it does not know, exits 0 with no output and one hooks.log line', async () => {
    const before = readHooksLog(dataDir);
    const noSession = await runCopilotCliHook('sessionStart', dataDir, { cwd: '/repo', source: 'new' }, { COPILOT_HOME: copilotHome });
    assert.deepEqual(noSession, { status: 0, stdout: '' });
    const unknown = await runCopilotCliHook('preCompact', dataDir, { sessionId: SESSION, cwd: '/repo' }, { COPILOT_HOME: copilotHome });
    assert.deepEqual(unknown, { status: 0, stdout: '' });
    const added = readHooksLog(dataDir).slice(before.length).trim().split('\n');
    assert.equal(added.length, 2, added.join('\n'));
    assert.match(added[0], /copilot-cli sessionStart: sessionId: is required/);
    assert.match(added[1], /copilot-cli \S+: --event: names no Copilot CLI event Baton installs/);
  });
});

function readHooksLog(dataDir: string): string {
  try {
    return fs.readFileSync(path.join(dataDir, 'hooks.log'), 'utf8');
  } catch {
    return '';
  }
}
