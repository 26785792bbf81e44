// Children survive compaction (docs/inheritance.md): after the parent compacts, its next prompt
// hears once which sub-agents ran and what they found; the same through a route and MCP; and the
// rules by hand through MCP. Real HTTP on 127.0.0.1, real store on disk, the real hook payloads.

import { strict as assert } from 'node:assert';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startDaemon, type Daemon } from '../../src/server/daemon';
import { SUBAGENTS_HEADING } from '../../src/core/subagentDigest';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';
import { jsonClient, type JsonClient } from '../helpers/jsonClient';

describe('sub-agents survive the parent compaction (real HTTP, real store)', function () {
  this.timeout(60_000);
  let daemon: Daemon;
  let dataDir: string;
  let api: JsonClient;

  beforeEach(async () => {
    dataDir = tempDir();
    daemon = await startDaemon({ dataDir, port: 0, config: { transcriptRoots: [tempDir('baton-transcripts-')] } });
    api = jsonClient(daemon);
  });
  afterEach(async () => daemon.stop());
  after(cleanupTempDirs);

  /** A Claude Code hook payload through the raw hook route; returns the context it injects. */
  async function hook(payload: Record<string, unknown>): Promise<string> {
    const r = await api.post('/api/hooks/claude-code', { session_id: 'root', cwd: '/repo', ...payload });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return (r.body.hookSpecificOutput?.additionalContext as string | undefined) ?? '';
  }

  /** A parent that ran an Explore sub-agent through the harness and one ASYNC_POLL run. */
  async function parentWithChildren() {
    await hook({ hook_event_name: 'SessionStart', source: 'startup' });
    await hook({ hook_event_name: 'UserPromptSubmit', prompt: 'Find where sessions expire.' });
    await hook({ hook_event_name: 'SubagentStart', agent_id: 'e1', agent_type: 'Explore' });
    // The sub-agent's own prompt and answer, as its hooks record them.
    const child = await api.post('/api/hooks/user-prompt-submit', {
      harness: 'claude-code',
      sessionKey: 'root/agent-e1',
      userPrompt: 'Search the code for session expiry.',
    });
    assert.equal(child.status, 200, JSON.stringify(child.body));
    await hook({
      hook_event_name: 'SubagentStop',
      agent_id: 'e1',
      agent_type: 'Explore',
      last_assistant_message: 'Sessions expire in src/auth/ttl.ts after 30 minutes.',
    });
    const run = await api.post('/api/runs', {
      parentSessionKey: 'root',
      runner: 'external',
      executionMode: 'ASYNC_POLL',
      prompt: 'Benchmark the token refresh path.',
      status: 'completed',
      resultContent: 'Refresh takes 4 ms at p99.',
    });
    assert.equal(run.status, 200, JSON.stringify(run.body));
  }

  it('after PostCompact, the next prompt carries each sub-agent type, task, status and result, exactly once', async () => {
    await parentWithChildren();
    assert.doesNotMatch(await hook({ hook_event_name: 'UserPromptSubmit', prompt: 'Before compaction.' }), /Sub-agents of this session/);
    await hook({ hook_event_name: 'PostCompact', compact_summary: 'We looked for session expiry.' });
    const context = await hook({ hook_event_name: 'UserPromptSubmit', prompt: 'What did we find?' });
    assert.match(context, new RegExp(SUBAGENTS_HEADING));
    assert.match(
      context,
      /- Explore root\/agent-e1 — completed\n {2}Task: Search the code for session expiry\.\n {2}Result: Sessions expire in src\/auth\/ttl\.ts after 30 minutes\./,
    );
    assert.match(context, /- external run \S+ — completed\n {2}Task: Benchmark the token refresh path\.\n {2}Result: Refresh takes 4 ms at p99\./);
    assert.ok(context.indexOf('Explore') < context.indexOf('external'), 'oldest first');
    assert.doesNotMatch(await hook({ hook_event_name: 'UserPromptSubmit', prompt: 'And then?' }), /Sub-agents of this session/, 'once');
  });

  it("Claude Code's SessionStart with source compact marks it too, and the mark survives a restart", async () => {
    await parentWithChildren();
    await hook({ hook_event_name: 'SessionStart', source: 'compact' });
    await daemon.stop();
    daemon = await startDaemon({ dataDir, port: 0, config: { transcriptRoots: [tempDir('baton-transcripts-')] } });
    api = jsonClient(daemon);
    assert.match(await hook({ hook_event_name: 'UserPromptSubmit', prompt: 'Where were we?' }), /Explore root\/agent-e1 — completed/);
  });

  it('a PostCompact without a summary (Codex) marks the compaction; a transcript sync (Stop) takes nothing', async () => {
    await parentWithChildren();
    await hook({ hook_event_name: 'PostCompact' });
    assert.equal(await hook({ hook_event_name: 'Stop', last_assistant_message: 'ok' }), '');
    assert.match(await hook({ hook_event_name: 'UserPromptSubmit', prompt: 'Next.' }), /Sub-agents of this session/);
  });

  it('the same digest through GET /api/sessions/:key/subagents and the session_subagents MCP tool; rules by hand through MCP', async () => {
    await parentWithChildren();
    const r = await api.get('/api/sessions/root/subagents');
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.count, 2);
    assert.deepEqual(
      r.body.children.map((c: any) => [c.type, c.status]),
      [
        ['Explore', 'completed'],
        ['external', 'completed'],
      ],
    );
    assert.equal((await api.get('/api/sessions/nope/subagents')).status, 404);

    const client = new Client({ name: 'baton-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${daemon.server.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${daemon.token}`, 'x-agent-session-id': 'root' } },
      }),
    );
    try {
      const textOf = (x: unknown) => ((x as { content: Array<{ text: string }> }).content ?? []).map((c) => c.text).join('\n');
      const digest = await client.callTool({ name: 'session_subagents', arguments: {} });
      assert.match(textOf(digest), /Explore root\/agent-e1 — completed/);
      assert.match(textOf(digest), /Refresh takes 4 ms/);

      const added = await client.callTool({ name: 'add_constraint', arguments: { content: 'Never log session tokens.' } });
      assert.match(textOf(added), /Added constraint #\d+ to root/);
      const listed = await client.callTool({ name: 'list_constraints', arguments: { sessionKey: 'root' } });
      assert.match(textOf(listed), /rules: Never log session tokens\./);
      const id = Number(/#(\d+)/.exec(textOf(added))![1]);
      assert.match(textOf(await client.callTool({ name: 'edit_constraint', arguments: { id, active: false } })), /inactive/);
      assert.doesNotMatch((await api.get('/api/sessions/root/inherited')).body.block, /Never log session tokens/);

      const entity = await client.callTool({ name: 'add_entity', arguments: { name: 'src/auth/ttl.ts', kind: 'file' } });
      assert.match(textOf(entity), /src\/auth\/ttl\.ts is active/);
      assert.ok((await api.get('/api/sessions/root/inherited')).body.sections.focalEntities.includes('src/auth/ttl.ts'));
      const eid = Number(/#(\d+)/.exec(textOf(entity))![1]);
      await client.callTool({ name: 'edit_entity', arguments: { id: eid, active: false } });
      assert.match(textOf(await client.callTool({ name: 'list_entities', arguments: { all: true } })), /\(inactive\) src\/auth\/ttl\.ts/);
      const bad = await client.callTool({ name: 'edit_entity', arguments: { id: 99999, active: false } });
      assert.equal((bad as { isError?: boolean }).isError, true);
      assert.match(textOf(bad), /entity 99999 not found/);
    } finally {
      await client.close();
    }
  });
});
