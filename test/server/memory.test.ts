// The memory side over real HTTP on 127.0.0.1 against the real store on disk: extraction at
// session end, recall with its context-epoch ledger, and the MEMORY.md projection with its lease.

import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { lineLogger } from '../../src/core/logger';
import type { ServerConfig } from '../../src/server/config';
import { startDaemon, type Daemon } from '../../src/server/daemon';
import { rememberEndedSession } from '../../src/server/sessionMemory';
import { sleep } from '../helpers/server';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';

interface Reply {
  status: number;
  body: any;
}

function client(daemon: Daemon) {
  const call = async (method: string, route: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> => {
    const res = await fetch(daemon.server.url + route, {
      method,
      headers: { authorization: `Bearer ${daemon.token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: await res.json() };
  };
  return {
    post: (route: string, body: unknown, headers?: Record<string, string>) => call('POST', route, body, headers),
    get: (route: string) => call('GET', route),
  };
}

type Msg = { role: 'user' | 'assistant'; content: string };

/** A realistic working session: a goal, a decision, rules, a preference, a fact and an open question. */
const LOGIN_SESSION: Msg[] = [
  { role: 'user', content: 'Fix the login redirect loop in authService.ts. Never log raw tokens.' },
  { role: 'assistant', content: 'I looked at authService.ts. It turns out the session cookie is set on the wrong path.' },
  { role: 'user', content: 'I prefer small commits with clear messages.' },
  {
    role: 'assistant',
    content: 'We decided to keep JWT sessions and set the cookie path to /. The auth service listens on port 8443. Updated authService.ts accordingly.',
  },
  { role: 'user', content: 'Good. Should we also rotate the signing keys before the release?' },
];

describe('memory side (real HTTP, real store on disk)', function () {
  this.timeout(60_000);
  let dataDir: string;
  let daemon: Daemon;
  let api: ReturnType<typeof client>;
  let logs: string[];

  async function start(config: Partial<ServerConfig> = {}) {
    logs = [];
    daemon = await startDaemon({ dataDir, port: 0, config, logger: lineLogger((line) => logs.push(line)) });
    api = client(daemon);
  }

  beforeEach(async () => {
    dataDir = tempDir('baton-memory-');
    await start();
  });
  afterEach(async () => daemon.stop());
  after(cleanupTempDirs);

  async function endSession(sessionKey: string, transcript: Msg[], extra: Record<string, unknown> = {}) {
    const reply = await api.post('/api/hooks/session-end', { harness: 'claude-code', sessionKey, transcript, ...extra });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    return reply;
  }

  async function memoriesOf(sessionKey: string) {
    const all = await daemon.store.read('topMemories', { scope: 'all', limit: 100 });
    return all.filter((m) => m.sessionKey === sessionKey);
  }

  describe('extraction at session end', () => {
    it('stores typed memories with importance, linked to the session and its summary node', async () => {
      await api.post('/api/hooks/session-start', { harness: 'claude-code', sessionKey: 'login', project: '/repo' });
      await endSession('login', LOGIN_SESSION);
      const memories = await memoriesOf('login');
      const byType = (type: string) => memories.filter((m) => m.type === type).map((m) => m.content);
      assert.deepEqual(byType('constraint'), ['Never log raw tokens.']);
      assert.deepEqual(byType('decision'), ['We decided to keep JWT sessions and set the cookie path to /.']);
      assert.deepEqual(byType('preference'), ['I prefer small commits with clear messages.']);
      assert.deepEqual(byType('open-question'), ['Should we also rotate the signing keys before the release?']);
      assert.deepEqual(byType('fact').sort(), ['It turns out the session cookie is set on the wrong path.', 'The auth service listens on port 8443.']);
      for (const m of memories) {
        assert.equal(m.project, '/repo');
        assert.ok(m.importance > 0 && m.importance <= 1);
      }
      assert.ok(byType('constraint').length && memories.find((m) => m.type === 'constraint')!.importance > memories.find((m) => m.type === 'fact')!.importance);

      const summaries = (await api.get('/api/sessions/summaries?sessionKey=login')).body.summaries;
      assert.equal(summaries.length, 1);
      assert.equal(summaries[0].kind, 'session');
      assert.equal(summaries[0].source_ref, 'login');
      const expanded = (await api.post('/api/sessions/summaries/expand', { id: summaries[0].id })).body;
      assert.match(expanded.node.content, /^Session login \(claude-code, \/repo\): 5 turns\./);
      assert.match(expanded.node.content, /Goal: Fix the login redirect loop/);
      assert.match(expanded.node.content, /Decisions: We decided to keep JWT sessions/);
      assert.match(expanded.node.content, /Open questions: Should we also rotate the signing keys/);
      assert.equal(expanded.linkedMemories.length, memories.length, 'every memory names the summary node as its source');
    });

    it('is idempotent: a second session-end stores nothing new; new turns add only new memories', async () => {
      await endSession('again', LOGIN_SESSION);
      const first = await memoriesOf('again');
      const stats = await daemon.store.read('stats', {});
      await endSession('again', LOGIN_SESSION);
      assert.deepEqual(await memoriesOf('again'), first);
      assert.deepEqual(await daemon.store.read('stats', {}), stats);
      assert.equal((await api.get('/api/sessions/summaries?sessionKey=again')).body.summaries.length, 1);

      await endSession('again', [...LOGIN_SESSION, { role: 'assistant', content: 'We decided to rotate the keys in the next sprint.' }]);
      const after = await memoriesOf('again');
      assert.equal(after.length, first.length + 1);
      assert.ok(after.some((m) => m.type === 'decision' && m.content === 'We decided to rotate the keys in the next sprint.'));
    });

    it('links the summary nodes into the lineage: a parent summary is the parent of its sub-agents’ summaries', async () => {
      await api.post('/api/hooks/session-start', { harness: 'claude-code', sessionKey: 'parent' });
      await api.post('/api/hooks/session-start', { harness: 'claude-code', sessionKey: 'early-child', parentSessionKey: 'parent' });
      // A sub-agent that ends before its parent: linked when the parent's summary appears.
      await endSession('early-child', [{ role: 'user', content: 'We decided to use pnpm for the workspace.' }]);
      await endSession('parent', LOGIN_SESSION);
      await api.post('/api/hooks/session-start', { harness: 'claude-code', sessionKey: 'late-child', parentSessionKey: 'parent' });
      // A sub-agent that ends after its parent: linked at once.
      await endSession('late-child', [{ role: 'user', content: 'The build runs on node 20 in CI, found that yesterday.' }]);
      const idOf = async (key: string) => (await api.get(`/api/sessions/summaries?sessionKey=${key}`)).body.summaries[0].id;
      const parent = (await api.post('/api/sessions/summaries/expand', { id: await idOf('parent') })).body;
      assert.deepEqual(parent.children.map((c: any) => c.id).sort(), [await idOf('early-child'), await idOf('late-child')].sort());
      const late = (await api.post('/api/sessions/summaries/expand', { id: await idOf('late-child') })).body;
      assert.deepEqual(
        late.parents.map((p: any) => p.id),
        [parent.node.id],
      );
    });

    it('never fails the session end: a failing extraction is logged (by class only) and skipped', async () => {
      await endSession('fails', LOGIN_SESSION);
      // The real store for reads; a write that fails the way a full disk would.
      const failing = {
        read: daemon.store.read.bind(daemon.store),
        write: async () => {
          throw new Error('secret-ish payload text');
        },
      } as unknown as Parameters<typeof rememberEndedSession>[0];
      const lines: string[] = [];
      const result = await rememberEndedSession(
        failing,
        lineLogger((l) => lines.push(l)),
        'default',
        'fails',
      );
      assert.equal(result, null);
      assert.deepEqual(lines, ['session-end memory extraction failed: Error']);
      // And over HTTP a session with nothing to extract still ends normally.
      const reply = await endSession('quiet', [{ role: 'user', content: 'hi' }]);
      assert.equal(reply.body.success, true);
      assert.equal((await api.get('/api/sessions/quiet')).body.status, 'ended');
    });
  });
});
