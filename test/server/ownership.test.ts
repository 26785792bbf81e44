// Sessions, runs and deliveries belong to their agent (docs/security.md, "Sessions belong to their
// agent"), tried through every write route of the real server on 127.0.0.1 with real tokens:
// an agent token writing to a key that another agent owns gets its own, separate session (or a
// refusal), and never changes, takes over or reveals the other agent's session, also after a
// restart; the admin token sees both; a recall-only token writes nothing.

import { strict as assert } from 'node:assert';
import { startDaemon, type Daemon } from '../../src/server/daemon';
import type { Store } from '../../src/store/store';
import { assertStoreUnchanged, bearer, rawRequest, storeState, type RawResponse } from '../helpers/server';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';

const HARNESS = 'claude-code';

interface Token {
  agentId: string;
  token: string;
}

async function post(port: number, token: string, path: string, body: object): Promise<RawResponse> {
  return rawRequest({ port, method: 'POST', path, headers: bearer(token), body });
}

async function get(port: number, token: string, path: string): Promise<RawResponse> {
  return rawRequest({ port, path, headers: bearer(token) });
}

function ok(res: RawResponse, what: string): RawResponse {
  assert.equal(res.status, 200, `${what}: expected 200, got ${res.status}: ${res.text}`);
  return res;
}

/** Exactly one agent's row for a key, with its transcript and checkpoints: what another agent must never change. */
async function ownedState(store: Store, agentId: string, key: string) {
  const session = await store.read('writableSession', { agentId, key });
  if (!session) return null;
  const scope = { agentId };
  return {
    session,
    transcript: (await store.read('transcript', { scope, key })).content,
    checkpoint: await store.read('latestCheckpoint', { scope, key }),
  };
}

describe('sessions belong to their agent (every write route, real server)', function () {
  this.timeout(60_000);
  let dataDir: string;
  let daemon: Daemon;
  let port: number;
  let admin: string;
  const tokens: Record<string, Token> = {};

  async function start(): Promise<void> {
    daemon = await startDaemon({ dataDir, port: 0, config: {} });
    port = daemon.server.port;
    admin = daemon.token;
  }

  async function createToken(agentId: string, permissions: string[], readPolicy: 'shared' | 'isolated'): Promise<Token> {
    const res = ok(await post(port, admin, '/api/tokens', { agentId, permissions, readPolicy }), `token for ${agentId}`);
    return { agentId, token: res.json.token as string };
  }

  before(async () => {
    dataDir = tempDir('baton-owner-');
    await start();
    tokens.iso = await createToken('iso', ['remember', 'recall'], 'isolated');
    tokens.shared = await createToken('shared', ['remember', 'recall'], 'shared');
    tokens.bob = await createToken('bob', ['remember', 'recall'], 'shared');
    tokens.eve = await createToken('eve', ['remember', 'recall'], 'isolated');
    tokens.reader = await createToken('reader', ['recall'], 'shared');
  });

  after(async () => {
    await daemon?.stop();
    cleanupTempDirs();
  });

  it('the reported takeover: an isolated agent keeps its session when another agent writes to its key, also after a restart', async () => {
    const b = tokens.iso.token;
    const a = tokens.bob.token;
    ok(await post(port, b, '/api/hooks/user-prompt-submit', { harness: HARNESS, sessionKey: 'bsess', userMessage: 'B-ONE' }), 'B one');
    ok(await post(port, a, '/api/hooks/user-prompt-submit', { harness: HARNESS, sessionKey: 'bsess', userMessage: 'A-INJECTED' }), 'A injects');
    ok(await post(port, b, '/api/hooks/user-prompt-submit', { harness: HARNESS, sessionKey: 'bsess', userMessage: 'B-TWO' }), 'B two');

    const check = async (when: string) => {
      const asB = ok(await get(port, b, '/api/sessions/bsess/transcript'), `B reads (${when})`).json;
      assert.equal(asB.agentId, 'iso', `B reads its own session (${when})`);
      assert.match(asB.content, /B-ONE[\s\S]*B-TWO/, `both of B's turns are kept (${when})`);
      assert.doesNotMatch(asB.content, /A-INJECTED/, `A's text never lands in B's session (${when})`);
      const asA = ok(await get(port, a, '/api/sessions/bsess/transcript'), `A reads (${when})`).json;
      assert.equal(asA.agentId, 'bob', `A reads its own, separate session (${when})`);
      assert.match(asA.content, /A-INJECTED/);
      assert.doesNotMatch(asA.content, /B-ONE|B-TWO/, `A never reads B's isolated turns (${when})`);
      // The admin sees both sessions of the key.
      const list = ok(await get(port, admin, '/api/sessions?limit=100'), `admin lists (${when})`).json.sessions as Array<{ key: string; agentId: string }>;
      assert.deepEqual(
        list
          .filter((s) => s.key === 'bsess')
          .map((s) => s.agentId)
          .sort(),
        ['bob', 'iso'],
        `admin sees both (${when})`,
      );
    };
    await check('live');
    await daemon.stop();
    await start();
    await check('after a restart');
  });

  // Every route that writes to a session, as an agent token naming a key another agent owns.
  const sessionWrites: Array<{ route: (key: string) => string; body: (key: string) => object; createsOwn: boolean }> = [
    { route: () => '/api/hooks/session-start', body: (key) => ({ harness: HARNESS, sessionKey: key }), createsOwn: true },
    { route: () => '/api/hooks/user-prompt-submit', body: (key) => ({ harness: HARNESS, sessionKey: key, userMessage: 'INTRUDER prompt' }), createsOwn: true },
    {
      route: () => '/api/hooks/session-end',
      body: (key) => ({ harness: HARNESS, sessionKey: key, userMessage: 'INTRUDER end', status: 'failed' }),
      createsOwn: true,
    },
    { route: () => '/api/hooks/session-checkpoint-extract', body: (key) => ({ harness: HARNESS, sessionKey: key }), createsOwn: false },
    { route: () => '/api/hooks/compaction-complete', body: (key) => ({ harness: HARNESS, sessionKey: key, summary: 'INTRUDER summary' }), createsOwn: false },
    { route: (key) => `/api/sessions/${encodeURIComponent(key)}/bypass`, body: () => ({ enabled: true }), createsOwn: false },
    {
      route: () => '/api/hooks/claude-code',
      body: (key) => ({ hook_event_name: 'UserPromptSubmit', session_id: key, prompt: 'INTRUDER raw hook', cwd: '/tmp/proj' }),
      createsOwn: true,
    },
  ];

  // Owners: an isolated agent, a shared agent, the default agent (the admin's hooks), and bob himself.
  const owners: Array<{ name: string; write: () => string; agentId: string }> = [
    { name: 'an isolated agent', write: () => tokens.iso.token, agentId: 'iso' },
    { name: 'a shared agent', write: () => tokens.shared.token, agentId: 'shared' },
    { name: 'the default agent', write: () => admin, agentId: 'default' },
    { name: 'bob (remember token)', write: () => tokens.bob.token, agentId: 'bob' },
  ];
  // Writers: an agent token with remember, and the admin token naming no agent (it acts for the default agent).
  const writers = [owners[3], { ...owners[2], name: 'the admin token' }];

  /** Every agent holding a session of `key`. */
  async function holders(key: string): Promise<string[]> {
    const { sessions } = await daemon.store.read('listSessions', { scope: 'all', limit: 10_000 });
    return sessions
      .filter((x) => x.key === key)
      .map((x) => x.agentId)
      .sort();
  }

  for (const writer of writers) {
    for (const owner of owners) {
      for (const [w, write] of sessionWrites.entries()) {
        const own = writer.agentId === owner.agentId;
        const title = own
          ? `${writer.name}'s ${write.route('k')} to its own session acts on it and on nothing else`
          : `${writer.name}'s ${write.route('k')} to a key of ${owner.name} leaves that session untouched, before and after a restart`;
        it(title, async () => {
          const key = `own-${writer.agentId}-${owner.agentId}-${w}`;
          // The owner's session: a start, a long prompt (so a checkpoint-extract has something), a checkpoint.
          ok(await post(port, owner.write(), '/api/hooks/session-start', { harness: HARNESS, sessionKey: key }), 'owner starts');
          ok(
            await post(port, owner.write(), '/api/hooks/user-prompt-submit', {
              harness: HARNESS,
              sessionKey: key,
              userMessage: `OWNER words ${'x'.repeat(600)}`,
            }),
            'owner prompt',
          );
          ok(
            await post(port, owner.write(), '/api/hooks/compaction-complete', { harness: HARNESS, sessionKey: key, summary: 'OWNER summary' }),
            'owner checkpoint',
          );
          const before = await ownedState(daemon.store, owner.agentId, key);
          assert.ok(before, 'the owner has its session');

          const res = await post(port, writer.write(), write.route(key), write.body(key));
          if (own) {
            // The positive control: the same write by the owner is served, on its own row only.
            ok(res, 'the owner writes its own session');
            assert.deepEqual(await holders(key), [owner.agentId], 'no other agent gained a session of the key');
            return;
          }
          assert.ok(res.status === 200 || res.status === 404, `the write answers 200 (a session of its own) or 404, got ${res.status}: ${res.text}`);
          assert.doesNotMatch(res.text, /OWNER/, "the reply reveals nothing of the owner's session");
          if (res.json?.agentId !== undefined) assert.equal(res.json.agentId, writer.agentId);

          assert.deepEqual(await ownedState(daemon.store, owner.agentId, key), before, `${owner.name}'s session is unchanged`);
          const theirs = await ownedState(daemon.store, writer.agentId, key);
          if (write.createsOwn) assert.ok(theirs, 'the writer got a session of its own under the key');
          if (theirs) {
            assert.doesNotMatch(theirs.transcript, /OWNER/, "the writer's own session holds none of the owner's text");
            if (writer.agentId === 'bob') {
              const asBob = await get(port, tokens.bob.token, `/api/sessions/${encodeURIComponent(key)}`);
              assert.equal(asBob.json.agentId, 'bob', 'bob reads his own session of the key first');
            }
          }
          // The owner goes on writing into its own row, never into the writer's newer one.
          ok(
            await post(port, owner.write(), '/api/hooks/user-prompt-submit', { harness: HARNESS, sessionKey: key, userMessage: 'OWNER again' }),
            'owner again',
          );
          const after = await ownedState(daemon.store, owner.agentId, key);
          assert.match(after!.transcript, /OWNER words[\s\S]*OWNER again/);
          if (theirs)
            assert.deepEqual(
              (await ownedState(daemon.store, writer.agentId, key))?.transcript,
              theirs.transcript,
              "the owner's write did not land in the writer's row",
            );

          await daemon.stop();
          await start();
          assert.deepEqual((await ownedState(daemon.store, owner.agentId, key))?.transcript, after!.transcript, 'the same after a restart');
        });
      }
    }
  }

  it('an agent writing its own session keeps doing so when a shared agent has a newer session of the same key', async () => {
    ok(await post(port, tokens.eve.token, '/api/hooks/user-prompt-submit', { harness: HARNESS, sessionKey: 'twice', userMessage: 'EVE-1' }), 'eve 1');
    ok(await post(port, tokens.shared.token, '/api/hooks/user-prompt-submit', { harness: HARNESS, sessionKey: 'twice', userMessage: 'SHARED-1' }), 'shared 1');
    ok(await post(port, tokens.eve.token, '/api/hooks/user-prompt-submit', { harness: HARNESS, sessionKey: 'twice', userMessage: 'EVE-2' }), 'eve 2');
    assert.match((await ownedState(daemon.store, 'eve', 'twice'))!.transcript, /EVE-1[\s\S]*EVE-2/);
    assert.doesNotMatch((await ownedState(daemon.store, 'shared', 'twice'))!.transcript, /EVE/);
    const asEve = ok(await get(port, tokens.eve.token, '/api/sessions/twice/transcript'), 'eve reads').json;
    assert.equal(asEve.agentId, 'eve');
  });

  it("another agent's bypass of its own session of a key never turns the user's memory hooks for that key off", async () => {
    ok(await post(port, admin, '/api/hooks/user-prompt-submit', { harness: HARNESS, sessionKey: 'user-bypass', userMessage: 'USER work' }), 'user');
    ok(await post(port, tokens.iso.token, '/api/hooks/user-prompt-submit', { harness: HARNESS, sessionKey: 'user-bypass', userMessage: 'iso' }), 'iso');
    ok(await post(port, tokens.iso.token, '/api/sessions/user-bypass/bypass', { enabled: true }), 'iso bypasses its own session of the key');
    const remembered = ok(
      await post(port, admin, '/api/hooks/remember', { harness: HARNESS, sessionKey: 'user-bypass', content: 'The user decided to keep the ledger.' }),
      'remember',
    ).json;
    assert.equal(remembered.bypassed, undefined, "the user's session is not bypassed");
    assert.equal(remembered.success, true);
    const isoRemembers = ok(
      await post(port, tokens.iso.token, '/api/hooks/remember', { harness: HARNESS, sessionKey: 'user-bypass', content: 'iso note' }),
      'iso',
    ).json;
    assert.equal(isoRemembers.bypassed, true, "iso's own bypass still holds for iso");
  });

  it("a sub-agent started by an agent token stays in that agent, even when its parent is a shared agent's session", async () => {
    ok(
      await post(port, tokens.shared.token, '/api/hooks/user-prompt-submit', { harness: HARNESS, sessionKey: 'shared-parent', userMessage: 'PARENT context' }),
      'parent',
    );
    const child = ok(
      await post(port, tokens.bob.token, '/api/hooks/session-start', { harness: HARNESS, sessionKey: 'bob-child', parentSessionKey: 'shared-parent' }),
      'child',
    ).json;
    assert.equal(child.agentId, 'bob');
    assert.equal(child.parentSessionKey, 'shared-parent');
    assert.match(child.inject, /PARENT context/, 'it still inherits from the readable parent');
    assert.equal(await daemon.store.read('writableSession', { agentId: 'shared', key: 'bob-child' }), null, 'no row was created in the shared agent');
  });

  it('runs and deliveries: another agent cannot change a run or take its callback delivery; the admin can', async () => {
    ok(await post(port, tokens.iso.token, '/api/hooks/session-start', { harness: HARNESS, sessionKey: 'iso-parent' }), 'iso parent');
    const run = ok(
      await post(port, tokens.iso.token, '/api/runs', { runner: 'external', parentSessionKey: 'iso-parent', executionMode: 'ASYNC_CALLBACK', prompt: 'work' }),
      'iso run',
    ).json;
    ok(await post(port, tokens.iso.token, '/api/runs', { id: run.id, status: 'running' }), 'running');
    ok(await post(port, tokens.iso.token, '/api/runs', { id: run.id, status: 'completed', resultContent: 'ISO RESULT' }), 'completed');
    const before = await storeState(daemon.store);
    const overwrite = await post(port, tokens.bob.token, '/api/runs', { id: run.id, status: 'failed', error: 'bob was here' });
    assert.equal(overwrite.status, 409, `bob's overwrite is refused: ${overwrite.text}`);
    assert.doesNotMatch(overwrite.text, /ISO RESULT/);
    const deliver = ok(await post(port, tokens.bob.token, '/api/runs/deliver', { parentSessionKey: 'iso-parent' }), 'bob delivers').json;
    assert.equal(deliver.count, 0, "bob takes none of iso's deliveries");
    await assertStoreUnchanged(daemon.store, before, "bob's run writes");
    const mine = ok(await post(port, tokens.iso.token, '/api/runs/deliver', { parentSessionKey: 'iso-parent' }), 'iso delivers').json;
    assert.equal(mine.count, 1, 'iso still gets its delivery');
    assert.equal(mine.runs[0].resultContent, 'ISO RESULT');
    // The admin may act on any agent's run.
    const second = ok(await post(port, tokens.iso.token, '/api/runs', { runner: 'external', parentSessionKey: 'iso-parent', prompt: 'more' }), 'second').json;
    ok(await post(port, admin, '/api/runs', { id: second.id, status: 'running' }), 'admin moves the run');
  });

  it('a recall-only token writes nothing through any write route', async () => {
    const before = await storeState(daemon.store);
    for (const write of sessionWrites) {
      const res = await post(port, tokens.reader.token, write.route('bsess'), write.body('bsess'));
      assert.equal(res.status, 403, `${write.route('bsess')}: ${res.text}`);
    }
    for (const [route, body] of [
      ['/api/runs', { runner: 'external', prompt: 'x' }],
      ['/api/runs/deliver', { parentSessionKey: 'iso-parent' }],
    ] as const) {
      assert.equal((await post(port, tokens.reader.token, route, body)).status, 403, route);
    }
    await assertStoreUnchanged(daemon.store, before, 'recall-only writes');
  });

  it("the admin token writes as the default agent unless it names one; naming an agent reaches that agent's session", async () => {
    ok(await post(port, tokens.iso.token, '/api/hooks/user-prompt-submit', { harness: HARNESS, sessionKey: 'iso-only', userMessage: 'ISO text' }), 'iso');
    ok(await post(port, admin, '/api/hooks/user-prompt-submit', { harness: HARNESS, sessionKey: 'iso-only', userMessage: 'ADMIN text' }), 'admin');
    assert.doesNotMatch((await ownedState(daemon.store, 'iso', 'iso-only'))!.transcript, /ADMIN text/);
    assert.match((await ownedState(daemon.store, 'default', 'iso-only'))!.transcript, /ADMIN text/);
    ok(await post(port, admin, '/api/sessions/iso-only/bypass', { enabled: true, agentId: 'iso' }), 'admin bypasses iso');
    assert.equal((await ownedState(daemon.store, 'iso', 'iso-only'))!.session.bypassed, true);
    assert.equal((await ownedState(daemon.store, 'default', 'iso-only'))!.session.bypassed, false);
    // The admin reads every agent's session, and may inherit from an isolated parent.
    const child = ok(
      await post(port, admin, '/api/hooks/session-start', { harness: HARNESS, sessionKey: 'admin-child', parentSessionKey: 'bsess', agentId: 'default' }),
      'child',
    ).json;
    assert.equal(child.agentId, 'default');
  });
});
