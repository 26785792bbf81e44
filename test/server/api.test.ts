// The sessions & hooks API over real HTTP on 127.0.0.1, against a real store on disk.

import { strict as assert } from 'node:assert';
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { INHERIT_HEADING } from '../../src/core/inherit';
import { startDaemon, type Daemon } from '../../src/server/daemon';
import { CLI, ROOT } from '../helpers/child';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';
import { jsonClient as client } from '../helpers/jsonClient';

function claudeLine(type: 'user' | 'assistant', content: unknown, i: number): string {
  return JSON.stringify({ type, uuid: `u${i}`, sessionId: 'p', timestamp: `2026-11-26T00:00:0${i % 10}Z`, message: { role: type, content } });
}

describe('sessions & hooks API (real HTTP, real store)', function () {
  this.timeout(60_000);
  let dataDir: string;
  let transcripts: string;
  let daemon: Daemon;
  let api: ReturnType<typeof client>;

  beforeEach(async () => {
    dataDir = tempDir();
    transcripts = tempDir('baton-transcripts-');
    daemon = await startDaemon({ dataDir, port: 0, config: { transcriptRoots: [transcripts] } });
    api = client(daemon);
  });
  afterEach(async () => daemon.stop());
  after(cleanupTempDirs);

  describe('session-start, lineage and the inherited block', () => {
    it('requires harness, generates a key when none is given, and returns the documented fields', async () => {
      const missing = await api.post('/api/hooks/session-start', { sessionKey: 'x' });
      assert.equal(missing.status, 400);
      assert.match(missing.body.error, /^harness/);
      const started = await api.post('/api/hooks/session-start', { harness: 'codex', project: '/repo' });
      assert.equal(started.status, 200);
      assert.match(started.body.sessionKey, /^[0-9a-f-]{36}$/);
      assert.deepEqual(
        { ...started.body, sessionKey: 'K' },
        { sessionKey: 'K', agentId: 'default', parentSessionKey: null, lineageSource: null, inject: '', inherited: null, memories: [] },
      );
    });

    it('hands a sub-agent the exact inherited block: heading, tail since checkpoint, focal entities, constraints — deterministic', async () => {
      await api.post('/api/hooks/session-start', { harness: 'claude-code', sessionKey: 'parent', project: '/repo', title: 'Fix login' });
      await api.post('/api/hooks/user-prompt-submit', { harness: 'claude-code', sessionKey: 'parent', userPrompt: 'old context before the checkpoint' });
      await daemon.store.write('addCheckpoint', { key: 'parent', digest: 'Login uses JWT; tests in auth.spec.ts', focalEntities: ['auth-service'] });
      await daemon.store.write('addAttribute', { entity: 'auth-service', kind: 'constraint', content: 'never log raw tokens', importance: 0.9 });
      await api.post('/api/hooks/user-prompt-submit', {
        harness: 'claude-code',
        sessionKey: 'parent',
        userPrompt: 'MARKER-7731 rotate keys in commit 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39',
        lastAssistantMessage: 'earlier answer',
      });

      const child = await api.post('/api/hooks/session-start', {
        harness: 'claude-code',
        sessionKey: 'child',
        parentSessionKey: 'parent',
        harnessAgentId: 'a1',
        harnessAgentType: 'general-purpose',
      });
      assert.equal(child.status, 200);
      // The block says which parent turn it was taken at: the parent's last stored turn.
      const parentTurns = (await api.get('/api/sessions/parent/turns')).body.turns;
      const last = parentTurns[parentTurns.length - 1];
      // Hooks send turns without a time: the stamp's time is when the parent was last updated.
      const at: string = last.at ?? (await api.get('/api/sessions/parent')).body.updatedAt;
      const expected = [
        INHERIT_HEADING,
        '',
        'Fix login (claude-code session parent)',
        `Taken at turn ${last.seq} of the parent (${at})`,
        'Active constraints:',
        '  - auth-service: never log raw tokens',
        'Checkpoint summary:',
        '  Login uses JWT; tests in auth.spec.ts',
        'Recent context:',
        '  Assistant: earlier answer',
        '  User: MARKER-7731 rotate keys in commit 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39',
        'Focal entities: auth-service',
        'Budget: ~108 of 2000 tokens',
      ].join('\n');
      assert.equal(child.body.inject, expected);
      assert.equal(child.body.parentSessionKey, 'parent');
      assert.equal(child.body.lineageSource, 'explicit');
      assert.ok(!child.body.inject.includes('old context'), 'only the transcript since the last checkpoint');
      // The preview of a new child of `parent` is the same bytes, and it is deterministic.
      const preview = await api.get('/api/sessions/parent/inherited');
      assert.equal(preview.body.block, expected);
      assert.equal(preview.body.chars, expected.length);
      assert.equal(preview.body.estimatedTokens, Math.ceil(expected.length / 4));
      assert.deepEqual(preview.body.settings, { inheritContext: true, tailChars: 3000, maxTokens: 2000 });
      assert.equal((await api.get('/api/sessions/parent/inherited')).body.block, expected);
      const stored = await api.get('/api/sessions/child');
      assert.equal(stored.body.harnessAgentId, 'a1');
      assert.equal(stored.body.parentSessionKey, 'parent');
    });

    it('keeps only the last tailChars characters and redacts secrets but not hashes or paths', async () => {
      await daemon.stop();
      daemon = await startDaemon({ dataDir, port: 0, config: { tailChars: 120, transcriptRoots: [transcripts] } });
      api = client(daemon);
      const secrets = [
        'key sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789',
        'Authorization: Bearer abcdefghijklmnop.qrstuvwxyz012345',
        'db postgres://admin:hunter2secret@db.local:5432/app',
        'password = "correct-horse-battery"',
        '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\n-----END RSA PRIVATE KEY-----',
      ];
      await api.post('/api/hooks/user-prompt-submit', { harness: 'opencode', sessionKey: 'p', userPrompt: 'x'.repeat(500) });
      for (const s of secrets) await api.post('/api/hooks/user-prompt-submit', { harness: 'opencode', sessionKey: 'p', userPrompt: s });
      const keep = 'see /home/dev/repo/src/auth.ts at commit 0123456789abcdef0123456789abcdef01234567';
      await api.post('/api/hooks/user-prompt-submit', { harness: 'opencode', sessionKey: 'p', userPrompt: keep });
      const child = await api.post('/api/hooks/session-start', { harness: 'opencode', sessionKey: 'c', parentID: 'p' });
      const recent = child.body.inherited.sections.recentContext as string;
      assert.ok(recent.length <= 120, `tail is ${recent.length} chars`);
      assert.ok(recent.endsWith(keep), 'paths and commit hashes are kept');
      const wide = await daemon.store.read('tail', { scope: 'all', key: 'p', chars: 5000 });
      assert.match(wide, /hunter2secret/, 'the store keeps what it was given');
      await daemon.stop();
      daemon = await startDaemon({ dataDir, port: 0, config: { tailChars: 5000, transcriptRoots: [transcripts] } });
      api = client(daemon);
      const block = (await api.get('/api/sessions/p/inherited')).body.block as string;
      for (const leaked of ['AbCdEfGhIjKlMnOpQrStUvWxYz', 'abcdefghijklmnop.qrstuvwxyz', 'hunter2secret', 'correct-horse-battery', 'MIIEowIBAAKCAQEA7']) {
        assert.ok(!block.includes(leaked), `leaked ${leaked}`);
      }
      assert.ok(block.includes('[REDACTED]'));
      const hits = (await api.post('/api/sessions/search', { query: 'postgres admin' })).body.hits;
      assert.ok(hits.length > 0 && !hits[0].excerpt.includes('hunter2secret'), 'search excerpts are redacted too');
    });

    it('omits the block when the parent has nothing yet, or when inheritContext is off', async () => {
      await api.post('/api/hooks/session-start', { harness: 'claude-code', sessionKey: 'empty-parent' });
      const child = await api.post('/api/hooks/session-start', { harness: 'claude-code', sessionKey: 'c', parentSessionKey: 'empty-parent' });
      assert.equal(child.body.inject, '');
      assert.equal(child.body.parentSessionKey, 'empty-parent');
      await api.post('/api/hooks/user-prompt-submit', { harness: 'claude-code', sessionKey: 'empty-parent', userPrompt: 'now there is text' });
      await daemon.stop();
      daemon = await startDaemon({ dataDir, port: 0, config: { inheritContext: false } });
      api = client(daemon);
      const off = await api.post('/api/hooks/session-start', { harness: 'claude-code', sessionKey: 'c2', parentSessionKey: 'empty-parent' });
      assert.equal(off.body.inject, '');
      assert.equal(off.body.parentSessionKey, 'empty-parent', 'lineage is recorded even without a block');
    });

    it('detects parents by every signal of the matrix and degrades gracefully', async () => {
      await api.post('/api/hooks/user-prompt-submit', { harness: 'openclaw', sessionKey: 'agent:nicholai:main', userPrompt: 'openclaw parent text' });
      await api.post('/api/hooks/user-prompt-submit', { harness: 'claude-code', sessionKey: 'cc-parent', project: '/repo', userPrompt: 'claude parent text' });
      for (const alias of ['parentSessionKey', 'parentKey', 'parentId', 'parentID']) {
        const r = await api.post('/api/hooks/session-start', { harness: 'opencode', sessionKey: `via-${alias}`, [alias]: 'cc-parent' });
        assert.equal(r.body.parentSessionKey, 'cc-parent', alias);
        assert.equal(r.body.lineageSource, 'explicit');
      }
      const oc = await api.post('/api/hooks/session-start', { harness: 'openclaw', sessionKey: 'agent:nicholai:subagent:1234' });
      assert.equal(oc.body.parentSessionKey, 'agent:nicholai:main');
      assert.equal(oc.body.lineageSource, 'openclaw-key');
      assert.match(oc.body.inject, /openclaw parent text/);
      const env = await api.post('/api/hooks/session-start', { harness: 'codex', sessionKey: 'spawned' }, { 'x-agent-session-id': 'cc-parent' });
      assert.equal(env.body.lineageSource, 'env');
      const recency = await api.post('/api/hooks/session-start', { harness: 'claude-code', sessionKey: 'cc-sub', project: '/repo', harnessAgentId: 'agent-9' });
      assert.equal(recency.body.parentSessionKey, 'cc-parent');
      assert.equal(recency.body.lineageSource, 'project-recency');
      const none = await api.post('/api/hooks/session-start', { harness: 'codex', sessionKey: 'lonely', project: '/elsewhere' });
      assert.equal(none.body.parentSessionKey, null);
      assert.equal(none.body.inject, '');
      const unknownParent = await api.post('/api/hooks/session-start', { harness: 'codex', sessionKey: 'early-child', parentSessionKey: 'not-seen-yet' });
      assert.equal(unknownParent.body.parentSessionKey, 'not-seen-yet', 'an explicit parent is never discarded');
    });

    it('puts a sub-agent in the agent its writes act for (keys are per agent), never in a harness agent id', async () => {
      await api.post('/api/hooks/user-prompt-submit', { harness: 'claude-code', sessionKey: 'alice-main', agentId: 'alice', userPrompt: 'alice work' });
      const child = await api.post('/api/hooks/session-start', {
        harness: 'claude-code',
        sessionKey: 'alice-sub',
        parentSessionKey: 'alice-main',
        agentId: 'alice',
        harnessAgentId: 'general-purpose-7',
      });
      assert.equal(child.body.agentId, 'alice');
      assert.match(child.body.inject, /alice work/);
      assert.equal((await api.get('/api/sessions/alice-sub')).body.agentId, 'alice');
      // Without an agentId the admin's hooks act for the default agent, and the child's parent is the
      // default agent's session of the key: there is none, so nothing of alice's is handed down
      // (docs/security.md, "Parents belong to the child's agent"). The explicit parent is still kept.
      const unnamed = await api.post('/api/hooks/session-start', {
        harness: 'claude-code',
        sessionKey: 'alice-sub-2',
        parentSessionKey: 'alice-main',
        harnessAgentId: 'general-purpose-8',
      });
      assert.equal(unnamed.body.agentId, 'default');
      assert.equal(unnamed.body.parentSessionKey, 'alice-main');
      assert.equal(unnamed.body.inject, '');
      await api.post('/api/hooks/user-prompt-submit', { harness: 'claude-code', sessionKey: 'alice-sub-2', userPrompt: 'child work' });
      assert.equal((await api.get('/api/sessions/alice-sub-2')).body.turnCount, 1, "the child's later writes land in the same session");
    });

    it('answers a duplicate session-start with skipped, claims one runtime path, and lets stale claims expire', async () => {
      const first = await api.post('/api/hooks/session-start', { harness: 'claude-code', sessionKey: 's', runtimePath: 'plugin' });
      assert.equal(first.body.skipped, undefined);
      const again = await api.post('/api/hooks/session-start', { harness: 'claude-code', sessionKey: 's', runtimePath: 'plugin' });
      assert.equal(again.status, 200);
      assert.equal(again.body.skipped, true);
      const before = await daemon.store.status();
      const other = await api.post('/api/hooks/user-prompt-submit', {
        harness: 'claude-code',
        sessionKey: 's',
        userPrompt: 'from legacy',
        runtimePath: 'legacy',
      });
      assert.equal(other.status, 409);
      assert.equal(other.body.code, 'conflict');
      const viaHeader = await api.post(
        '/api/hooks/user-prompt-submit',
        { harness: 'claude-code', sessionKey: 's', userPrompt: 'from legacy' },
        { 'x-signet-runtime-path': 'legacy' },
      );
      assert.equal(viaHeader.status, 409);
      assert.equal((await daemon.store.status()).seq, before.seq, 'a refused claim writes nothing');
      const status = (await api.get('/api/sessions/session:s')).body;
      assert.equal(status.runtimePath, 'plugin');
      assert.equal(Date.parse(status.expiresAt) - Date.parse(status.claimedAt), 4 * 3600 * 1000);
      const ended = await api.post('/api/hooks/session-end', { harness: 'claude-code', sessionKey: 's', runtimePath: 'plugin', reason: 'exit' });
      assert.equal(ended.body.success, true);
      const released = (await api.get('/api/sessions/s')).body;
      assert.equal(released.runtimePath, null);
      assert.equal(released.status, 'ended');
      assert.equal(released.endReason, 'exit');
      assert.equal(
        (await api.post('/api/hooks/user-prompt-submit', { harness: 'claude-code', sessionKey: 's', userPrompt: 'legacy now', runtimePath: 'legacy' })).status,
        200,
      );

      await daemon.stop();
      daemon = await startDaemon({ dataDir, port: 0, config: { claimTtlMs: 1000 } });
      api = client(daemon);
      await api.post('/api/hooks/session-start', { harness: 'claude-code', sessionKey: 'stale', runtimePath: 'plugin' });
      assert.equal(
        (await api.post('/api/hooks/user-prompt-submit', { harness: 'claude-code', sessionKey: 'stale', userPrompt: 'x', runtimePath: 'legacy' })).status,
        409,
      );
      await new Promise((r) => setTimeout(r, 1100));
      assert.equal(
        (await api.post('/api/hooks/user-prompt-submit', { harness: 'claude-code', sessionKey: 'stale', userPrompt: 'x', runtimePath: 'legacy' })).status,
        200,
      );
    });

    it('ends the previous session of a project on a Claude Code /clear', async () => {
      await api.post('/api/hooks/session-start', { harness: 'claude-code', sessionKey: 'before-clear', project: '/repo', source: 'startup' });
      await api.post('/api/hooks/session-start', { harness: 'claude-code', sessionKey: 'after-clear', project: '/repo', source: 'clear' });
      const old = (await api.get('/api/sessions/before-clear')).body;
      assert.equal(old.status, 'ended');
      assert.equal(old.endReason, 'clear');
      assert.equal((await api.get('/api/sessions/after-clear')).body.status, 'active');
    });
  });

  describe('live transcripts', () => {
    it('reads a Claude Code JSONL file under an allowed root, uses the payload prompt when the file lags, never stores twice', async () => {
      const file = path.join(transcripts, 'p.jsonl');
      fs.writeFileSync(file, [claudeLine('user', 'first question', 1), claudeLine('assistant', [{ type: 'text', text: 'first answer' }], 2)].join('\n') + '\n');
      const r1 = await api.post('/api/hooks/user-prompt-submit', {
        harness: 'claude-code',
        sessionKey: 'p',
        transcriptPath: file,
        userPrompt: 'second question',
      });
      assert.equal(r1.status, 200);
      assert.equal(r1.body.appended, 3);
      fs.appendFileSync(
        file,
        [claudeLine('user', 'second question', 3), claudeLine('assistant', [{ type: 'text', text: 'second answer' }], 4)].join('\n') + '\n',
      );
      const r2 = await api.post('/api/hooks/session-end', { harness: 'claude-code', sessionKey: 'p', transcriptPath: file });
      assert.equal(r2.body.appended, 1);
      const again = await api.post('/api/hooks/user-prompt-submit', { harness: 'claude-code', sessionKey: 'p', transcriptPath: file });
      assert.equal(again.body.appended, 0);
      const t = await api.get('/api/sessions/p/transcript');
      assert.deepEqual(t.body, {
        sessionKey: 'p',
        agentId: 'default',
        content: 'User: first question\nAssistant: first answer\nUser: second question\nAssistant: second answer',
      });
    });

    it('accepts inline transcripts (text and message lists) and never shrinks', async () => {
      await api.post('/api/hooks/user-prompt-submit', { harness: 'openclaw', sessionKey: 'i', transcript: 'User: hi\nAssistant: hello' });
      await api.post('/api/hooks/user-prompt-submit', { harness: 'openclaw', sessionKey: 'i', transcript: [{ role: 'user', content: 'hi' }] });
      await api.post('/api/hooks/session-end', {
        harness: 'openclaw',
        sessionKey: 'i',
        transcript: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: 'hello' },
          { role: 'user', content: 'bye' },
        ],
      });
      assert.equal((await api.get('/api/sessions/i/transcript')).body.content, 'User: hi\nAssistant: hello\nUser: bye');
    });

    it('refuses transcript paths outside the roots, through symlinks, non-regular files and oversize files, and never blocks on a FIFO', async () => {
      const outside = path.join(tempDir(), 'secret.jsonl');
      fs.writeFileSync(outside, claudeLine('user', 'private', 1));
      const link = path.join(transcripts, 'link.jsonl');
      fs.symlinkSync(outside, link);
      // A FIFO would block a blocking reader forever: a prompt answer proves it was never read that way.
      const fifo = path.join(transcripts, 'pipe.jsonl');
      execFileSync('mkfifo', [fifo]);
      const outsideFifo = path.join(tempDir(), 'pipe.jsonl');
      execFileSync('mkfifo', [outsideFifo]);
      const big = path.join(transcripts, 'big.jsonl');
      fs.writeFileSync(big, 'x'.repeat(70 * 1024 * 1024));
      const before = await daemon.store.status();
      for (const [p, why] of [
        // Outside, escaping, missing: one answer, so nothing is learnt about files outside the roots.
        [outside, /not a readable file under the allowed/],
        [link, /not a readable file under the allowed/],
        [fifo, /not a regular file/],
        [outsideFifo, /not a readable file under the allowed/],
        [big, /limit/],
        ['relative/path.jsonl', /absolute/],
        [path.join(transcripts, 'missing.jsonl'), /not a readable file under the allowed/],
      ] as const) {
        const r = await api.post('/api/hooks/user-prompt-submit', { harness: 'claude-code', sessionKey: 'p', transcriptPath: p, userPrompt: 'hello' });
        assert.equal(r.status, 400, p);
        assert.match(r.body.error, why);
      }
      assert.equal((await daemon.store.status()).seq, before.seq, 'refused requests write nothing');
    });
  });

  describe('session routes', () => {
    beforeEach(async () => {
      await api.post('/api/hooks/user-prompt-submit', {
        harness: 'claude-code',
        sessionKey: 'root',
        project: '/repo',
        userPrompt: 'Juniper trunk ports audit',
      });
      await api.post('/api/hooks/session-start', { harness: 'claude-code', sessionKey: 'kid', parentSessionKey: 'root', project: '/repo' });
      await api.post('/api/hooks/user-prompt-submit', { harness: 'claude-code', sessionKey: 'kid', userPrompt: 'kid looks at VLAN 20' });
      await api.post('/api/hooks/session-start', { harness: 'claude-code', sessionKey: 'grandkid', parentSessionKey: 'kid' });
      await api.post('/api/hooks/user-prompt-submit', {
        harness: 'claude-code',
        sessionKey: 'sibling',
        project: '/repo',
        userPrompt: 'another Juniper discussion',
      });
    });

    it('lists sessions with the documented shape and gets one by raw or prefixed key', async () => {
      const list = await api.get('/api/sessions');
      assert.equal(list.body.count, 4);
      for (const s of list.body.sessions) for (const k of ['key', 'runtimePath', 'claimedAt', 'expiresAt', 'bypassed']) assert.ok(k in s, k);
      assert.equal((await api.get('/api/sessions/root')).body.key, 'root');
      assert.equal((await api.get('/api/sessions/session%3Aroot')).body.key, 'root');
      const missing = await api.get('/api/sessions/nope');
      assert.equal(missing.status, 404);
      assert.equal(missing.body.code, 'not_found');
      assert.equal((await api.get('/api/sessions/grandkid/transcript')).status, 404, 'no transcript yet');
    });

    it('returns the lineage forest to any depth', async () => {
      const tree = (await api.get('/api/sessions/tree')).body;
      const root = tree.roots.find((r: any) => r.key === 'root');
      assert.equal(root.children[0].key, 'kid');
      assert.equal(root.children[0].children[0].key, 'grandkid');
    });

    it('searches with the spec defaults: clamp, parent by default for a sub-agent, exclusion of the current session, keys', async () => {
      const all = await api.post('/api/sessions/search', { query: 'juniper', limit: 100 });
      assert.deepEqual(all.body.hits.map((h: any) => h.sessionKey).sort(), ['root', 'sibling']);
      for (const k of ['sessionKey', 'project', 'updatedAt', 'excerpt', 'rank']) assert.ok(k in all.body.hits[0], k);
      // Each hit carries its session's title (the first prompt's, here), for surfaces to show instead of the key.
      const rootHit = all.body.hits.find((h: any) => h.sessionKey === 'root');
      const rootTitle = (await api.get('/api/sessions/root')).body.title;
      assert.ok(rootTitle, 'root has a title');
      assert.equal(rootHit.title, rootTitle);
      assert.equal((await api.post('/api/sessions/search', { query: 'juniper', limit: 0 })).body.count, 1);
      const fromKid = await api.post('/api/sessions/search', { query: 'juniper', currentSessionKey: 'kid' });
      assert.deepEqual(
        fromKid.body.hits.map((h: any) => h.sessionKey),
        ['root'],
        'a sub-agent searches its parent',
      );
      const fromSibling = await api.post('/api/sessions/search', { query: 'juniper', currentSessionKey: 'sibling' });
      assert.deepEqual(
        fromSibling.body.hits.map((h: any) => h.sessionKey),
        ['root'],
        'excludes the current session',
      );
      const scoped = await api.post('/api/sessions/search', { query: 'vlan', sessionKey: 'session:kid' });
      assert.deepEqual(
        scoped.body.hits.map((h: any) => h.sessionKey),
        ['kid'],
      );
      const byKey = await api.post('/api/sessions/search', { query: 'grandkid' });
      assert.equal(byKey.body.hits[0].sessionKey, 'grandkid');
      assert.equal((await api.post('/api/sessions/search', {})).status, 400);
    });

    it('toggles bypass: hooks become no-ops answering bypassed: true', async () => {
      const on = await api.post('/api/sessions/session:root/bypass', { enabled: true });
      assert.deepEqual(on.body, { key: 'root', bypassed: true });
      const before = (await api.get('/api/sessions/root')).body.turnCount;
      const hook = await api.post('/api/hooks/user-prompt-submit', { harness: 'claude-code', sessionKey: 'root', userPrompt: 'ignored' });
      assert.equal(hook.body.bypassed, true);
      assert.equal(hook.body.inject, '');
      assert.equal((await api.get('/api/sessions/root')).body.turnCount, before);
      assert.equal((await api.post('/api/hooks/session-start', { harness: 'claude-code', sessionKey: 'root' })).body.bypassed, true);
      assert.equal((await api.post('/api/hooks/remember', { harness: 'claude-code', sessionKey: 'root', content: 'x' })).body.bypassed, true);
      assert.equal((await api.post('/api/hooks/recall', { harness: 'claude-code', sessionKey: 'root', query: 'x' })).body.bypassed, true);
      assert.equal((await api.post('/api/sessions/nope/bypass', { enabled: true })).status, 404);
      assert.equal((await api.post('/api/sessions/root/bypass', {})).status, 400);
      await api.post('/api/sessions/root/bypass', { enabled: false });
      assert.equal((await api.post('/api/hooks/user-prompt-submit', { harness: 'claude-code', sessionKey: 'root', userPrompt: 'counted' })).body.appended, 1);
    });
  });

  describe('memory side', () => {
    it('remembers and recalls with the documented recall shape', async () => {
      const saved = await api.post('/api/hooks/remember', {
        harness: 'claude-code',
        content: 'User wants dark mode by default',
        sessionKey: 's1',
        tags: 'ui,editor',
      });
      assert.equal(saved.body.success, true);
      const recall = await api.post('/api/hooks/recall', { harness: 'claude-code', query: 'dark mode', tags: 'ui' });
      assert.equal(recall.body.count, 1);
      assert.deepEqual(recall.body.memories, recall.body.results);
      assert.equal(recall.body.results[0].content, 'User wants dark mode by default');
      assert.deepEqual(recall.body.meta, { totalReturned: 1, hasSupplementary: false, noHits: false });
      assert.match(recall.body.message, /dark mode/);
      const none = await api.post('/api/hooks/recall', { harness: 'claude-code', query: 'kubernetes' });
      assert.equal(none.body.message, 'No matching memories found.');
      assert.equal((await api.post('/api/hooks/recall', { harness: 'claude-code' })).status, 400);
    });

    it('turns a compaction summary into a checkpoint that the next sub-agent inherits', async () => {
      await api.post('/api/hooks/user-prompt-submit', { harness: 'claude-code', sessionKey: 'long', userPrompt: 'pre-compaction chatter' });
      const pre = await api.post('/api/hooks/pre-compaction', { harness: 'claude-code', sessionKey: 'long' });
      assert.match(pre.body.guidelines, /Summarise/);
      const done = await api.post('/api/hooks/compaction-complete', { harness: 'claude-code', sessionKey: 'long', summary: 'We migrated the DB to v5.' });
      assert.equal(done.body.success, true);
      assert.equal(done.body.contextEpoch, 1);
      assert.ok(done.body.memoryId);
      const child = await api.post('/api/hooks/session-start', { harness: 'claude-code', sessionKey: 'after', parentSessionKey: 'long' });
      assert.match(child.body.inject, /Checkpoint summary:\n {2}We migrated the DB to v5\./);
      // The transcript before the compaction is not inherited; only the parent's title (its first
      // prompt) names it in the header line.
      const header = child.body.inject.split('\n').find((l: string) => l.includes('(claude-code session long)'));
      assert.ok(header, child.body.inject);
      assert.ok(!child.body.inject.replace(header, '').includes('pre-compaction chatter'), child.body.inject);
      const summaries = (await api.get('/api/sessions/summaries')).body.summaries;
      assert.equal(summaries[0].kind, 'compaction');
      assert.deepEqual(Object.keys(summaries[0]).sort(), ['created_at', 'depth', 'id', 'kind', 'meta_json', 'source_ref', 'source_type']);
      const expanded = await api.post('/api/sessions/summaries/expand', { id: summaries[0].id, includeTranscript: true, transcriptCharLimit: 50 });
      assert.equal(expanded.body.node.id, summaries[0].id);
      assert.equal(expanded.body.linkedMemories.length, 1);
      assert.equal(expanded.body.transcript.sessionKey, 'long');
      assert.equal((await api.post('/api/sessions/summaries/expand', { id: 'nope' })).status, 404);
    });

    it('extracts a checkpoint only once 500 characters are new', async () => {
      await api.post('/api/hooks/user-prompt-submit', { harness: 'openclaw', sessionKey: 'bot', userPrompt: 'short' });
      assert.deepEqual((await api.post('/api/hooks/session-checkpoint-extract', { harness: 'openclaw', sessionKey: 'bot' })).body, { skipped: true });
      await api.post('/api/hooks/user-prompt-submit', { harness: 'openclaw', sessionKey: 'bot', userPrompt: 'long '.repeat(150) });
      const queued = await api.post('/api/hooks/session-checkpoint-extract', { harness: 'openclaw', sessionKey: 'bot' });
      assert.equal(queued.body.queued, true);
      assert.ok(queued.body.jobId);
      assert.deepEqual(
        (await api.post('/api/hooks/session-checkpoint-extract', { harness: 'openclaw', sessionKey: 'bot' })).body,
        { skipped: true },
        'the cursor advanced',
      );
      assert.equal((await api.post('/api/hooks/session-checkpoint-extract', { harness: 'openclaw' })).status, 400);
    });

    it('projects MEMORY.md, writes it with a backup, and refuses a second writer while the lease is held', async () => {
      assert.equal((await api.get('/api/hooks/synthesis/config')).body.model, 'projection');
      const synth = await api.post('/api/hooks/synthesis', {});
      for (const section of [
        '## Global Head (Tier 1)',
        '## Thread Heads (Tier 2)',
        '## Session Ledger (Last 30 Days)',
        '## Open Threads',
        '## Durable Notes & Constraints',
        '## Temporal Index',
      ]) {
        assert.ok(synth.body.prompt.includes(section), section);
      }
      assert.equal(synth.body.model, 'projection');
      assert.ok(synth.body.prompt.includes(synth.body.indexBlock));
      assert.equal((await api.post('/api/hooks/synthesis/complete', { content: '# Memory\nother' })).status, 409);
      assert.deepEqual((await api.post('/api/hooks/synthesis/complete', { content: '# Memory\nfirst', leaseId: synth.body.leaseId })).body.success, true);
      assert.equal((await api.post('/api/hooks/synthesis/complete', { content: '# Memory\nsecond' })).body.success, true);
      const dir = path.join(dataDir, 'memory', 'default');
      assert.equal(fs.readFileSync(path.join(dir, 'MEMORY.md'), 'utf8'), '# Memory\nsecond');
      assert.equal(fs.readdirSync(dir).filter((f) => f.endsWith('.bak')).length, 1);
      assert.equal((await api.post('/api/hooks/synthesis/complete', {})).status, 400);
    });
  });

  it('streams session changes as server-sent events', async () => {
    const received: string[] = [];
    const req = http.get(`${daemon.server.url}/api/events`, { headers: { authorization: `Bearer ${daemon.token}` } });
    const got = new Promise<void>((resolve, reject) => {
      req.on('response', (res) => {
        assert.match(String(res.headers['content-type']), /text\/event-stream/);
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          received.push(chunk);
          if (received.join('').includes('"live-one"')) resolve();
        });
      });
      req.on('error', reject);
    });
    await new Promise((r) => setTimeout(r, 100));
    await api.post('/api/hooks/user-prompt-submit', { harness: 'codex', sessionKey: 'live-one', userPrompt: 'hi' });
    await Promise.race([got, new Promise((_, reject) => setTimeout(() => reject(new Error('no event within 5 s')), 5000))]);
    assert.match(received.join(''), /event: sessions\ndata: \{"keys":\["live-one"\]/);
    req.destroy();
  });

  it('baton serve finishes in-flight work on SIGTERM, removes endpoint.json and exits 0', async () => {
    const dir = tempDir();
    const child = spawn(process.execPath, [CLI, 'serve', '--data-dir', dir, '--port', '0', '--quiet'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
        if (m) resolve(m[1]);
      });
      child.once('exit', (code) => reject(new Error(`serve exited early (${code})`)));
      setTimeout(() => reject(new Error('serve did not start in 15 s')), 15_000);
    });
    const endpoint = JSON.parse(fs.readFileSync(path.join(dir, 'endpoint.json'), 'utf8'));
    assert.equal(endpoint.url, url);
    assert.equal(fs.statSync(path.join(dir, 'endpoint.json')).mode & 0o777, 0o600);
    const inflight = fetch(`${url}/api/hooks/user-prompt-submit`, {
      method: 'POST',
      headers: { authorization: `Bearer ${endpoint.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ harness: 'codex', sessionKey: 'last-words', userPrompt: 'written just before shutdown' }),
    });
    const res = await inflight;
    assert.equal(res.status, 200);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
    assert.ok(!fs.existsSync(path.join(dir, 'endpoint.json')));
    const again = await startDaemon({ dataDir: dir, port: 0 });
    try {
      assert.equal((await again.store.read('transcript', { scope: 'all', key: 'last-words' })).content, 'User: written just before shutdown');
    } finally {
      await again.stop();
    }
  });
});
