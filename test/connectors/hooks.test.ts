// The built hook command (dist/hook.js) as Claude Code and Codex run it: payload on stdin, against a
// real server; and the installers on real settings files.

import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { installClaudeCode, uninstallClaudeCode } from '../../src/harnesses/claudeCode/install';
import { installCodex, uninstallCodex } from '../../src/harnesses/codex/install';
import { startDaemon, type Daemon } from '../../src/server/daemon';
import { ROOT } from '../helpers/child';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';
import { jsonl, runHook } from '../helpers/hookProcess';

describe('hook command (dist/hook.js) against a real server', function () {
  this.timeout(60_000);
  let dataDir: string;
  let roots: string;
  let daemon: Daemon;

  before(async () => {
    dataDir = tempDir();
    roots = tempDir('baton-roots-');
    daemon = await startDaemon({ dataDir, port: 0, config: { transcriptRoots: [roots] } });
  });
  after(async () => {
    await daemon.stop();
    cleanupTempDirs();
  });

  it('Claude Code: keeps the parent live, hands SubagentStart the inherited block, stores the sub-agent at SubagentStop with its exact spawner', async () => {
    const dir = path.join(roots, 'proj');
    fs.mkdirSync(path.join(dir, 'sess-1', 'subagents'), { recursive: true });
    const parentFile = path.join(dir, 'sess-1.jsonl');
    fs.writeFileSync(
      parentFile,
      jsonl([
        {
          type: 'user',
          uuid: 'u1',
          sessionId: 'sess-1',
          timestamp: '2026-11-26T00:00:00Z',
          cwd: '/repo',
          message: { role: 'user', content: 'Refactor billing; keep SECRET-MARKER-5521 in mind' },
        },
        {
          type: 'assistant',
          uuid: 'u2',
          sessionId: 'sess-1',
          timestamp: '2026-11-26T00:00:01Z',
          message: {
            id: 'm1',
            role: 'assistant',
            content: [{ type: 'tool_use', id: 'toolu_1', name: 'Agent', input: { description: 'scan', prompt: 'Scan the billing module' } }],
          },
        },
      ]),
    );
    const common = { session_id: 'sess-1', transcript_path: parentFile, cwd: '/repo' };
    const submit = await runHook('claude-code', dataDir, {
      ...common,
      hook_event_name: 'UserPromptSubmit',
      prompt: 'Refactor billing; keep SECRET-MARKER-5521 in mind',
      prompt_id: 'p1',
      permission_mode: 'default',
    });
    assert.equal(submit.status, 0);
    assert.equal(submit.stdout, '', 'no entity context yet, so no output');

    const start = await runHook('claude-code', dataDir, {
      ...common,
      hook_event_name: 'SubagentStart',
      agent_id: 'a1',
      agent_type: 'general-purpose',
      prompt_id: 'p1',
    });
    assert.equal(start.status, 0);
    const out = JSON.parse(start.stdout);
    assert.equal(out.hookSpecificOutput.hookEventName, 'SubagentStart');
    assert.match(out.hookSpecificOutput.additionalContext, /^## Inherited from Parent Session\n/);
    assert.match(out.hookSpecificOutput.additionalContext, /SECRET-MARKER-5521/);
    assert.match(out.hookSpecificOutput.additionalContext, /Tool: Agent\(/, 'the parent transcript was refreshed from its file first');

    // A nested sub-agent: its SubagentStart names only the root; its meta file names the spawner.
    const nested = await runHook('claude-code', dataDir, { ...common, hook_event_name: 'SubagentStart', agent_id: 'a2', agent_type: 'Explore' });
    assert.equal(nested.status, 0);
    const agentFile = path.join(dir, 'sess-1', 'subagents', 'agent-a2.jsonl');
    fs.writeFileSync(
      agentFile,
      jsonl([
        { type: 'user', uuid: 's1', isSidechain: true, sessionId: 'sess-1', message: { role: 'user', content: 'Look at invoices' } },
        {
          type: 'assistant',
          uuid: 's2',
          isSidechain: true,
          sessionId: 'sess-1',
          message: { id: 'm9', role: 'assistant', content: [{ type: 'text', text: 'Invoices use cents.' }] },
        },
      ]),
    );
    fs.writeFileSync(
      agentFile.replace(/\.jsonl$/, '.meta.json'),
      JSON.stringify({ agentType: 'Explore', description: 'invoices', toolUseId: 'toolu_2', spawnDepth: 2, parentAgentId: 'a1' }),
    );
    const stop = await runHook('claude-code', dataDir, {
      ...common,
      hook_event_name: 'SubagentStop',
      agent_id: 'a2',
      agent_type: 'Explore',
      agent_transcript_path: agentFile,
      last_assistant_message: 'Invoices use cents.',
      stop_hook_active: false,
    });
    assert.equal(stop.status, 0);
    assert.equal(stop.stdout, '');
    {
      const child = await daemon.store.read('getSession', { scope: 'all', key: 'sess-1/agent-a2' });
      assert.equal(child?.parentSessionKey, 'sess-1/agent-a1');
      assert.equal(child?.status, 'completed');
      assert.equal(child?.harnessAgentType, 'Explore');
      assert.equal(
        (await daemon.store.read('transcript', { scope: 'all', key: 'sess-1/agent-a2' })).content,
        'User: Look at invoices\nAssistant: Invoices use cents.',
      );
      const first = await daemon.store.read('getSession', { scope: 'all', key: 'sess-1/agent-a1' });
      assert.equal(first?.parentSessionKey, 'sess-1');
    }
  });

  it("Claude Code: a background sub-agent's <task-notification> prompt is no prompt of the user: no user turn, no title, nothing injected", async () => {
    const notice = '<task-notification>\n<task-id>a9</task-id>\n<status>completed</status>\n<summary>Agent "scan" completed</summary>\n</task-notification>';
    await runHook('claude-code', dataDir, { session_id: 'c-note', cwd: '/proj3', hook_event_name: 'SessionStart', source: 'startup' });
    const hooked = await runHook('claude-code', dataDir, { session_id: 'c-note', cwd: '/proj3', hook_event_name: 'UserPromptSubmit', prompt: notice });
    assert.equal(hooked.status, 0);
    assert.equal(hooked.stdout, '', 'nothing is injected for a notice');
    await runHook('claude-code', dataDir, { session_id: 'c-note', cwd: '/proj3', hook_event_name: 'UserPromptSubmit', prompt: 'Summarise the billing scan' });
    const stored = await daemon.store.read('transcript', { scope: 'all', key: 'c-note' });
    assert.equal(stored.content, 'User: Summarise the billing scan');
    assert.equal((await daemon.store.read('getSession', { scope: 'all', key: 'c-note' }))?.title, 'Summarise the billing scan');
  });

  it('Claude Code: PostCompact becomes a checkpoint; /clear ends the previous session; SessionEnd ends it', async () => {
    await runHook('claude-code', dataDir, { session_id: 'c-old', cwd: '/proj2', hook_event_name: 'SessionStart', source: 'startup' });
    await runHook('claude-code', dataDir, { session_id: 'c-old', cwd: '/proj2', hook_event_name: 'UserPromptSubmit', prompt: 'first prompt' });
    assert.equal(
      (
        await runHook('claude-code', dataDir, {
          session_id: 'c-old',
          cwd: '/proj2',
          hook_event_name: 'PostCompact',
          compact_summary: 'Summary: we chose Postgres.',
        })
      ).status,
      0,
    );
    const checkpoint = await daemon.store.read('latestCheckpoint', { scope: 'all', key: 'c-old' });
    assert.equal(checkpoint?.digest, 'Summary: we chose Postgres.');
    await runHook('claude-code', dataDir, { session_id: 'c-new', cwd: '/proj2', hook_event_name: 'SessionStart', source: 'clear' });
    assert.equal((await daemon.store.read('getSession', { scope: 'all', key: 'c-old' }))?.endReason, 'clear');
    await runHook('claude-code', dataDir, { session_id: 'c-new', cwd: '/proj2', hook_event_name: 'SessionEnd', reason: 'prompt_input_exit' });
    const ended = await daemon.store.read('getSession', { scope: 'all', key: 'c-new' });
    assert.equal(ended?.status, 'ended');
    assert.equal(ended?.endReason, 'prompt_input_exit');
  });

  it('Codex: a child rollout naming its parent thread nests under it; hooks inside a child belong to the child', async () => {
    const rollout = path.join(roots, 'rollout-child.jsonl');
    fs.writeFileSync(
      rollout,
      jsonl([
        {
          timestamp: '2026-11-26T00:00:00Z',
          type: 'session_meta',
          payload: { id: 'thread-c2', parent_thread_id: 'thread-c1', source: { subagent: { thread_spawn: { depth: 2 } } } },
        },
      ]),
    );
    await runHook('codex', dataDir, { session_id: 'root-x', cwd: '/cx', hook_event_name: 'UserPromptSubmit', prompt: 'Codex parent CODEX-MARK-1' });
    const first = await runHook('codex', dataDir, {
      session_id: 'root-x',
      cwd: '/cx',
      hook_event_name: 'SubagentStart',
      agent_id: 'thread-c1',
      agent_type: 'worker',
      turn_id: 't1',
    });
    assert.match(JSON.parse(first.stdout).hookSpecificOutput.additionalContext, /CODEX-MARK-1/);
    await runHook('codex', dataDir, {
      session_id: 'root-x',
      cwd: '/cx',
      hook_event_name: 'SubagentStart',
      agent_id: 'thread-c2',
      agent_type: 'worker',
      transcript_path: rollout,
    });
    assert.equal((await daemon.store.read('getSession', { scope: 'all', key: 'root-x/agent-thread-c2' }))?.parentSessionKey, 'root-x/agent-thread-c1');
    await runHook('codex', dataDir, {
      session_id: 'root-x',
      cwd: '/cx',
      hook_event_name: 'UserPromptSubmit',
      agent_id: 'thread-c1',
      agent_type: 'worker',
      prompt: 'inside the child',
    });
    assert.equal((await daemon.store.read('transcript', { scope: 'all', key: 'root-x/agent-thread-c1' })).content, 'User: inside the child');
    assert.equal((await daemon.store.read('getSession', { scope: 'all', key: 'root-x/agent-thread-c1' }))?.harness, 'codex');
  });

  it('never hurts the harness: endpoint down, hanging or erroring → exit 0, no output, within 1 s, one log line', async () => {
    const down = tempDir();
    const r1 = await runHook('claude-code', down, { session_id: 's', hook_event_name: 'UserPromptSubmit', prompt: 'x' });
    assert.deepEqual([r1.status, r1.stdout], [0, '']);
    assert.match(fs.readFileSync(path.join(down, 'hooks.log'), 'utf8'), /no running Baton endpoint/);

    // A live-looking endpoint (our pid holds the lock) that accepts connections and never answers.
    const hanging = tempDir();
    const sockets: net.Socket[] = [];
    const silent = net.createServer((s) => sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
    const port = (silent.address() as net.AddressInfo).port;
    fs.writeFileSync(path.join(hanging, 'baton.lock'), JSON.stringify({ pid: process.pid, port, startedAt: 'now', holder: 'test' }));
    fs.writeFileSync(path.join(hanging, 'endpoint.json'), JSON.stringify({ url: `http://127.0.0.1:${port}`, port, pid: process.pid, token: 't' }));
    const r2 = await runHook('claude-code', hanging, { session_id: 's', hook_event_name: 'SubagentStart', agent_id: 'a' });
    for (const s of sockets) s.destroy();
    silent.close();
    assert.deepEqual([r2.status, r2.stdout], [0, '']);
    assert.ok(r2.ms < 1500, `took ${r2.ms} ms`);
    assert.match(fs.readFileSync(path.join(hanging, 'hooks.log'), 'utf8'), /timed out/);

    // An endpoint that refuses the request (wrong token): exit 0, nothing printed.
    const wrong = tempDir();
    fs.writeFileSync(path.join(wrong, 'baton.lock'), JSON.stringify({ pid: process.pid, port: daemon.server.port, startedAt: 'now', holder: 'test' }));
    fs.writeFileSync(
      path.join(wrong, 'endpoint.json'),
      JSON.stringify({ url: daemon.server.url, port: daemon.server.port, pid: process.pid, token: 'not-the-token' }),
    );
    const r3 = await runHook('claude-code', wrong, { session_id: 's', hook_event_name: 'SessionStart', source: 'startup' });
    assert.deepEqual([r3.status, r3.stdout], [0, '']);
    assert.match(fs.readFileSync(path.join(wrong, 'hooks.log'), 'utf8'), /HTTP 401/);
    const r4 = await runHook('claude-code', dataDir, 'not json at all' as unknown as object);
    assert.deepEqual([r4.status, r4.stdout], [0, '']);
  });
});

describe('installers (real settings files)', () => {
  after(cleanupTempDirs);
  const cmd = { nodePath: '/usr/bin/node', cliPath: path.join(ROOT, 'dist', 'cli.js'), dataDir: '/data/baton' };

  it('merges Claude Code hooks idempotently, keeps the user hooks, registers MCP, and uninstalls only ours', async () => {
    const project = tempDir();
    const settingsFile = path.join(project, '.claude', 'settings.json');
    fs.mkdirSync(path.dirname(settingsFile), { recursive: true });
    const userHook = { matcher: 'Bash', hooks: [{ type: 'command', command: 'echo mine' }] };
    fs.writeFileSync(
      settingsFile,
      JSON.stringify({ model: 'opus', hooks: { PreToolUse: [userHook], Stop: [{ hooks: [{ type: 'command', command: 'notify-send done' }] }] } }),
    );
    await installClaudeCode({ scope: 'project', projectDir: project }, cmd);
    const once = fs.readFileSync(settingsFile, 'utf8');
    await installClaudeCode({ scope: 'project', projectDir: project }, cmd);
    assert.equal(fs.readFileSync(settingsFile, 'utf8'), once, 'a second install changes nothing');
    const settings = JSON.parse(once);
    assert.equal(settings.model, 'opus');
    // PreToolUse: the user's hook kept, Baton's only for the spawn tool (a sub-agent's task).
    assert.deepEqual(settings.hooks.PreToolUse[0], userHook);
    assert.equal(settings.hooks.PreToolUse.length, 2);
    assert.equal(settings.hooks.PreToolUse[1].matcher, 'Agent|Task');
    assert.equal(settings.hooks.Stop.length, 2);
    assert.equal(settings.hooks.Stop[0].hooks[0].command, 'notify-send done');
    for (const event of [
      'SessionStart',
      'UserPromptSubmit',
      'SubagentStart',
      'SubagentStop',
      'Stop',
      'PreCompact',
      'PostCompact',
      'SessionEnd',
      'PreToolUse',
    ]) {
      const ours = settings.hooks[event]
        .flatMap((m: { hooks: Array<{ command: string }> }) => m.hooks)
        .filter((h: { command: string }) => /hook\.js claude-code --data-dir \/data\/baton$/.test(h.command));
      assert.equal(ours.length, 1, event);
    }
    assert.deepEqual(settings.enabledMcpjsonServers, ['baton']);
    const mcp = JSON.parse(fs.readFileSync(path.join(project, '.mcp.json'), 'utf8'));
    assert.deepEqual(mcp.mcpServers.baton.args.slice(1), ['mcp', '--data-dir', '/data/baton']);
    assert.ok(fs.existsSync(settingsFile + '.baton-backup'));

    uninstallClaudeCode({ scope: 'project', projectDir: project });
    const after = JSON.parse(fs.readFileSync(settingsFile, 'utf8'));
    assert.deepEqual(after, { model: 'opus', hooks: { PreToolUse: [userHook], Stop: [{ hooks: [{ type: 'command', command: 'notify-send done' }] }] } });
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(project, '.mcp.json'), 'utf8')).mcpServers, {});
  });

  it('refuses to touch a settings file that is not valid JSON', async () => {
    const project = tempDir();
    fs.mkdirSync(path.join(project, '.claude'));
    fs.writeFileSync(path.join(project, '.claude', 'settings.json'), '{ "hooks": ');
    await assert.rejects(() => installClaudeCode({ scope: 'project', projectDir: project }, cmd), /not valid JSON/);
    assert.equal(fs.readFileSync(path.join(project, '.claude', 'settings.json'), 'utf8'), '{ "hooks": ');
  });

  it('writes HTTP hooks with an env-var token when asked', async () => {
    const project = tempDir();
    await installClaudeCode({ scope: 'project', projectDir: project }, cmd, { url: 'http://127.0.0.1:7433', tokenEnvVar: 'BATON_HOOK_TOKEN' });
    const hook = JSON.parse(fs.readFileSync(path.join(project, '.claude', 'settings.json'), 'utf8')).hooks.SubagentStart[0].hooks[0];
    assert.deepEqual(hook, {
      type: 'http',
      url: 'http://127.0.0.1:7433/api/hooks/claude-code',
      headers: { Authorization: 'Bearer $BATON_HOOK_TOKEN' },
      allowedEnvVars: ['BATON_HOOK_TOKEN'],
      timeout: 5,
    });
  });

  it('installs Codex hooks into $CODEX_HOME/hooks.json and removes only ours', () => {
    const home = tempDir();
    fs.writeFileSync(path.join(home, 'hooks.json'), JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'say done' }] }] } }));
    installCodex(cmd, home);
    installCodex(cmd, home);
    const hooks = JSON.parse(fs.readFileSync(path.join(home, 'hooks.json'), 'utf8')).hooks;
    assert.equal(hooks.Stop.length, 2);
    assert.match(hooks.SubagentStart[0].hooks[0].command, /hook\.js codex --data-dir \/data\/baton$/);
    uninstallCodex(home);
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(home, 'hooks.json'), 'utf8')), {
      hooks: { Stop: [{ hooks: [{ type: 'command', command: 'say done' }] }] },
    });
  });
});

describe('MCP registration for Codex and OpenCode', () => {
  after(cleanupTempDirs);
  const cmd = { nodePath: '/usr/bin/node', cliPath: '/opt/baton/dist/cli.js', dataDir: '/data/baton' };

  it('adds one managed [mcp_servers.baton] block to Codex config.toml, keeps the rest, and removes only it', async () => {
    const { registerCodexMcp, unregisterCodexMcp } = await import('../../src/harnesses/codex/install');
    const home = tempDir();
    const original = 'model = "o4"\n\n[mcp_servers.other]\ncommand = "other"\n';
    fs.writeFileSync(path.join(home, 'config.toml'), original);
    registerCodexMcp(cmd, home);
    registerCodexMcp(cmd, home);
    const text = fs.readFileSync(path.join(home, 'config.toml'), 'utf8');
    assert.equal(text.match(/\[mcp_servers\.baton\]/g)?.length, 1);
    assert.match(text, /command = "\/usr\/bin\/node"\nargs = \["\/opt\/baton\/dist\/cli\.js", "mcp", "--data-dir", "\/data\/baton"\]/);
    assert.ok(text.startsWith(original.trimEnd()));
    assert.equal(unregisterCodexMcp(home), true);
    assert.equal(fs.readFileSync(path.join(home, 'config.toml'), 'utf8'), original);
    fs.writeFileSync(path.join(home, 'config.toml'), '[mcp_servers.baton]\ncommand = "mine"\n');
    assert.equal(registerCodexMcp(cmd, home).registered, false, "a user's own baton entry is left alone");
  });

  it('adds the local MCP server to opencode.json and removes only it', async () => {
    const { registerOpenCodeMcp, unregisterOpenCodeMcp } = await import('../../src/harnesses/openCode/install');
    const project = tempDir();
    fs.writeFileSync(path.join(project, 'opencode.json'), JSON.stringify({ model: 'x/y', mcp: { git: { type: 'local', command: ['git-mcp'] } } }));
    registerOpenCodeMcp({ scope: 'project', projectDir: project }, cmd);
    const config = JSON.parse(fs.readFileSync(path.join(project, 'opencode.json'), 'utf8'));
    assert.deepEqual(config.mcp.baton, {
      type: 'local',
      command: ['/usr/bin/node', '/opt/baton/dist/cli.js', 'mcp', '--data-dir', '/data/baton'],
      enabled: true,
    });
    assert.deepEqual(config.mcp.git, { type: 'local', command: ['git-mcp'] });
    unregisterOpenCodeMcp({ scope: 'project', projectDir: project });
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(project, 'opencode.json'), 'utf8')), {
      model: 'x/y',
      mcp: { git: { type: 'local', command: ['git-mcp'] } },
    });
  });
});
