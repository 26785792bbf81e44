// The MCP endpoint through the official SDK client over real HTTP on 127.0.0.1.

import { strict as assert } from 'node:assert';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startDaemon, type Daemon } from '../../src/server/daemon';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';

async function connect(daemon: Daemon, headers: Record<string, string> = {}, token = daemon.token): Promise<Client> {
  const client = new Client({ name: 'baton-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${daemon.server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}`, ...headers } } }),
  );
  return client;
}

function textOf(result: unknown): string {
  return ((result as { content: Array<{ text: string }> }).content ?? []).map((c) => c.text).join('\n');
}

describe('MCP endpoint (/mcp, Streamable HTTP)', function () {
  this.timeout(60_000);
  let daemon: Daemon;

  before(async () => {
    daemon = await startDaemon({ dataDir: tempDir(), port: 0 });
    const post = (route: string, body: unknown) =>
      fetch(daemon.server.url + route, {
        method: 'POST',
        headers: { authorization: `Bearer ${daemon.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    await post('/api/hooks/user-prompt-submit', {
      harness: 'claude-code',
      sessionKey: 'parent',
      project: '/repo',
      userPrompt: 'Deploy plan uses blue-green with CANARY-88',
    });
    await post('/api/hooks/session-start', { harness: 'claude-code', sessionKey: 'parent/agent-1', parentSessionKey: 'parent', project: '/repo' });
    await post('/api/hooks/user-prompt-submit', {
      harness: 'claude-code',
      sessionKey: 'other',
      project: '/repo',
      userPrompt: 'unrelated CANARY-88 mention elsewhere',
    });
  });
  after(async () => {
    await daemon.stop();
    cleanupTempDirs();
  });

  it('lists the tools', async () => {
    const client = await connect(daemon);
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), [
      'add_constraint',
      'add_entity',
      'edit_constraint',
      'edit_entity',
      'inherited_context',
      'list_constraints',
      'list_entities',
      'list_sessions',
      'memory_search',
      'memory_store',
      'session_search',
      'session_subagents',
      'session_transcript',
    ]);
    await client.close();
  });

  it('defaults to the parent session when the caller is a sub-agent (X-Agent-Session-Id)', async () => {
    const client = await connect(daemon, { 'x-agent-session-id': 'parent/agent-1' });
    const search = await client.callTool({ name: 'session_search', arguments: { query: 'canary' } });
    assert.deepEqual(
      (search.structuredContent as { hits: Array<{ sessionKey: string }> }).hits.map((h) => h.sessionKey),
      ['parent'],
    );
    const transcript = await client.callTool({ name: 'session_transcript', arguments: {} });
    assert.equal(textOf(transcript), 'User: Deploy plan uses blue-green with CANARY-88');
    const inherited = await client.callTool({ name: 'inherited_context', arguments: {} });
    assert.match(textOf(inherited), /^## Inherited from Parent Session\n/);
    assert.match(textOf(inherited), /CANARY-88/);
    // With a task, the parent's turns are chosen for it (docs/inheritance.md, "The child's task").
    const forTask = await client.callTool({ name: 'inherited_context', arguments: { task: 'check the canary rollout' } });
    assert.match(textOf(forTask), /\(for the task\):\n.*CANARY-88/);
    await client.close();
  });

  it('searches everything visible for a caller that is not a sub-agent, and lists sessions', async () => {
    const client = await connect(daemon);
    const search = await client.callTool({ name: 'session_search', arguments: { query: 'canary' } });
    assert.deepEqual((search.structuredContent as { hits: Array<{ sessionKey: string }> }).hits.map((h) => h.sessionKey).sort(), ['other', 'parent']);
    const listed = await client.callTool({ name: 'list_sessions', arguments: {} });
    assert.match(textOf(listed), /parent\/agent-1 claude-code active child of parent/);
    // Spend: these sessions' transcripts report none, which the list says (never a zero).
    assert.match(textOf(listed), /parent\/agent-1 .*; spend not reported/);
    const listedSessions = (listed.structuredContent as { sessions: Array<{ key: string; spend: unknown }> }).sessions;
    assert.deepEqual(listedSessions.find((s) => s.key === 'parent/agent-1')?.spend, { own: null, total: null });
    const noDefault = await client.callTool({ name: 'session_transcript', arguments: {} });
    assert.equal(noDefault.isError, true);
    assert.match(textOf(noDefault), /Name a sessionKey/);
    const missing = await client.callTool({ name: 'session_transcript', arguments: { sessionKey: 'nope' } });
    assert.equal(missing.isError, true);
    assert.match(textOf(missing), /not found/);
    await client.close();
  });

  it("holds a tool to its route's own validation: a query the search route refuses is refused over MCP too, with its message", async () => {
    const long = 'canary '.repeat(2000);
    const res = await fetch(`${daemon.server.url}/api/sessions/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${daemon.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: long }),
    });
    assert.equal(res.status, 400);
    const { error } = (await res.json()) as { error: string };
    const client = await connect(daemon);
    const search = await client.callTool({ name: 'session_search', arguments: { query: long } });
    assert.equal(search.isError, true);
    assert.equal(textOf(search), error);
    await client.close();
  });

  it('needs the token, and refuses foreign hosts and origins', async () => {
    await assert.rejects(connect(daemon, {}, 'wrong-token'));
    const res = await fetch(`${daemon.server.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${daemon.token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        origin: 'http://evil.example',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(res.status, 403);
    assert.equal(res.headers.get('access-control-allow-origin'), null);
  });
});
