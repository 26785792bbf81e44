// Files a hook payload names, read by the server itself (Claude Code's HTTP hooks run the hook
// mappings inside it; docs/security.md, "Reading files a request names"): a real server on
// 127.0.0.1, real FIFOs, sparse and regular files in temp dirs, and a remember-only agent token.
// A FIFO or a huge file named in the payload must not hold the server's event loop; a file outside
// the transcript roots is never opened, and SubagentStop answers the same, as late, whether such a
// file holds the sub-agent's last message or not; the route's notes go to the server's own data
// directory.

import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { bearer, rawRequest, sleep, startTestServer, type RawResponse, type TestServer } from '../helpers/server';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';
import { meterEventLoop, mkfifo, watchFifos } from '../helpers/fifoWatch';

/** Longest the event loop may be held while a hook names a FIFO or a huge file (a generous bound: nothing in it waits on the file). */
const LOOP_BOUND_MS = 1500;
/** When the watcher releases a server blocked on a FIFO: well past the bound, so blocking code fails instead of hanging. */
const RELEASE_AFTER_MS = 4000;
/** SubagentStop waits this long for a sub-agent transcript it cannot read (claudeStyleHooks.ts: 400 ms), less a margin. */
const SETTLE_FLOOR_MS = 350;

describe('files a hook payload names (HTTP hooks, real server on 127.0.0.1)', function () {
  this.timeout(60_000);

  let s: TestServer;
  let root: string;
  let outside: string;
  let agentToken: string;

  before(async function () {
    if (process.platform === 'win32') this.skip(); // FIFOs are POSIX
    root = tempDir('baton-hookfiles-root-');
    outside = tempDir('baton-hookfiles-outside-');
    s = await startTestServer({ transcriptRoots: [root], maxTranscriptBytes: 4 * 1024 * 1024 });
    const minted = await rawRequest({
      port: s.port,
      method: 'POST',
      path: '/api/tokens',
      headers: bearer(s.token),
      body: { agentId: 'tester', permissions: ['remember'] },
    });
    assert.equal(minted.status, 200, minted.text);
    agentToken = minted.json.token;
  });
  after(async () => {
    await s?.daemon.stop();
    cleanupTempDirs();
  });

  function hook(body: object, timeoutMs = 20_000): Promise<RawResponse> {
    return rawRequest({ port: s.port, method: 'POST', path: '/api/hooks/claude-code', headers: bearer(agentToken), body, timeoutMs });
  }

  /** Sends the hook while a watcher stands ready to release a server blocked on `fifo`; the event loop's longest hold, the answer, and whether a reader was ever found. */
  async function hookNamingFifo(fifo: string, body: object): Promise<{ res: RawResponse; held: number; readers: number; health: RawResponse }> {
    const watch = watchFifos([fifo], { delayMs: RELEASE_AFTER_MS });
    const meter = meterEventLoop();
    try {
      const pending = hook(body);
      await sleep(100);
      const health = await rawRequest({ port: s.port, path: '/api/health', timeoutMs: 20_000 });
      const res = await pending;
      return { res, health, held: meter.stop(), readers: await watch.stop() };
    } finally {
      meter.stop();
    }
  }

  function assertNotHeld(r: { res: RawResponse; held: number; readers: number; health: RawResponse }, what: string): void {
    assert.equal(r.health.status, 200);
    assert.equal(r.res.status, 200, `${what}: the hook gets its answer (${r.res.text})`);
    assert.equal(r.readers, 0, `${what}: nothing ever waited to read the FIFO`);
    assert.ok(r.held < LOOP_BOUND_MS, `${what}: the event loop was held ${r.held} ms`);
  }

  it("a FIFO as SubagentStop's agent_transcript_path does not hold the server", async () => {
    const dir = path.join(root, 'proj', 'sess-a', 'subagents');
    fs.mkdirSync(dir, { recursive: true });
    const fifo = path.join(dir, 'agent-a1.jsonl');
    mkfifo(fifo);
    assert.equal((await hook({ hook_event_name: 'SubagentStart', session_id: 'sess-a', agent_id: 'a1', agent_type: 'Explore' })).status, 200);
    const r = await hookNamingFifo(fifo, {
      hook_event_name: 'SubagentStop',
      session_id: 'sess-a',
      agent_id: 'a1',
      agent_transcript_path: fifo,
      last_assistant_message: 'All done.',
    });
    assertNotHeld(r, 'agent transcript FIFO');
    assert.deepEqual(r.res.json, {});
  });

  it("a FIFO as a sub-agent's .meta.json does not hold the server", async () => {
    const dir = path.join(root, 'proj', 'sess-b', 'subagents');
    fs.mkdirSync(dir, { recursive: true });
    const transcript = path.join(dir, 'agent-b1.jsonl');
    fs.writeFileSync(transcript, JSON.stringify({ type: 'user', uuid: 'u1', isSidechain: true, message: { role: 'user', content: 'hi' } }) + '\n');
    const meta = path.join(dir, 'agent-b1.meta.json');
    mkfifo(meta);
    const r = await hookNamingFifo(meta, { hook_event_name: 'SubagentStop', session_id: 'sess-b', agent_id: 'b1', agent_transcript_path: transcript });
    assertNotHeld(r, 'meta FIFO');
  });

  it("a FIFO as a VS Code payload's transcript_path does not hold the server", async () => {
    const dir = path.join(root, 'Code', 'User', 'workspaceStorage', 'w1', 'GitHub.copilot-chat', 'transcripts');
    fs.mkdirSync(dir, { recursive: true });
    const fifo = path.join(dir, 'chat-1.jsonl');
    mkfifo(fifo);
    // Stop without a last message: VS Code's reply is looked for in the transcript.
    const r = await hookNamingFifo(fifo, { hook_event_name: 'Stop', session_id: 'vs-chat-1', transcript_path: fifo });
    assertNotHeld(r, 'VS Code transcript FIFO');
  });

  it('a 400 MB VS Code transcript_path does not hold the server (it is refused by size, not read)', async () => {
    const dir = path.join(root, 'Code', 'User', 'workspaceStorage', 'w2', 'GitHub.copilot-chat', 'transcripts');
    fs.mkdirSync(dir, { recursive: true });
    const huge = path.join(dir, 'chat-2.jsonl');
    fs.closeSync(fs.openSync(huge, 'w'));
    fs.truncateSync(huge, 400 * 1024 * 1024); // sparse: no disk used
    const meter = meterEventLoop();
    const res = await hook({ hook_event_name: 'Stop', session_id: 'vs-chat-2', transcript_path: huge });
    const held = meter.stop();
    assert.equal(res.status, 200, res.text);
    assert.ok(held < LOOP_BOUND_MS, `the event loop was held ${held} ms`);
    assert.equal((await rawRequest({ port: s.port, path: '/api/health', timeoutMs: 5000 })).status, 200);
  });

  it('SubagentStop answers the same, no sooner, whether a file outside the roots holds the last message or not, and never opens it', async () => {
    const last = 'The token is 7f3e9c21';
    const line = (text: string) =>
      JSON.stringify({ type: 'assistant', uuid: 'a1', isSidechain: true, message: { id: 'm1', role: 'assistant', content: [{ type: 'text', text }] } }) + '\n';
    const withField = path.join(outside, 'agent-o1.jsonl');
    fs.writeFileSync(withField, line(last), { mode: 0o600 });
    const withoutField = path.join(outside, 'agent-o2.jsonl');
    fs.writeFileSync(withoutField, line('something else'), { mode: 0o600 });
    const fifo = path.join(outside, 'agent-o3.jsonl');
    const metaFifo = path.join(outside, 'agent-o3.meta.json');
    mkfifo(fifo);
    mkfifo(metaFifo);

    const answers: Array<{ status: number; body: unknown; ms: number }> = [];
    for (const [agent, file] of [
      ['o1', withField],
      ['o2', withoutField],
    ]) {
      const started = Date.now();
      const res = await hook({
        hook_event_name: 'SubagentStop',
        session_id: 'sess-o',
        agent_id: agent,
        agent_transcript_path: file,
        last_assistant_message: last,
      });
      answers.push({ status: res.status, body: res.json, ms: Date.now() - started });
    }
    assert.deepEqual(
      answers.map((a) => [a.status, a.body]),
      [
        [200, {}],
        [200, {}],
      ],
    );
    for (const a of answers) assert.ok(a.ms >= SETTLE_FLOOR_MS, `answered after ${a.ms} ms: as late as for a file it cannot read`);

    // Outside the roots, a FIFO (and its meta file) is never even opened: a reader would be found at once.
    const watch = watchFifos([fifo, metaFifo], { payload: line(last) });
    try {
      const res = await hook({
        hook_event_name: 'SubagentStop',
        session_id: 'sess-o',
        agent_id: 'o3',
        agent_transcript_path: fifo,
        last_assistant_message: last,
      });
      assert.deepEqual([res.status, res.json], [200, {}]);
    } finally {
      assert.equal(await watch.stop(), 0, 'the server opened a file outside the roots');
    }
  });

  it("keeps VS Code's sub-agent notes in the server's data directory, not in the default one", async () => {
    const saved = { HOME: process.env.HOME, XDG_DATA_HOME: process.env.XDG_DATA_HOME, BATON_DATA_DIR: process.env.BATON_DATA_DIR };
    const home = tempDir('baton-hookfiles-home-');
    const xdg = tempDir('baton-hookfiles-xdg-');
    const defaultDir = tempDir('baton-hookfiles-default-');
    Object.assign(process.env, { HOME: home, XDG_DATA_HOME: xdg, BATON_DATA_DIR: defaultDir });
    try {
      const res = await hook({
        hook_event_name: 'PreToolUse',
        session_id: 'vs-notes',
        tool_name: 'runSubagent',
        tool_use_id: 'call_N1__vscode-3',
        tool_input: { prompt: 'Count the invoices', description: 'Invoices' },
      });
      assert.equal(res.status, 200, res.text);
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
    const notes = fs.readdirSync(path.join(s.dataDir, 'copilot'), { recursive: true }).map(String);
    assert.ok(
      notes.some((n) => n.endsWith('.json')),
      `a note in the server's data directory: ${notes.join(', ')}`,
    );
    for (const dir of [home, xdg, defaultDir]) assert.deepEqual(fs.readdirSync(dir), [], `nothing written under ${dir}`);
  });
});
