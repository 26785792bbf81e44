// Reads by key name the agent (docs/security.md): two agents hold one key, and every read route
// that takes a key reaches each agent's row by `agentId` — for the admin any agent's, for an agent
// token only one it may read (else 404, as for a key that does not exist). Real server on
// 127.0.0.1, real store, real tokens; and the typed client the VS Code surfaces use.

import { strict as assert } from 'node:assert';
import { BatonClient } from '../../src/client/batonClient';
import { startDaemon, type Daemon } from '../../src/server/daemon';
import { runCli } from '../helpers/child';
import { bearer, rawRequest, type RawResponse } from '../helpers/server';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';

const HARNESS = 'claude-code';
const KEY = 'shared-key';

function ok(res: RawResponse, what: string): RawResponse {
  assert.equal(res.status, 200, `${what}: expected 200, got ${res.status}: ${res.text}`);
  return res;
}

describe('reads by key name the agent (real server)', function () {
  this.timeout(60_000);
  let dataDir: string;
  let daemon: Daemon;
  let stopped = false;
  let port: number;
  const tokens: Record<string, string> = {};

  const post = (token: string, route: string, body: object) => rawRequest({ port, method: 'POST', path: route, headers: bearer(token), body });
  const get = (token: string, route: string) => rawRequest({ port, path: route, headers: bearer(token) });
  const tick = () => new Promise((r) => setTimeout(r, 15));

  /** Every read route that takes a key, with what each answer says about whose row it read. */
  const reads: Array<{ route: string; path: (agent?: string) => string; text: (json: any) => string; list?: boolean }> = [
    { route: 'GET /api/sessions/:key', path: (a) => `/api/sessions/${KEY}${a ? `?agentId=${a}` : ''}`, text: (j) => `${j.agentId} ${j.title}` },
    { route: 'GET /api/sessions/:key/transcript', path: (a) => `/api/sessions/${KEY}/transcript${a ? `?agentId=${a}` : ''}`, text: (j) => j.content },
    {
      route: 'GET /api/sessions/:key/turns',
      path: (a) => `/api/sessions/${KEY}/turns?from=1${a ? `&agentId=${a}` : ''}`,
      text: (j) => j.turns.map((t: { text: string }) => t.text).join('\n'),
    },
    { route: 'GET /api/sessions/:key/inherited', path: (a) => `/api/sessions/${KEY}/inherited${a ? `?agentId=${a}` : ''}`, text: (j) => j.block },
    {
      route: 'GET /api/sessions/:key/subagents',
      path: (a) => `/api/sessions/${KEY}/subagents${a ? `?agentId=${a}` : ''}`,
      text: (j) => j.children.map((c: { sessionKey: string }) => c.sessionKey).join(' '),
    },
    {
      route: 'GET /api/sessions?parent=KEY',
      path: (a) => `/api/sessions?parent=${KEY}${a ? `&agentId=${a}` : ''}`,
      text: (j) => j.sessions.map((s: { key: string }) => s.key).join(' '),
      list: true,
    },
    {
      route: 'GET /api/constraints?sessionKey=KEY',
      path: (a) => `/api/constraints?sessionKey=${KEY}${a ? `&agentId=${a}` : ''}`,
      text: (j) => j.constraints.map((c: { content: string }) => c.content).join('\n'),
      list: true,
    },
    {
      route: 'GET /api/entities?sessionKey=KEY',
      path: (a) => `/api/entities?sessionKey=${KEY}${a ? `&agentId=${a}` : ''}`,
      text: (j) => j.entities.map((e: { name: string }) => e.name).join('\n'),
      list: true,
    },
  ];
  /** What of each agent's row the reads show: its text and its own child. */
  const marks: Record<string, RegExp> = { default: /DEFAULT-TEXT|\/by-default/, carol: /CAROL-TEXT|\/by-carol/, mallory: /MALLORY-TEXT|\/by-mallory/ };

  before(async () => {
    dataDir = tempDir();
    daemon = await startDaemon({ dataDir, port: 0 });
    port = daemon.server.port;
    for (const [agentId, readPolicy] of [
      ['carol', 'shared'],
      ['bob', 'shared'],
      ['mallory', 'isolated'],
    ] as const)
      tokens[agentId] = ok(await post(daemon.token, '/api/tokens', { agentId, permissions: ['recall', 'remember'], readPolicy }), agentId).json.token;
    tokens.default = daemon.token;
    // The same key in three agents, the isolated one's newest; each with a child of its own.
    for (const agent of ['default', 'carol', 'mallory']) {
      const text = `${agent.toUpperCase()}-TEXT of this session`;
      ok(await post(tokens[agent], '/api/hooks/user-prompt-submit', { harness: HARNESS, sessionKey: KEY, userPrompt: text }), agent);
      ok(await post(tokens[agent], '/api/hooks/session-start', { harness: HARNESS, sessionKey: `${KEY}/by-${agent}`, parentSessionKey: KEY }), agent);
      // A rule and an entity of the session, each in its own agent (the admin names it).
      ok(await post(daemon.token, '/api/constraints', { content: `Keep ${agent.toUpperCase()}-TEXT rules`, sessionKey: KEY, agentId: agent }), agent);
      ok(await post(daemon.token, '/api/entities', { name: `${agent.toUpperCase()}-TEXT.ts`, sessionKey: KEY, agentId: agent }), agent);
      await tick();
    }
  });
  after(async () => {
    if (!stopped) await daemon.stop();
    cleanupTempDirs();
  });

  for (const read of reads) {
    it(`${read.route}: the admin reads each agent's row by agentId; without it, ${read.list ? 'every agent’s' : 'the newest'}`, async () => {
      for (const agent of ['default', 'carol', 'mallory']) {
        const shown = read.text(ok(await get(daemon.token, read.path(agent)), `${read.route} as ${agent}`).json);
        assert.match(shown, marks[agent], `${read.route} ?agentId=${agent}`);
        for (const other of Object.keys(marks).filter((a) => a !== agent)) assert.doesNotMatch(shown, marks[other], `${read.route} ?agentId=${agent}`);
      }
      const unnamed = read.text(ok(await get(daemon.token, read.path()), read.route).json);
      if (read.route === 'GET /api/sessions/:key/inherited') assert.match(unnamed, marks.default, 'the preview without an agent: the default agent’s child');
      else if (read.list) for (const agent of Object.keys(marks)) assert.match(unnamed, marks[agent], 'every agent’s, as before');
      else assert.match(unnamed, marks.mallory, 'without an agent: the newest row of the key, as documented');
    });

    it(`${read.route}: an agent token reads a shared agent's row by naming it, never an isolated agent's`, async () => {
      const carol = read.text(ok(await get(tokens.bob, read.path('carol')), `${read.route} bob→carol`).json);
      assert.match(carol, marks.carol);
      assert.doesNotMatch(carol, marks.mallory);
      if (read.list) {
        assert.equal(read.text(ok(await get(tokens.bob, read.path('mallory')), read.route).json), '', 'nothing of an isolated agent is listed');
        assert.equal(read.text(ok(await get(tokens.mallory, read.path('carol')), read.route).json), '', 'an isolated reader sees no other agent');
        return;
      }
      for (const [reader, named] of [
        ['bob', 'mallory'],
        ['carol', 'mallory'],
        ['mallory', 'carol'],
        ['bob', 'nobody'],
      ]) {
        const res = await get(tokens[reader], read.path(named));
        assert.equal(res.status, 404, `${read.route}: ${reader} naming ${named}: ${res.text}`);
        assert.doesNotMatch(res.text, /TEXT/);
      }
      // The same answer as for a key that does not exist: naming an agent reveals nothing.
      const hidden = await get(tokens.bob, read.path('mallory'));
      const missing = await get(tokens.bob, read.path('mallory').replace(KEY, 'no-such-key'));
      assert.equal(missing.status, 404);
      assert.deepEqual(
        { ...hidden.json, error: hidden.json.error.replace(KEY, 'K') },
        { ...missing.json, error: missing.json.error.replace('no-such-key', 'K') },
      );
    });
  }

  it('the typed client (as the VS Code surfaces use it) sends the agent with every read by key', async () => {
    const client = new BatonClient({ url: daemon.server.url, port, token: daemon.token, pid: process.pid });
    assert.equal((await client.getSession(KEY, 'carol'))?.agentId, 'carol');
    assert.equal((await client.getSession(KEY))?.agentId, 'mallory');
    assert.match((await client.transcript(KEY, 'default')).content, /DEFAULT-TEXT/);
    assert.match((await client.turns(KEY, 1, 10, 'carol')).turns[0].text, /CAROL-TEXT/);
    assert.match((await client.inherited(KEY, {}, 'carol')).block, /CAROL-TEXT/);
    assert.deepEqual(
      (await client.subagents(KEY, 'default')).children.map((c) => c.sessionKey),
      [`${KEY}/by-default`],
    );
    assert.deepEqual(
      (await client.listSessions({ parent: KEY, agentId: 'carol' })).sessions.map((s) => s.key),
      [`${KEY}/by-carol`],
    );
    assert.equal(await client.getSession(KEY, 'nobody'), null);
  });

  it("GET /api/sessions/summaries?sessionKey=KEY: agentId keeps each agent's summaries of the key apart", async () => {
    for (const agent of ['default', 'carol', 'mallory'])
      ok(await post(tokens[agent], '/api/hooks/session-end', { harness: HARNESS, sessionKey: KEY }), `end ${agent}`);
    const ids = async (token: string, agent?: string) =>
      ok(await get(token, `/api/sessions/summaries?sessionKey=${KEY}${agent ? `&agentId=${agent}` : ''}`), 'summaries').json.summaries.map(
        (n: { id: string }) => n.id,
      ) as string[];
    const all = await ids(daemon.token);
    const each = await Promise.all(['default', 'carol', 'mallory'].map((agent) => ids(daemon.token, agent)));
    for (const mine of each) assert.ok(mine.length > 0 && mine.length < all.length, `${mine.length} of ${all.length}`);
    assert.deepEqual(each.flat().sort(), [...all].sort(), "every summary of the key is exactly one agent's");
    assert.deepEqual(await ids(tokens.bob, 'carol'), each[1]);
    assert.deepEqual(await ids(tokens.bob, 'mallory'), [], 'nothing of an isolated agent');
  });

  it("baton transcript --agent and baton export (the built CLI) read each agent's own session of the key", async () => {
    // The CLI opens the store itself once no server runs (a synchronous child would block this one).
    await daemon.stop();
    stopped = true;
    const cli = (...args: string[]) => {
      const r = runCli([...args, '--data-dir', dataDir]);
      assert.equal(r.status, 0, r.stderr);
      return r.stdout;
    };
    assert.match(cli('transcript', KEY, '--agent', 'carol'), /^User: CAROL-TEXT/);
    assert.match(cli('transcript', KEY, '--agent', 'default'), /^User: DEFAULT-TEXT/);
    assert.match(cli('transcript', KEY), /^User: MALLORY-TEXT/, 'without --agent: the newest session of the key');
    const one = JSON.parse(cli('export', '--session', KEY, '--agent', 'carol'));
    assert.deepEqual([one.session.agentId, one.turns.map((t: { text: string }) => t.text)], ['carol', ['CAROL-TEXT of this session']]);
    // A whole export pairs every session with its own turns, also where agents share a key.
    const lines = cli('export')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { session: { key: string; agentId: string }; turns: Array<{ text: string }> });
    const ofKey = lines.filter((l) => l.session.key === KEY);
    assert.equal(ofKey.length, 3);
    for (const l of ofKey)
      assert.deepEqual(
        l.turns.map((t) => t.text),
        [`${l.session.agentId.toUpperCase()}-TEXT of this session`],
      );
  });
});
