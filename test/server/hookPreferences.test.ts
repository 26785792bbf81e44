// Behaviours of the hook routes, archival, checkpoints and the MCP tools that follow from the code
// but had no test of their own, each through the real server on 127.0.0.1 and the real store on
// disk: which of two given inputs wins, what a refused compaction answers and stores, what stays
// readable once archival is off, the scores checkpoint summaries get, what the MCP tools answer
// for a bypassed session, and the parent an OpenClaw sub-agent's search defaults to.

import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ARCHIVAL_DEFAULTS, shouldArchive } from '../../src/core/archival';
import { assertStoreUnchanged, bearer, rawRequest, sleep, startTestServer, storeState, type RawResponse, type TestServer } from '../helpers/server';
import { tempDir } from '../helpers/tmp';

describe('hook inputs, archival off, checkpoint scores and MCP on bypassed or sub-agent sessions (real server)', function () {
  this.timeout(60_000);
  let s: TestServer;
  let roots: string;

  before(async () => {
    roots = tempDir('baton-roots-');
    s = await startTestServer({ transcriptRoots: [roots] });
  });
  after(async () => {
    await s?.daemon.stop();
  });

  const post = (route: string, body: object, headers: Record<string, string> = {}): Promise<RawResponse> =>
    rawRequest({ port: s.port, method: 'POST', path: route, headers: { ...bearer(s.token), ...headers }, body });
  const get = (route: string): Promise<RawResponse> => rawRequest({ port: s.port, path: route, headers: bearer(s.token) });
  const ok = (res: RawResponse, what: string): RawResponse => {
    assert.equal(res.status, 200, `${what}: ${res.status} ${res.text}`);
    return res;
  };
  const stored = async (key: string) => (await s.store.read('turns', { scope: 'all', key, limit: 1000 })).turns.map((t) => `${t.role}: ${t.text}`);

  async function mcp(headers: Record<string, string> = {}): Promise<Client> {
    const client = new Client({ name: 'baton-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${s.daemon.server.url}/mcp`), { requestInit: { headers: { ...bearer(s.token), ...headers } } }),
    );
    return client;
  }
  const textOf = (result: unknown): string => ((result as { content: Array<{ text: string }> }).content ?? []).map((c) => c.text).join('\n');

  it('user-prompt-submit with both an inline transcript and a transcriptPath stores the inline one and never reads the file', async () => {
    const file = path.join(roots, 'both.jsonl');
    fs.writeFileSync(
      file,
      [
        JSON.stringify({ type: 'user', message: { role: 'user', content: 'FROM-THE-FILE question' } }),
        JSON.stringify({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'FROM-THE-FILE answer' }] } }),
      ].join('\n') + '\n',
    );
    // The file alone is read (so it is readable and parses): the preference is what the next request shows.
    ok(await post('/api/hooks/user-prompt-submit', { harness: 'claude-code', sessionKey: 'file-only', transcriptPath: file }), 'file only');
    assert.ok((await stored('file-only')).some((t) => t.includes('FROM-THE-FILE')));
    assert.notEqual(await s.store.read('transcriptFile', { agentId: 'default', key: 'file-only', path: fs.realpathSync(file) }), null);

    const inline = [
      { role: 'user', content: 'INLINE question' },
      { role: 'assistant', content: 'INLINE answer' },
    ];
    const res = ok(
      await post('/api/hooks/user-prompt-submit', { harness: 'claude-code', sessionKey: 'both', transcript: inline, transcriptPath: file }),
      'both given',
    );
    assert.equal(res.json.turnCount, 2);
    assert.deepEqual(await stored('both'), ['user: INLINE question', 'assistant: INLINE answer']);
    // Not even as the session's file source: a later write naming no transcript does not read it.
    assert.equal(await s.store.read('transcriptFile', { agentId: 'default', key: 'both', path: fs.realpathSync(file) }), null);
  });

  it('user-prompt-submit with both userMessage and userPrompt records userMessage as the prompt', async () => {
    const res = ok(
      await post('/api/hooks/user-prompt-submit', {
        harness: 'claude-code',
        sessionKey: 'prompts',
        userMessage: 'the MESSAGE wins',
        userPrompt: 'the PROMPT loses',
      }),
      'both prompts',
    );
    assert.equal(res.json.turnCount, 1);
    assert.deepEqual(await stored('prompts'), ['user: the MESSAGE wins']);
  });

  it('compaction-complete without a harness or without a summary is a 400 with a JSON error, and nothing is stored', async () => {
    ok(await post('/api/hooks/user-prompt-submit', { harness: 'claude-code', sessionKey: 'compacted', userPrompt: 'some work' }), 'session');
    const before = await storeState(s.store);
    const summariesBefore = await s.store.read('summaries', { scope: 'all', sessionKey: 'compacted' });
    const artifactsBefore = fs.existsSync(path.join(s.dataDir, 'memory')) ? fs.readdirSync(path.join(s.dataDir, 'memory'), { recursive: true }).length : 0;
    for (const [what, body] of [
      ['no harness', { sessionKey: 'compacted', summary: 'We chose blue-green.' }],
      ['no summary', { harness: 'claude-code', sessionKey: 'compacted' }],
      ['a blank summary', { harness: 'claude-code', sessionKey: 'compacted', summary: '   ' }],
    ] as const) {
      const res = await post('/api/hooks/compaction-complete', body);
      assert.equal(res.status, 400, `${what}: ${res.text}`);
      assert.equal(typeof res.json?.error, 'string', `${what}: a JSON error`);
    }
    await assertStoreUnchanged(s.store, before, 'refused compactions');
    assert.deepEqual(await s.store.read('summaries', { scope: 'all', sessionKey: 'compacted' }), summariesBefore);
    const artifactsAfter = fs.existsSync(path.join(s.dataDir, 'memory')) ? fs.readdirSync(path.join(s.dataDir, 'memory'), { recursive: true }).length : 0;
    assert.equal(artifactsAfter, artifactsBefore, 'no compaction markdown is written');
  });

  it('archival turned off after archiving: the holder and the marker stay readable, and no finished turn archives any more', async () => {
    const transcript = [
      { role: 'user', content: 'Find the auth handler' },
      { role: 'assistant', content: 'It is in src/auth/handler.ts, line 42.' },
      { role: 'user', content: 'thanks' },
      { role: 'assistant', content: 'You are welcome.' },
    ];
    ok(await post('/api/hooks/user-prompt-submit', { harness: 'baton', sessionKey: 'archived', transcript }), 'session');
    const archived = ok(await post('/api/sessions/archived/archive', { from: 1, to: 2, summary: 'Found the auth handler.' }), 'archive');
    const holder = archived.json.holderKey as string;

    // Off: the trigger rules never fire again, whatever the turn (docs/archival.md, "Triggers").
    const off = { ...ARCHIVAL_DEFAULTS, enabled: false };
    const huge = { text: 'x'.repeat(200_000), maxTurnsEnding: true, toolCalls: 50, toolCallOpen: false, depth: 0 };
    assert.deepEqual(shouldArchive(off, huge), { archive: false, reason: 'disabled' });
    assert.equal(shouldArchive({ ...off, enabled: true }, huge).archive, true, 'the same turn archives while archival is on');

    // What was archived stays: the holder's turns, the holder under its parent, the marker in the parent.
    const holderTurns = ok(await get(`/api/sessions/${encodeURIComponent(holder)}/turns`), 'holder turns').json.turns as Array<{ text: string }>;
    assert.deepEqual(
      holderTurns.map((t) => t.text),
      ['Find the auth handler', 'It is in src/auth/handler.ts, line 42.'],
    );
    const children = ok(await get('/api/sessions?parent=archived'), 'children').json.sessions as Array<{ key: string }>;
    assert.deepEqual(
      children.map((c) => c.key),
      [holder],
    );
    assert.ok((await stored('archived')).some((t) => t.startsWith('system: [archived turn]') && t.includes(holder)));
    const found = ok(await post('/api/sessions/search', { query: 'handler.ts', sessionKey: holder }), 'search holder').json.hits as unknown[];
    assert.equal(found.length, 1);
  });

  it('checkpoint summaries are scored 0.85 for a checkpoint extraction and 0.95 for a compaction', async () => {
    const transcript = Array.from({ length: 6 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `step ${i} of the migration plan `.repeat(12) }));
    ok(await post('/api/hooks/user-prompt-submit', { harness: 'baton', sessionKey: 'scored', transcript }), 'session');
    const queued = ok(await post('/api/hooks/session-checkpoint-extract', { harness: 'baton', sessionKey: 'scored' }), 'checkpoint');
    assert.equal(queued.json.queued, true, queued.text);
    let status = '';
    for (let i = 0; i < 200 && status !== 'completed' && status !== 'failed'; i++) {
      status = ok(await get(`/api/jobs/${queued.json.jobId}`), 'job').json.status;
      if (status !== 'completed') await sleep(50);
    }
    assert.equal(status, 'completed');
    ok(await post('/api/hooks/compaction-complete', { harness: 'baton', sessionKey: 'scored', summary: 'Migration planned in six steps.' }), 'compaction');
    const nodes = await s.store.read('summaries', { scope: 'all', sessionKey: 'scored' });
    const byKind = Object.fromEntries(nodes.map((n) => [n.kind, n.score]));
    assert.deepEqual(byKind, { checkpoint: 0.85, compaction: 0.95 });
  });

  it('MCP tools on a bypassed session: memory_store answers "not stored" and keeps nothing; reads still answer', async () => {
    ok(await post('/api/hooks/user-prompt-submit', { harness: 'claude-code', sessionKey: 'quiet', userPrompt: 'the QUOKKA-17 plan' }), 'session');
    ok(await post('/api/sessions/quiet/bypass', { enabled: true }), 'bypass');
    const before = await storeState(s.store);
    const client = await mcp({ 'x-agent-session-id': 'quiet' });
    try {
      const storedReply = await client.callTool({ name: 'memory_store', arguments: { content: 'QUOKKA-17 uses the blue pool' } });
      assert.equal(storedReply.isError, undefined);
      assert.equal(textOf(storedReply), 'Not stored: recording is turned off for this session (bypassed).');
      assert.equal((storedReply.structuredContent as { bypassed?: boolean }).bypassed, true);
      await assertStoreUnchanged(s.store, before, 'memory_store on a bypassed session');
      // Bypass stops recording, not reading: the session's own transcript is still searchable.
      const search = await client.callTool({ name: 'session_search', arguments: { query: 'QUOKKA', sessionKey: 'quiet' } });
      assert.match(textOf(search), /quiet/);
    } finally {
      await client.close();
    }
    // The same through the hook door: a hook's memory write is a no-op too.
    const hookWrite = ok(await post('/api/hooks/remember', { harness: 'claude-code', sessionKey: 'quiet', content: 'QUOKKA-17 again' }), 'remember');
    assert.equal(hookWrite.json.bypassed, true);
    assert.equal(hookWrite.json.success, false);
    await assertStoreUnchanged(s.store, before, 'remember on a bypassed session');
  });

  it('session_search from an OpenClaw sub-agent key (agent:<id>:subagent:<uuid>) searches its parent agent:<id>:main by default', async () => {
    ok(
      await post('/api/hooks/user-prompt-submit', { harness: 'openclaw', sessionKey: 'agent:nicholai:main', userPrompt: 'the parent decided on PELICAN-5' }),
      'parent',
    );
    ok(
      await post('/api/hooks/user-prompt-submit', { harness: 'openclaw', sessionKey: 'agent:other:main', userPrompt: 'someone else also said PELICAN-5' }),
      'other',
    );
    const child = 'agent:nicholai:subagent:6f1c2a4e-0b7d-4c1e-9a53-2d8f0e4b7c11';
    const client = await mcp();
    try {
      const result = await client.callTool({ name: 'session_search', arguments: { query: 'PELICAN', currentSessionKey: child } });
      const hits = (result.structuredContent as { hits: Array<{ sessionKey: string }> }).hits;
      assert.deepEqual(
        hits.map((h) => h.sessionKey),
        ['agent:nicholai:main'],
      );
      // Without the sub-agent key, both sessions are found: the default, not the words, narrowed it.
      const all = await client.callTool({ name: 'session_search', arguments: { query: 'PELICAN' } });
      assert.deepEqual(((all.structuredContent as { hits: Array<{ sessionKey: string }> }).hits.map((h) => h.sessionKey) ?? []).sort(), [
        'agent:nicholai:main',
        'agent:other:main',
      ]);
    } finally {
      await client.close();
    }
  });
});
