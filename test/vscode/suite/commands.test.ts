// Baton's commands, run through vscode.commands.executeCommand with their non-interactive
// arguments, checked through the API, the clipboard and the files they write.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { api, endpointOf, prompt, sessionStart, uid, waitFor, workspaceFolder, type BatonApi } from './helpers';

describe('Commands', () => {
  let a: BatonApi;
  let tmp: string;
  const key = uid('cmd');

  before(async function () {
    this.timeout(30_000);
    a = await api();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-vs-cmd-'));
    const ep = endpointOf(a.host);
    await sessionStart(ep, { key, project: workspaceFolder(), title: 'Command target' });
    await prompt(ep, key, 'How do herons fish?', undefined);
    await prompt(ep, key, 'And egrets?', 'Herons stand still and strike.');
  });

  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('registers every command package.json contributes', async () => {
    const contributed = (vscode.extensions.getExtension('baton-dev.baton')!.packageJSON.contributes.commands as Array<{ command: string }>).map(
      (c) => c.command,
    );
    assert.ok(contributed.length >= 19);
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = contributed.filter((c) => !registered.has(c));
    assert.deepEqual(missing, []);
  });

  it('baton.copyKey puts the key on the clipboard (node or key argument)', async () => {
    await vscode.env.clipboard.writeText('before');
    await vscode.commands.executeCommand('baton.copyKey', key);
    assert.equal(await vscode.env.clipboard.readText(), key);
    const node = await a.tree.nodeFor(key);
    await vscode.env.clipboard.writeText('before');
    await vscode.commands.executeCommand('baton.copyKey', node);
    assert.equal(await vscode.env.clipboard.readText(), key);
  });

  it('baton.toggleBypass bypasses the session through the API, and back', async () => {
    const client = a.host.client!;
    assert.equal((await client.getSession(key))?.bypassed, false);
    await vscode.commands.executeCommand('baton.toggleBypass', key);
    assert.equal((await client.getSession(key))?.bypassed, true);
    // A bypassed session's hooks are no-ops.
    const answer = await prompt(endpointOf(a.host), key, 'ignored while bypassed', undefined);
    assert.equal((answer as unknown as { bypassed?: boolean }).bypassed, true);
    assert.equal((await client.getSession(key))?.turnCount, 3);
    await vscode.commands.executeCommand('baton.toggleBypass', await a.tree.nodeFor(key));
    assert.equal((await client.getSession(key))?.bypassed, false);
  });

  it('baton.exportSession writes Markdown and JSON Lines to the given destination', async () => {
    const md = vscode.Uri.file(path.join(tmp, 'export.md'));
    const written = (await vscode.commands.executeCommand('baton.exportSession', key, 'md', md)) as vscode.Uri | undefined;
    assert.equal(written?.fsPath, md.fsPath);
    const text = fs.readFileSync(md.fsPath, 'utf8');
    assert.match(text, new RegExp(`^# Session ${key}\n`));
    assert.match(text, /- Harness: claude-code/);
    assert.match(text, new RegExp(`- Project: ${workspaceFolder().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    assert.match(text, /## User\n\nHow do herons fish\?/);
    assert.match(text, /## Assistant\n\nHerons stand still and strike\./);
    assert.ok(text.indexOf('How do herons fish?') < text.indexOf('Herons stand still') && text.indexOf('Herons stand still') < text.indexOf('And egrets?'));

    const jsonl = vscode.Uri.file(path.join(tmp, 'export.jsonl'));
    const node = await a.tree.nodeFor(key);
    await vscode.commands.executeCommand('baton.exportSession', node, 'jsonl', jsonl);
    const lines = fs.readFileSync(jsonl.fsPath, 'utf8').split('\n').filter(Boolean);
    assert.equal(lines.length, 1);
    const parsed = JSON.parse(lines[0]) as { session: { key: string; title: string }; turns: Array<{ seq: number; role: string; text: string }> };
    assert.equal(parsed.session.key, key);
    assert.equal(parsed.session.title, 'Command target');
    assert.deepEqual(
      parsed.turns.map((t) => [t.seq, t.role, t.text]),
      [
        [1, 'user', 'How do herons fish?'],
        [2, 'assistant', 'Herons stand still and strike.'],
        [3, 'user', 'And egrets?'],
      ],
    );
  });

  it('baton.endSession with confirmed=true ends the session without a modal', async () => {
    const target = uid('end');
    await sessionStart(endpointOf(a.host), { key: target, project: workspaceFolder() });
    assert.equal((await a.host.client!.getSession(target))?.status, 'active');
    await vscode.commands.executeCommand('baton.endSession', target, true);
    const ended = await a.host.client!.getSession(target);
    assert.equal(ended?.status, 'ended');
  });

  it('baton.copyEndpointEnv gives BATON_DATA_DIR and BATON_URL, never the token', async () => {
    const text = (await vscode.commands.executeCommand('baton.copyEndpointEnv')) as string;
    assert.equal(text, `export BATON_DATA_DIR=${JSON.stringify(a.host.dataDir)}\nexport BATON_URL=http://127.0.0.1:${a.host.port}\n`);
    assert.equal(await vscode.env.clipboard.readText(), text);
    const token = a.host.client!.endpoint.token;
    assert.ok(token.length >= 16);
    assert.ok(!text.includes(token), 'the token leaked into the copied environment');
  });

  it("baton.installHooks ('claude-code', 'project') writes .claude/settings.json; baton.uninstallHooks removes it", async function () {
    this.timeout(20_000);
    const folder = workspaceFolder();
    const settingsFile = path.join(folder, '.claude', 'settings.json');
    const mcpFile = path.join(folder, '.mcp.json');
    assert.equal(fs.existsSync(settingsFile), false);
    const result = (await vscode.commands.executeCommand('baton.installHooks', 'claude-code', 'project')) as { file: string; events: string[] };
    assert.equal(result.file, settingsFile);
    const settings = JSON.parse(fs.readFileSync(settingsFile, 'utf8')) as {
      hooks: Record<string, Array<{ hooks: Array<{ type: string; command?: string; url?: string; headers?: Record<string, string> }> }>>;
      enabledMcpjsonServers: string[];
    };
    const hookJs = path.join(vscode.extensions.getExtension('baton-dev.baton')!.extensionPath, 'dist', 'hook.js');
    // As `baton install claude-code` writes them: SessionStart runs the hook command (Claude Code
    // sends no HTTP hook there), every other event is an HTTP hook to this window's server.
    const start = settings.hooks.SessionStart?.[0]?.hooks?.[0];
    assert.equal(start?.type, 'command');
    assert.ok(start.command!.includes(hookJs) && start.command!.includes(' claude-code '), start.command);
    assert.ok(start.command!.includes(`--data-dir ${a.host.dataDir}`) || start.command!.includes(`--data-dir '${a.host.dataDir}'`), start.command);
    const url = `${a.host.client!.url.replace(/\/$/, '')}/api/hooks/claude-code`;
    for (const event of ['UserPromptSubmit', 'SubagentStart', 'SubagentStop', 'Stop', 'PreCompact', 'PostCompact', 'SessionEnd']) {
      const entry = settings.hooks[event]?.[0]?.hooks?.[0];
      assert.ok(entry, `no ${event} hook`);
      assert.equal(entry.type, 'http', event);
      assert.equal(entry.url, url);
      assert.equal(entry.headers?.Authorization, 'Bearer $BATON_HOOK_TOKEN');
    }
    // The hooks token: in the git-excluded local settings, and good for the hook route only.
    const local = JSON.parse(fs.readFileSync(path.join(folder, '.claude', 'settings.local.json'), 'utf8')) as { env: Record<string, string> };
    const token = local.env.BATON_HOOK_TOKEN;
    assert.ok(token && !fs.readFileSync(settingsFile, 'utf8').includes(token), 'the token is only in settings.local.json');
    const post = (route: string, body: unknown) =>
      fetch(`${a.host.client!.url.replace(/\/$/, '')}${route}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const hook = await post('/api/hooks/claude-code', { hook_event_name: 'UserPromptSubmit', session_id: uid('httphook'), cwd: folder, prompt: 'over HTTP' });
    assert.equal(hook.status, 200, await hook.text());
    assert.equal((await post('/api/hooks/remember', { harness: 'claude-code', content: 'x' })).status, 403, 'the token is good for the hook route only');
    assert.deepEqual(settings.enabledMcpjsonServers, ['baton']);
    assert.ok((JSON.parse(fs.readFileSync(mcpFile, 'utf8')) as { mcpServers: Record<string, unknown> }).mcpServers.baton);

    // Installing twice changes nothing.
    const before = fs.readFileSync(settingsFile, 'utf8');
    await vscode.commands.executeCommand('baton.installHooks', 'claude-code', 'project');
    assert.equal(fs.readFileSync(settingsFile, 'utf8'), before);

    const removed = (await vscode.commands.executeCommand('baton.uninstallHooks', 'claude-code', 'project')) as { file: string; removed: boolean };
    assert.deepEqual(removed, { file: settingsFile, removed: true });
    const left = fs.existsSync(settingsFile) ? (JSON.parse(fs.readFileSync(settingsFile, 'utf8')) as Record<string, unknown>) : {};
    assert.equal(left.hooks, undefined);
    assert.equal(left.enabledMcpjsonServers, undefined);
    const mcpLeft = JSON.parse(fs.readFileSync(mcpFile, 'utf8')) as { mcpServers?: Record<string, unknown> };
    assert.equal(mcpLeft.mcpServers?.baton, undefined);
    fs.rmSync(path.join(folder, '.claude'), { recursive: true, force: true });
    fs.rmSync(mcpFile, { force: true });
  });

  it("baton.installHooks ('copilot', 'user') writes Baton's VS Code hook file and lists its folder in chat.hookFilesLocations; uninstall takes both back", async function () {
    this.timeout(30_000);
    const hookFile = path.join(os.homedir(), '.baton', 'vscode-hooks', 'baton.json');
    if (fs.existsSync(hookFile)) this.skip(); // someone's real install: not ours to touch
    // Through the configuration API, or (a VS Code that does not know the setting, as 1.100) in the user settings.json.
    type Applied = { settings?: Array<{ key: string; via: string }> };
    const listed = (applied: Applied): boolean => {
      const via = applied.settings?.find((s) => s.key === 'chat.hookFilesLocations')?.via;
      assert.ok(via, 'the setting was applied');
      if (via === 'configuration')
        return vscode.workspace.getConfiguration().inspect<Record<string, boolean>>('chat.hookFilesLocations')?.globalValue?.['~/.baton/vscode-hooks'] === true;
      return fs.readFileSync(via, 'utf8').includes('"~/.baton/vscode-hooks": true');
    };
    try {
      const result = (await vscode.commands.executeCommand('baton.installHooks', 'copilot:user')) as { file: string } & Applied;
      assert.equal(result.file, hookFile);
      const hooks = JSON.parse(fs.readFileSync(hookFile, 'utf8')) as { hooks: Record<string, Array<{ type: string; command: string }>> };
      const hookJs = path.join(vscode.extensions.getExtension('baton-dev.baton')!.extensionPath, 'dist', 'hook.js');
      for (const event of ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'PreCompact', 'SubagentStart', 'SubagentStop', 'Stop']) {
        const entry = hooks.hooks[event]?.[0];
        assert.ok(entry && entry.type === 'command' && entry.command.includes(hookJs) && entry.command.includes(' copilot '), `${event}: ${entry?.command}`);
      }
      assert.ok(listed(result), 'chat.hookFilesLocations lists ~/.baton/vscode-hooks');
      const removed = (await vscode.commands.executeCommand('baton.uninstallHooks', 'copilot', 'user')) as { removed: boolean } & Applied;
      assert.equal(removed.removed, true);
      assert.equal(fs.existsSync(hookFile), false);
      assert.equal(listed(removed), false, 'the entry is gone again');
    } finally {
      fs.rmSync(hookFile, { force: true });
    }
  });

  it('the installed hook command records a Claude Code session in this store', async function () {
    this.timeout(30_000);
    const folder = workspaceFolder();
    const result = (await vscode.commands.executeCommand('baton.installHooks', 'claude-code', 'project')) as { file: string };
    try {
      const settings = JSON.parse(fs.readFileSync(result.file, 'utf8')) as { hooks: Record<string, Array<{ hooks: Array<{ command: string }> }>> };
      const command = settings.hooks.SessionStart[0].hooks[0].command;
      const sessionId = uid('hookcmd');
      const { execFileSync } = await import('node:child_process');
      execFileSync('/bin/sh', ['-c', command], {
        input: JSON.stringify({ hook_event_name: 'SessionStart', session_id: sessionId, cwd: folder, source: 'startup' }),
        timeout: 20_000,
        env: { ...process.env },
      });
      const session = await waitFor(() => a.host.client!.getSession(sessionId), 5_000, 'the hook-made session');
      assert.equal(session.harness, 'claude-code');
      assert.equal(session.project, folder);
    } finally {
      await vscode.commands.executeCommand('baton.uninstallHooks', 'claude-code', 'project');
      fs.rmSync(path.join(folder, '.claude'), { recursive: true, force: true });
      fs.rmSync(path.join(folder, '.mcp.json'), { force: true });
    }
  });

  it('baton.runDoctor returns a report and opens it as a Markdown document', async function () {
    this.timeout(30_000);
    const report = (await vscode.commands.executeCommand('baton.runDoctor')) as {
      dataDir: string;
      lock: { state: string; holder?: { pid: number } };
      problems: string[];
    };
    assert.ok(report, 'runDoctor returned nothing (see the Baton log)');
    assert.equal(report.dataDir, a.host.dataDir);
    assert.equal(report.lock.holder?.pid, process.pid);
    assert.ok(Array.isArray(report.problems));
    const editor = await waitFor(
      () => vscode.window.activeTextEditor?.document.getText().startsWith('# Baton doctor') && vscode.window.activeTextEditor,
      5_000,
      'the doctor document',
    );
    assert.equal(editor.document.languageId, 'markdown');
    // Its own read-only document, not an untitled one whose name (and, briefly, text) VS Code reuses.
    assert.equal(editor.document.uri.scheme, 'baton-report');
    const text = editor.document.getText();
    assert.ok(text.includes(`- Data directory: \`${a.host.dataDir}\``));
    assert.ok(text.includes(`- Role of this window: leader (endpoint 127.0.0.1:${a.host.port})`));
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  it('baton.checkHooks reports when hooks fired through the real hook command, the failed step and its fix', async function () {
    this.timeout(30_000);
    const { spawn } = await import('node:child_process');
    const hookJs = path.join(vscode.extensions.getExtension('baton-dev.baton')!.extensionPath, 'dist', 'hook.js');
    const sessionId = uid('hookhealth');
    // A parent transcript outside every folder the server reads, which the hook cannot send itself
    // either (a folder where the file should be; a readable file would be sent as chunks): the
    // refresh is refused, the child still opens.
    const foreign = path.join(tmp, 'foreign.jsonl');
    fs.mkdirSync(foreign, { recursive: true });
    // Asynchronously: the server answering the hook runs in this extension host.
    const fire = (payload: object) =>
      new Promise<number | null>((resolve) => {
        const child = spawn(process.execPath, [hookJs, 'claude-code', '--data-dir', a.host.dataDir], {
          env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
          stdio: ['pipe', 'ignore', 'ignore'],
        });
        const kill = setTimeout(() => child.kill('SIGKILL'), 20_000);
        child.on('exit', (status) => {
          clearTimeout(kill);
          resolve(status);
        });
        child.stdin.end(JSON.stringify(payload));
      });
    assert.equal(await fire({ hook_event_name: 'UserPromptSubmit', session_id: sessionId, cwd: workspaceFolder(), prompt: 'hello' }), 0);
    assert.equal(await fire({ hook_event_name: 'SubagentStart', session_id: sessionId, cwd: workspaceFolder(), transcript_path: foreign, agent_id: 'h1' }), 0);
    await waitFor(() => a.host.client!.getSession(`${sessionId}/agent-h1`), 5_000, 'the child opened despite the refused refresh');

    const result = (await vscode.commands.executeCommand('baton.checkHooks')) as {
      report: { harnesses: Array<{ id: string; lastFired: { event: string } | null; failures: Array<{ step: string | null; kind: string }> }> };
      markdown: string;
      document: vscode.TextDocument;
    };
    assert.ok(result, 'checkHooks returned nothing (see the Baton log)');
    const claude = result.report.harnesses.find((h) => h.id === 'claude-code')!;
    assert.equal(claude.lastFired?.event, 'SubagentStart');
    assert.ok(
      claude.failures.some((f) => f.step === 'refresh-parent' && f.kind === 'transcript-refused'),
      JSON.stringify(claude.failures),
    );
    // The report is opened as a Markdown document; the command hands back the one it opened
    // (which editor shows it after the suite's UI tests, and whether it has the focus, is the
    // workbench's business).
    const doc = result.document;
    assert.ok(doc, 'checkHooks returned the document it opened');
    assert.equal(doc.languageId, 'markdown');
    assert.equal(doc.uri.scheme, 'baton-report');
    const text = doc.getText();
    assert.equal(text, result.markdown);
    assert.match(text, /## Claude Code \(`claude-code`\)\n\n- Last fired: \S+ \(SubagentStart\)/);
    assert.match(text, /- SubagentStart \(step refresh-parent\): `\/api\/hooks\/user-prompt-submit: HTTP 400 invalid_request`/);
    assert.match(text, /The server refused a transcript file .*`baton install claude-code`/);
    assert.match(text, /## Codex \(`codex`\)\n\n- Last fired: never/);
    await vscode.window.showTextDocument(doc);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });
});
