// Memories through every door (docs/memory.md, "The doors"): the hook recall, the general route
// POST /api/memory/recall, the MCP tools memory_search / memory_store and the built CLI's
// `baton recall` / `baton remember`, over real HTTP on 127.0.0.1 against the real store on disk.
// One recall path: the same memories in the same order, and one context-epoch ledger.

import { strict as assert } from 'node:assert';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startDaemon, type Daemon } from '../../src/server/daemon';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';
import { jsonClient as client, runCliAsync } from '../helpers/jsonClient';

async function connect(daemon: Daemon, token = daemon.token): Promise<Client> {
  const mcp = new Client({ name: 'baton-test', version: '1.0.0' });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${daemon.server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return mcp;
}

function textOf(result: unknown): string {
  return ((result as { content: Array<{ text: string }> }).content ?? []).map((c) => c.text).join('\n');
}

describe('memory through every door (real HTTP, MCP and CLI)', function () {
  this.timeout(60_000);
  let dataDir: string;
  let daemon: Daemon;
  let api: ReturnType<typeof client>;

  beforeEach(async () => {
    dataDir = tempDir('baton-memdoors-');
    // Recall alone: sessions here are told no memories at their start (test/server/startMemories.test.ts is about that).
    daemon = await startDaemon({ dataDir, port: 0, config: { startMemories: false } });
    api = client(daemon);
  });
  afterEach(async () => daemon?.stop());
  after(cleanupTempDirs);

  async function remember(content: string, extra: Record<string, unknown> = {}): Promise<string> {
    const reply = await api.post('/api/hooks/remember', { harness: 'claude-code', content, ...extra });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    return reply.body.memoryId as string;
  }
  const hookRecall = (body: Record<string, unknown>) => api.post('/api/hooks/recall', { harness: 'claude-code', ...body });
  const routeRecall = (body: Record<string, unknown>) => api.post('/api/memory/recall', body);
  const ids = (reply: { body: { results: Array<{ id: string }> } }) => reply.body.results.map((r) => r.id);
  async function startSession(sessionKey: string) {
    assert.equal((await api.post('/api/hooks/session-start', { harness: 'claude-code', sessionKey })).status, 200);
  }

  it('the route answers what the hook recall answers: the same memories in the same order', async () => {
    await remember('the billing service retries payments three times', { type: 'fact', importance: 0.5 });
    await remember('never retry a billing call without an idempotency key', { type: 'constraint', importance: 0.95 });
    await remember('we decided billing retries back off exponentially', { type: 'decision', importance: 0.8 });
    await remember('billing dashboards live in grafana', { type: 'fact', importance: 0.3, project: '/other' });
    for (const body of [
      { query: 'billing retries' },
      { query: 'billing', limit: 2 },
      { query: 'billing', project: '/other' },
      { query: 'which retry policies' },
    ]) {
      const viaHook = await hookRecall(body);
      const viaRoute = await routeRecall(body);
      assert.equal(viaRoute.status, 200, JSON.stringify(viaRoute.body));
      assert.ok(viaHook.body.count > 0, `${JSON.stringify(body)} finds something`);
      assert.deepEqual(ids(viaRoute), ids(viaHook), JSON.stringify(body));
      assert.equal(viaRoute.body.message, viaHook.body.message);
      assert.deepEqual(viaRoute.body.meta, viaHook.body.meta);
    }
    // With a session each: the same memories, in the same order, for two fresh ledgers.
    await startSession('via-hook');
    await startSession('via-route');
    const viaHook = await hookRecall({ query: 'billing', sessionKey: 'via-hook' });
    const viaRoute = await routeRecall({ query: 'billing', sessionKey: 'via-route' });
    assert.equal(viaHook.body.count, 4);
    assert.deepEqual(ids(viaRoute), ids(viaHook));
    assert.equal(viaRoute.body.contextEpoch, 0);
  });

  it('both doors share the context-epoch ledger: a memory recalled into a session is not returned to it again by either', async () => {
    await startSession('s1');
    const a = await remember('deploys go through the staging cluster first', { type: 'constraint' });
    const b = await remember('the staging cluster lives in eu-west-1', { type: 'fact' });
    const first = await routeRecall({ query: 'staging cluster', sessionKey: 's1' });
    assert.deepEqual(ids(first).sort(), [a, b].sort());
    assert.equal((await hookRecall({ query: 'staging cluster', sessionKey: 's1' })).body.count, 0, 'the hook sees what the route recalled');
    const c = await remember('the staging cluster is rebuilt every Sunday', { type: 'fact' });
    assert.deepEqual(ids(await hookRecall({ query: 'staging cluster', sessionKey: 's1' })), [c]);
    assert.equal((await routeRecall({ query: 'staging cluster', sessionKey: 's1' })).body.count, 0, 'the route sees what the hook recalled');
    // Without a session there is no ledger; a compaction starts a new epoch for both doors.
    assert.equal((await routeRecall({ query: 'staging cluster' })).body.count, 3);
    await api.post('/api/hooks/compaction-complete', { harness: 'claude-code', sessionKey: 's1', summary: 'worked on deploy docs' });
    const fresh = await routeRecall({ query: 'staging cluster', sessionKey: 's1' });
    assert.equal(fresh.body.contextEpoch, 1);
    assert.deepEqual(ids(fresh).sort(), [a, b, c].sort());
    assert.equal((await hookRecall({ query: 'staging cluster', sessionKey: 's1' })).body.count, 0);
    // The route writes the ledger too: only from the runtime path that holds the session.
    await api.post('/api/hooks/session-start', { harness: 'claude-code', sessionKey: 'claimed', runtimePath: 'plugin' });
    const refused = await api.post('/api/memory/recall', { query: 'staging cluster', sessionKey: 'claimed' }, { 'x-baton-runtime-path': 'legacy' });
    assert.equal(refused.status, 409, JSON.stringify(refused.body));
    const held = await api.post('/api/memory/recall', { query: 'staging cluster', sessionKey: 'claimed' }, { 'x-baton-runtime-path': 'plugin' });
    assert.equal(held.body.count, 3);
  });

  it('answers bad input with a 4xx JSON error, and records nothing', async () => {
    await remember('the cache holds sessions', { type: 'fact' });
    for (const [body, status, pattern] of [
      [{ query: '' }, 400, /^query: must not be empty/],
      [{ query: '   ' }, 400, /^query: must not be empty/],
      [{}, 400, /^query: /],
      [{ query: 'cache', limit: 0 }, 400, /^limit: /],
      [{ query: 'cache', limit: 51 }, 400, /^limit: /],
      [{ query: 'cache', limit: 2.5 }, 400, /^limit: /],
      [{ query: 'cache', limit: '5' }, 400, /^limit: /],
      [{ query: 'cache', sessionKey: 'no-such-session' }, 404, /session no-such-session not found/],
      [{ query: 'cache', sessionKey: '..' }, 400, /^sessionKey: /],
    ] as const) {
      const reply = await routeRecall(body);
      assert.equal(reply.status, status, `${JSON.stringify(body)}: ${JSON.stringify(reply.body)}`);
      assert.match(reply.body.error, pattern, JSON.stringify(body));
    }
    // The unknown session got no ledger: once it starts, it is handed the memory.
    await startSession('no-such-session');
    assert.equal((await routeRecall({ query: 'cache', sessionKey: 'no-such-session' })).body.count, 1);
    // The hook keeps its lenient normalisation (a limit is clamped, an unknown session is taken).
    assert.equal((await hookRecall({ query: 'cache', limit: 51 })).status, 200);
    assert.equal((await hookRecall({ query: 'cache', sessionKey: 'not-reported-yet' })).body.count, 1);
  });

  it("holds the route and the MCP tools to the token: 403 without recall or remember, with the route's own message", async () => {
    await remember('the admin kept this about pelicans', { type: 'fact' });
    const writer = (await api.post('/api/tokens', { agentId: 'default', permissions: ['remember'] })).body.token as string;
    const reader = (await api.post('/api/tokens', { agentId: 'default', permissions: ['recall'] })).body.token as string;

    const refused = await client(daemon, writer).post('/api/memory/recall', { query: 'pelicans' });
    assert.equal(refused.status, 403);
    assert.match(refused.body.error, /lacks the "recall" permission/);
    // The MCP endpoint itself needs recall: such a token is refused there, with the route's 403.
    await assert.rejects(connect(daemon, writer), (err: Error) => err.message.includes(JSON.stringify(refused.body.error)));

    const before = (await routeRecall({ query: 'pelicans' })).body.count;
    const noWrite = await client(daemon, reader).post('/api/hooks/remember', { harness: 'mcp', content: 'pelicans can write' });
    assert.equal(noWrite.status, 403);
    const readerMcp = await connect(daemon, reader);
    const store = await readerMcp.callTool({ name: 'memory_store', arguments: { content: 'pelicans can write' } });
    assert.equal(store.isError, true);
    assert.equal(textOf(store), noWrite.body.error);
    // The reader may recall, and nothing was stored.
    const allowed = await readerMcp.callTool({ name: 'memory_search', arguments: { query: 'pelicans' } });
    assert.equal(allowed.isError, undefined);
    assert.match(textOf(allowed), /the admin kept this about pelicans/);
    await readerMcp.close();
    assert.equal((await routeRecall({ query: 'pelicans' })).body.count, before);
  });

  it('MCP memory_store then memory_search finds it, and the hook recalls it too', async () => {
    const agent = (await api.post('/api/tokens', { agentId: 'default', permissions: ['remember', 'recall'] })).body.token as string;
    const mcp = await connect(daemon, agent);
    const stored = await mcp.callTool({
      name: 'memory_store',
      arguments: { content: 'the flamingo importer needs UTF-16 input', type: 'fact', tags: 'importer', project: '/zoo' },
    });
    assert.equal(stored.isError, undefined, textOf(stored));
    const memoryId = (stored.structuredContent as { memoryId: string }).memoryId;
    assert.match(textOf(stored), new RegExp(`Stored memory ${memoryId}`));
    const found = await mcp.callTool({ name: 'memory_search', arguments: { query: 'flamingo importer', project: '/zoo' } });
    assert.deepEqual(
      (found.structuredContent as { results: Array<{ id: string; type: string; tags: string }> }).results.map((r) => [r.id, r.type, r.tags]),
      [[memoryId, 'fact', 'importer']],
    );
    assert.match(textOf(found), /flamingo importer needs UTF-16 input/);
    const none = await mcp.callTool({ name: 'memory_search', arguments: { query: 'flamingo', project: '/elsewhere' } });
    assert.equal(textOf(none), 'No memory matches "flamingo".');
    const blank = await mcp.callTool({ name: 'memory_search', arguments: { query: ' ' } });
    assert.equal(blank.isError, true);
    await mcp.close();
    assert.deepEqual(ids(await hookRecall({ query: 'flamingo importer' })), [memoryId]);
  });

  it('baton remember then baton recall finds it, through the running server (human and --json output)', async () => {
    const env = { ...process.env, BATON_DATA_DIR: dataDir };
    const kept = await runCliAsync(['remember', 'the', 'otter', 'service', 'speaks', 'gRPC', '--type', 'fact', '--project', '/river'], env);
    assert.equal(kept.status, 0, kept.stderr);
    const memoryId = /^remembered (\S+)$/m.exec(kept.stdout)?.[1];
    assert.ok(memoryId, kept.stdout);
    const asJson = await runCliAsync(['remember', 'otters', 'prefer', 'small', 'commits', '--type', 'preference', '--json'], env);
    assert.equal(asJson.status, 0, asJson.stderr);
    const second = JSON.parse(asJson.stdout) as { success: boolean; memoryId: string };
    assert.equal(second.success, true);

    const human = await runCliAsync(['recall', 'otter', 'service'], env);
    assert.equal(human.status, 0, human.stderr);
    assert.match(human.stdout, /^- \[fact\] the otter service speaks gRPC \(\d{4}-\d{2}-\d{2}\)$/m);
    const json = await runCliAsync(['recall', 'otter', '--project', '/river', '--json'], env);
    assert.equal(json.status, 0, json.stderr);
    const parsed = JSON.parse(json.stdout) as { query: string; count: number; memories: Array<{ id: string }> };
    assert.equal(parsed.query, 'otter');
    assert.deepEqual(
      parsed.memories.map((m) => m.id),
      [memoryId],
    );
    // Exactly what the route answers for the same input.
    assert.deepEqual(
      parsed.memories.map((m) => m.id),
      ids(await routeRecall({ query: 'otter', project: '/river' })),
    );

    // --session writes the session's ledger: the second recall into it leaves the memory out.
    await startSession('cli-s');
    const once = await runCliAsync(['recall', 'gRPC', '--session', 'cli-s', '--json'], env);
    assert.equal(once.status, 0, once.stderr);
    assert.equal((JSON.parse(once.stdout) as { count: number }).count, 1);
    const twice = await runCliAsync(['recall', 'gRPC', '--session', 'cli-s'], env);
    assert.equal(twice.stdout.trim(), 'No memories match "gRPC".');
    assert.equal((await hookRecall({ query: 'gRPC', sessionKey: 'cli-s' })).body.count, 0, 'the hook shares that ledger');

    const unknown = await runCliAsync(['recall', 'otter', '--session', 'nobody'], env);
    assert.equal(unknown.status, 1);
    assert.match(unknown.stderr, /^error: session nobody not found$/m);
    const badLimit = await runCliAsync(['recall', 'otter', '--limit', '51'], env);
    assert.equal(badLimit.status, 2, 'a usage error');
    assert.match(badLimit.stderr, /from 1 to 50/);
  });

  it('baton remember and baton recall work in-process while no server runs', async () => {
    await daemon.stop();
    const env = { ...process.env, BATON_DATA_DIR: dataDir };
    const kept = await runCliAsync(['remember', 'the', 'heron', 'queue', 'drains', 'nightly', '--type', 'fact'], env);
    assert.equal(kept.status, 0, kept.stderr);
    const found = await runCliAsync(['recall', 'heron', 'queue', '--json'], env);
    assert.equal(found.status, 0, found.stderr);
    assert.deepEqual(
      (JSON.parse(found.stdout) as { memories: Array<{ content: string }> }).memories.map((m) => m.content),
      ['the heron queue drains nightly'],
    );
    daemon = await startDaemon({ dataDir, port: 0 });
    api = client(daemon);
    assert.equal((await routeRecall({ query: 'heron queue' })).body.count, 1, 'the server reads what the CLI wrote');
  });
});
