// POST /api/sessions/:key/archive over real HTTP on 127.0.0.1, with the real store on disk
// (docs/archival.md, "Headless archival"): a range of a session's turns goes whole into a new
// holder session under it, the session gets the marker, nothing is lost (also after a restart),
// bad ranges are 400 with a JSON error, and the write is scoped to the caller's agent like every
// other write (docs/security.md, "Sessions belong to their agent").

import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startDaemon, type Daemon } from '../../src/server/daemon';
import { assertStoreUnchanged, bearer, rawRequest, storeState, type RawResponse } from '../helpers/server';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';

const TRANSCRIPT = [
  { role: 'user', content: 'Find the auth handler' },
  { role: 'assistant', content: 'It is in src/auth/handler.ts, line 42.' },
  { role: 'user', content: 'ok' },
  { role: 'assistant', content: 'ok' },
  { role: 'user', content: 'ok' },
  { role: 'assistant', content: 'Added validation to the login form in src/login.ts.' },
];

describe('POST /api/sessions/:key/archive (real server, real store)', function () {
  this.timeout(60_000);
  let dataDir: string;
  let daemon: Daemon;
  let port: number;
  let admin: string;

  const post = (token: string, path: string, body: object): Promise<RawResponse> => rawRequest({ port, method: 'POST', path, headers: bearer(token), body });
  const get = (token: string, path: string): Promise<RawResponse> => rawRequest({ port, path, headers: bearer(token) });
  const ok = (res: RawResponse, what: string): RawResponse => {
    assert.equal(res.status, 200, `${what}: expected 200, got ${res.status}: ${res.text}`);
    return res;
  };
  const turnsOf = async (token: string, key: string) =>
    (
      ok(await get(token, `/api/sessions/${encodeURIComponent(key)}/turns?limit=500`), `turns of ${key}`).json.turns as Array<{
        seq: number;
        role: string;
        text: string;
      }>
    ).map((t) => [t.seq, t.role, t.text]);

  async function seed(token: string, key: string): Promise<void> {
    ok(await post(token, '/api/hooks/session-start', { harness: 'claude-code', sessionKey: key, project: '/repo' }), 'start');
    ok(await post(token, '/api/hooks/user-prompt-submit', { harness: 'claude-code', sessionKey: key, transcript: TRANSCRIPT }), 'transcript');
  }

  before(async () => {
    dataDir = tempDir('baton-archive-');
    daemon = await startDaemon({ dataDir, port: 0, config: {} });
    port = daemon.server.port;
    admin = daemon.token;
  });

  after(async () => {
    await daemon?.stop();
    cleanupTempDirs();
  });

  it('moves turns 3-6 into holder-1 under the session, whole (repeats included), and leaves the marker with the summary', async () => {
    await seed(admin, 'parent-a');
    const before = await turnsOf(admin, 'parent-a');
    const res = ok(await post(admin, '/api/sessions/parent-a/archive', { from: 3, to: 6, summary: 'Validated the login form.' }), 'archive');
    assert.deepEqual(res.json, {
      sessionKey: 'parent-a',
      holderKey: 'parent-a/holder-1',
      from: 3,
      to: 6,
      archived: 4,
      marker: '[archived turn]\nsubagent_id: parent-a/holder-1\n\nValidated the login form.',
      transcriptPath: 'agents/subagent-parent-a_holder-1/sessions/parent-a_holder-1.jsonl',
    });

    // The holder: a child of the session, typed holder, holding exactly the range (the two "ok" pairs too).
    const holder = ok(await get(admin, '/api/sessions/parent-a%2Fholder-1'), 'holder').json;
    assert.equal(holder.parentSessionKey, 'parent-a');
    assert.equal(holder.harnessAgentType, 'holder');
    assert.equal(holder.project, '/repo');
    assert.deepEqual(
      (await turnsOf(admin, 'parent-a/holder-1')).map(([, role, text]) => [role, text]),
      before.slice(2, 6).map(([, role, text]) => [role, text]),
    );
    const children = ok(await get(admin, '/api/sessions?parent=parent-a'), 'children').json.sessions.map((s: { key: string }) => s.key);
    assert.deepEqual(children, ['parent-a/holder-1']);

    // The session keeps every turn it had, plus the marker as one System turn.
    const after = await turnsOf(admin, 'parent-a');
    assert.deepEqual(after.slice(0, 6), before);
    assert.deepEqual(after.slice(6), [[7, 'system', res.json.marker]]);

    // A second archive takes the next holder number; without a summary it gets a deterministic one.
    const second = ok(await post(admin, '/api/sessions/session:parent-a/archive', { from: 1, to: 2 }), 'second archive');
    assert.equal(second.json.holderKey, 'parent-a/holder-2');
    assert.match(second.json.marker, /^\[archived turn\]\nsubagent_id: parent-a\/holder-2\n\noutcome: It is in src\/auth\/handler\.ts, line 42\.\n/);
    assert.match(second.json.marker, /key_findings:\n- Asked: Find the auth handler\n/);
    assert.match(second.json.marker, /files_touched:\n- src\/auth\/handler\.ts/);
  });

  it('keeps everything across a restart (the journal replays the archive)', async () => {
    const holderBefore = await turnsOf(admin, 'parent-a/holder-1');
    const parentBefore = await turnsOf(admin, 'parent-a');
    await daemon.stop();
    daemon = await startDaemon({ dataDir, port: 0, config: {} });
    port = daemon.server.port;
    admin = daemon.token;
    assert.deepEqual(await turnsOf(admin, 'parent-a/holder-1'), holderBefore);
    assert.deepEqual(await turnsOf(admin, 'parent-a'), parentBefore);
    // The holder's turns are searchable like any transcript.
    const hits = ok(await post(admin, '/api/sessions/search', { query: 'validation login' }), 'search').json.hits.map(
      (h: { sessionKey: string }) => h.sessionKey,
    );
    assert.ok(hits.includes('parent-a/holder-1'), JSON.stringify(hits));
  });

  it('answers 400 with a JSON error for a bad range, 404 for an unknown session, 409 for a taken holder key, and changes nothing', async () => {
    await seed(admin, 'parent-b');
    const state = await storeState(daemon.store);
    const bad: Array<[object, RegExp]> = [
      [{ from: 0, to: 2 }, /^range: from must be 1 or more/],
      [{ from: 4, to: 3 }, /^range: to \(3\) must not be before from \(4\)/],
      [{ from: 5, to: 7 }, /^range: to \(7\) is past the session's last turn \(6\)/],
      [{ from: 1 }, /^to/],
      [{ from: 1.5, to: 2 }, /^from/],
      [{ from: '1', to: 2 }, /^from/],
    ];
    for (const [body, message] of bad) {
      const res = await post(admin, '/api/sessions/parent-b/archive', body);
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
      assert.match(res.headers['content-type'] ?? '', /application\/json/);
      assert.match(res.json.error, message, JSON.stringify(body));
    }
    const missing = await post(admin, '/api/sessions/no-such-session/archive', { from: 1, to: 1 });
    assert.equal(missing.status, 404, missing.text);
    assert.match(missing.json.error, /session no-such-session not found/);
    const taken = await post(admin, '/api/sessions/parent-b/archive', { from: 1, to: 2, holderKey: 'parent-a' });
    assert.equal(taken.status, 409, taken.text);
    assert.match(taken.json.error, /holderKey: session parent-a already exists/);
    await assertStoreUnchanged(daemon.store, state, 'rejected archives');
  });

  it('is scoped to the caller agent: another agent cannot archive (or see) a session it does not own; a recall-only token cannot write', async () => {
    const tokenFor = async (agentId: string, permissions: string[]) =>
      ok(await post(admin, '/api/tokens', { agentId, permissions, readPolicy: 'isolated' }), `token ${agentId}`).json.token as string;
    const alice = await tokenFor('alice', ['remember', 'recall']);
    const mallory = await tokenFor('mallory', ['remember', 'recall']);
    const reader = await tokenFor('reader', ['recall']);
    await seed(alice, 'shared-key');
    const state = await storeState(daemon.store);

    const foreign = await post(mallory, '/api/sessions/shared-key/archive', { from: 1, to: 2 });
    assert.equal(foreign.status, 404, foreign.text);
    const readOnly = await post(reader, '/api/sessions/shared-key/archive', { from: 1, to: 2 });
    assert.equal(readOnly.status, 403, readOnly.text);
    // Naming the other agent in the body does not help an agent token.
    const named = await post(mallory, '/api/sessions/shared-key/archive', { from: 1, to: 2, agentId: 'alice' });
    assert.ok(named.status === 403 || named.status === 404, `${named.status}: ${named.text}`);
    await assertStoreUnchanged(daemon.store, state, "another agent's archive");

    // The owner archives; the holder is the owner's, invisible to the isolated other agent.
    const own = ok(await post(alice, '/api/sessions/shared-key/archive', { from: 1, to: 4 }), 'own archive');
    assert.equal(own.json.holderKey, 'shared-key/holder-1');
    assert.equal((await turnsOf(alice, 'shared-key/holder-1')).length, 4);
    assert.equal((await get(mallory, '/api/sessions/shared-key%2Fholder-1')).status, 404);
    const holder = ok(await get(admin, `/api/sessions/shared-key%2Fholder-1`), 'holder as admin').json;
    assert.equal(holder.agentId, 'alice');

    // The admin acts for the default agent, which has no such session, unless it names the owner.
    assert.equal((await post(admin, '/api/sessions/shared-key/archive', { from: 5, to: 6 })).status, 404);
    const forAlice = ok(await post(admin, '/api/sessions/shared-key/archive', { from: 5, to: 6, agentId: 'alice' }), 'admin for alice');
    assert.equal(forAlice.json.holderKey, 'shared-key/holder-2');
    assert.equal((await turnsOf(alice, 'shared-key/holder-2')).length, 2);
  });

  it("writes the holder's transcript on disk as the participant does: agents/subagent-<id>/sessions/<id>.jsonl, one {role, content} per line", async () => {
    await seed(admin, 'parent-c');
    const res = ok(await post(admin, '/api/sessions/parent-c/archive', { from: 1, to: 4 }), 'archive');
    const relative = res.json.transcriptPath as string;
    assert.equal(relative, 'agents/subagent-parent-c_holder-1/sessions/parent-c_holder-1.jsonl');
    const file = path.join(dataDir, ...relative.split('/'));
    const lines = fs
      .readFileSync(file, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { role: string; content: string });
    // Exactly the holder's stored turns, in order.
    assert.deepEqual(
      lines,
      (await turnsOf(admin, 'parent-c/holder-1')).map(([, role, text]) => ({ role, content: text })),
    );
    assert.deepEqual(lines[0], { role: 'user', content: 'Find the auth handler' });
    assert.equal(lines.length, 4);
    if (process.platform !== 'win32') assert.equal(fs.statSync(file).mode & 0o077, 0, 'only the owner may read it');

    // Another agent's holder of the same key gets a file of its own: the default agent's is not overwritten.
    const bob = ok(await post(admin, '/api/tokens', { agentId: 'bob', permissions: ['remember', 'recall'], readPolicy: 'isolated' }), 'token bob').json
      .token as string;
    await seed(bob, 'parent-c');
    const bobs = ok(await post(bob, '/api/sessions/parent-c/archive', { from: 5, to: 6 }), "bob's archive");
    assert.equal(bobs.json.holderKey, 'parent-c/holder-1');
    assert.notEqual(bobs.json.transcriptPath, relative);
    assert.match(bobs.json.transcriptPath, /^agents\/bob\/subagent-parent-c_holder-1\/sessions\/parent-c_holder-1\.jsonl$/);
    const bobLines = fs
      .readFileSync(path.join(dataDir, ...bobs.json.transcriptPath.split('/')), 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { role: string; content: string });
    assert.deepEqual(
      bobLines.map((l) => l.role),
      ['user', 'assistant'],
    );
    assert.equal(fs.readFileSync(file, 'utf8').trimEnd().split('\n').length, 4, "the default agent's holder file is unchanged");
  });
});
