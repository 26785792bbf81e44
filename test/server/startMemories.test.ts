// Memories told at session start (docs/memory.md, "At session start"): a new session gets the
// memories earlier sessions left, its project's first, then the agent's, within a budget of their
// own, in `memories` and as a section of `inject`; they go to the same context-epoch ledger recall
// uses. Real server on 127.0.0.1, real store on disk, and the built Claude Code hook command.

import { strict as assert } from 'node:assert';
import { startDaemon, type Daemon } from '../../src/server/daemon';
import type { ServerConfig } from '../../src/server/config';
import { MEMORIES_HEADING } from '../../src/core/startMemories';
import { runHook } from '../helpers/hookProcess';
import { jsonClient, type JsonClient } from '../helpers/jsonClient';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';

const HARNESS = 'claude-code';
const PROJECT = '/repo/otters';

interface Told {
  id: string;
  content: string;
  scope: string;
}

describe('memories told at session start (real HTTP, real store)', function () {
  this.timeout(60_000);
  let dataDir: string;
  let daemon: Daemon | undefined;
  let api: JsonClient;

  async function serve(config: Partial<ServerConfig> = {}): Promise<void> {
    dataDir = tempDir('baton-startmem-');
    daemon = await startDaemon({ dataDir, port: 0, config });
    api = jsonClient(daemon);
  }
  afterEach(async () => {
    await daemon?.stop();
    daemon = undefined;
  });
  after(cleanupTempDirs);

  async function start(sessionKey: string, extra: Record<string, unknown> = {}, headers?: Record<string, string>) {
    const reply = await api.post('/api/hooks/session-start', { harness: HARNESS, sessionKey, project: PROJECT, ...extra }, headers);
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    return reply.body as { inject: string; memories: Told[]; contextEpoch?: number };
  }
  async function remember(content: string, extra: Record<string, unknown> = {}): Promise<string> {
    const reply = await api.post('/api/hooks/remember', { harness: HARNESS, content, ...extra });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    return reply.body.memoryId as string;
  }
  const recall = async (sessionKey: string, query: string) => {
    const reply = await api.post('/api/hooks/recall', { harness: HARNESS, sessionKey, query });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    return reply.body as { results: Array<{ id: string }>; contextEpoch: number };
  };

  /** One earlier session leaves a project memory and an agent memory; another project leaves one of its own. */
  async function earlierSession() {
    await start('earlier');
    const agentWide = await remember('the user prefers tabs over spaces in every repository', { sessionKey: 'earlier', type: 'preference', importance: 0.9 });
    const project = await remember('we decided the otter importer reads UTF-16 input', {
      sessionKey: 'earlier',
      project: PROJECT,
      type: 'decision',
      importance: 0.5,
    });
    const elsewhere = await remember('the heron service deploys on fridays', { sessionKey: 'earlier', project: '/repo/herons', type: 'fact', importance: 1 });
    return { agentWide, project, elsewhere };
  }

  it("a new root session is told the project's memory, then the agent's, in memories and in inject; another project's is not told", async () => {
    await serve();
    const ids = await earlierSession();
    const told = await start('fresh');
    // The project's first although the agent's is more important: each group is ranked on its own.
    assert.deepEqual(
      told.memories.map((m) => [m.id, m.scope]),
      [
        [ids.project, 'project'],
        [ids.agentWide, 'agent'],
      ],
    );
    assert.equal(told.contextEpoch, 0);
    const lines = told.inject.split('\n');
    assert.equal(lines[0], MEMORIES_HEADING, 'a root session gets the section alone');
    assert.match(lines[1], /^- \[decision\] we decided the otter importer reads UTF-16 input \(\d{4}-\d{2}-\d{2}\)$/);
    assert.match(lines[2], /^- \[preference\] the user prefers tabs over spaces in every repository/);
    assert.equal(lines.length, 3);
    assert.doesNotMatch(told.inject, /heron/, 'another project’s memory is not told');
    assert.ok(told.inject.length <= 600 * 4, 'within the default budget');
  });

  it('recall in that session does not return them again (one ledger); after a compaction a start tells them again', async () => {
    await serve();
    const ids = await earlierSession();
    await start('fresh');
    assert.deepEqual((await recall('fresh', 'otter importer')).results, [], 'the project memory is in the context already');
    assert.deepEqual((await recall('fresh', 'tabs spaces')).results, [], 'and the agent memory');
    // Another session's ledger is its own.
    await start('other', { injectMemories: false });
    assert.deepEqual(
      (await recall('other', 'otter importer')).results.map((r) => r.id),
      [ids.project],
    );
    // A compaction starts a new context epoch: the summary replaced what the context held.
    const compacted = await api.post('/api/hooks/compaction-complete', {
      harness: HARNESS,
      sessionKey: 'fresh',
      summary: 'Worked on the parser; nothing else.',
    });
    assert.equal(compacted.status, 200, JSON.stringify(compacted.body));
    const again = await start('fresh', { source: 'compact' });
    assert.equal(again.contextEpoch, 1);
    assert.deepEqual(
      again.memories.map((m) => m.id),
      [ids.project, ids.agentWide],
    );
    assert.deepEqual((await recall('fresh', 'otter importer')).results, [], 'and recall leaves them out again in the new epoch');
  });

  it('a second start of the same session in the same epoch tells nothing twice, only what is new', async () => {
    await serve();
    await earlierSession();
    const first = await start('resumed');
    assert.equal(first.memories.length, 2);
    const resumed = await start('resumed', { source: 'resume' });
    assert.deepEqual(resumed.memories, []);
    assert.equal(resumed.inject, '');
    assert.equal(resumed.contextEpoch, undefined, 'with no memories the reply is as before');
    const later = await remember('the otter importer must keep byte order marks', { sessionKey: 'elsewhere', project: PROJECT, type: 'constraint' });
    const third = await start('resumed', { source: 'resume' });
    assert.deepEqual(
      third.memories.map((m) => m.id),
      [later],
    );
    assert.equal(third.inject.split('\n').length, 2);
  });

  it("a session is not told its own memories, and a concurrent second start takes none of the first's", async () => {
    await serve();
    await earlierSession();
    const both = await Promise.all([start('twice'), start('twice')]);
    assert.deepEqual(both.map((r) => r.memories.length).sort(), [0, 2], 'each memory is taken once');
    await start('earlier', { source: 'resume' }).then((r) => assert.deepEqual(r.memories, [], 'its own memories made its context'));
  });

  it('stays within its budget: at most startMemoriesLimit memories and startMemoriesMaxTokens tokens, best first', async () => {
    await serve({ startMemoriesMaxTokens: 100, startMemoriesLimit: 3 });
    const kept: string[] = [];
    for (let i = 0; i < 6; i++) kept.push(await remember(`memory number ${i} ${'about otters '.repeat(3)}`, { project: PROJECT, importance: 0.9 - i / 10 }));
    const told = await start('budgeted');
    assert.ok(told.inject.length <= 100 * 4, `the section (${told.inject.length} chars) fits 100 tokens`);
    assert.ok(told.memories.length >= 1 && told.memories.length <= 3);
    assert.deepEqual(
      told.memories.map((m) => m.id),
      kept.slice(0, told.memories.length),
      'the most important first',
    );
    // Those left out for the budget are not in the ledger: recall still finds them.
    const rest = (await recall('budgeted', 'otters')).results.map((r) => r.id);
    assert.deepEqual(rest.sort(), kept.slice(told.memories.length).sort());
  });

  it('a child is told them after its inherited block', async () => {
    await serve();
    await earlierSession();
    await start('parent', { injectMemories: false });
    await api.post('/api/hooks/user-prompt-submit', { harness: HARNESS, sessionKey: 'parent', userPrompt: 'Fix the otter parser.' });
    const child = await start('parent/agent-1', { parentSessionKey: 'parent' });
    assert.equal(child.memories.length, 2);
    const at = child.inject.indexOf(`\n\n${MEMORIES_HEADING}\n`);
    assert.ok(at > 0, 'the section follows the inherited block');
    assert.match(child.inject.slice(0, at), /Fix the otter parser/);
  });

  it('startMemories: false tells nothing, and so does a call from one of Baton’s own processes', async () => {
    await serve({ startMemories: false });
    await earlierSession();
    const off = await start('fresh');
    assert.deepEqual(off.memories, []);
    assert.equal(off.inject, '');
    assert.equal((await recall('fresh', 'otter importer')).results.length, 1, 'nothing was ledgered');
    await daemon!.stop();
    await serve();
    await earlierSession();
    const internal = await start('inner', {}, { 'x-baton-no-hooks': '1' });
    assert.deepEqual(internal.memories, []);
    assert.equal(internal.inject, '');
    assert.equal((await start('outer')).memories.length, 2, 'the same start from a harness is told them');
  });

  it("Claude Code's SessionStart hook command prints the memories as additionalContext", async () => {
    await serve();
    await start('earlier', { project: '/repo' });
    await remember('we decided releases are cut from main only', { sessionKey: 'earlier', project: '/repo', type: 'decision' });
    await remember('the user wants answers in British English', { type: 'preference' });
    const out = await runHook('claude-code', dataDir, { session_id: 'cc-new', cwd: '/repo', hook_event_name: 'SessionStart', source: 'startup' });
    assert.equal(out.status, 0);
    const printed = JSON.parse(out.stdout) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } };
    assert.equal(printed.hookSpecificOutput.hookEventName, 'SessionStart');
    const lines = printed.hookSpecificOutput.additionalContext.split('\n');
    assert.equal(lines[0], MEMORIES_HEADING);
    assert.equal(lines.length, 3);
    assert.match(
      printed.hookSpecificOutput.additionalContext,
      /\n- \[decision\] we decided releases are cut from main only .*\n- \[preference\] the user wants answers in British English/,
    );
    // Resumed in the same epoch: nothing to print again.
    const resumed = await runHook('claude-code', dataDir, { session_id: 'cc-new', cwd: '/repo', hook_event_name: 'SessionStart', source: 'resume' });
    assert.equal(resumed.status, 0);
    assert.equal(resumed.stdout.trim(), '');
  });
});
