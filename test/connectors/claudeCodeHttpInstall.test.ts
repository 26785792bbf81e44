// `baton install claude-code` (the built CLI) installs Claude Code's HTTP hooks by default: the
// entries, where the hooks token goes and what it may do, a repeated install, a revoked token, and
// a server that came back on another port (docs/harnesses.md, "HTTP hooks"; docs/security.md,
// "The hooks token"). The real CLI's side is test/e2e/claudeCode.test.ts.

import { strict as assert } from 'node:assert';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startDaemon, type Daemon } from '../../src/server/daemon';
import { ROOT } from '../helpers/child';
import { baton } from '../shared/claudeCli';
import { bearer, rawRequest } from '../helpers/server';
import { cleanupTempDirs, tempFolders } from '../helpers/tmp';

const HOOK_JS = path.join(ROOT, 'dist', 'hook.js');
const EVENTS = ['SessionStart', 'UserPromptSubmit', 'SubagentStart', 'SubagentStop', 'Stop', 'PreCompact', 'PostCompact', 'SessionEnd'];

type Entry = { type: string; url?: string; command?: string; headers?: Record<string, string>; allowedEnvVars?: string[] };

// Asynchronously: the daemon in this process answers the CLI meanwhile.
const batonCli = (args: string[], env: NodeJS.ProcessEnv) => baton(args, env);

const readJson = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, any>;
const entryOf = (settings: Record<string, any>, event: string): Entry => settings.hooks[event][0].hooks[0] as Entry;

describe('baton install claude-code: HTTP hooks by default (built CLI, live daemon)', function () {
  this.timeout(60_000);
  let dirs: Record<'home' | 'project' | 'dataDir' | 'configDir' | 'base', string>;
  let env: NodeJS.ProcessEnv;
  let daemon: Daemon | undefined;
  const settingsFile = () => path.join(dirs.project, '.claude', 'settings.json');
  const localFile = () => path.join(dirs.project, '.claude', 'settings.local.json');
  const install = async (...extra: string[]) => batonCli(['install', 'claude-code', '--project', dirs.project, '--data-dir', dirs.dataDir, ...extra], env);

  beforeEach(async () => {
    dirs = tempFolders('baton-cc-http-', { home: 'home', project: 'project', dataDir: 'data', configDir: 'claude' });
    env = { PATH: process.env.PATH, HOME: dirs.home, CLAUDE_CONFIG_DIR: dirs.configDir, LANG: 'C.UTF-8' };
    execFileSync('git', ['init', '-q', dirs.project]);
    daemon = await startDaemon({ dataDir: dirs.dataDir, port: 0, config: { transcriptRoots: [dirs.base] } });
  });
  afterEach(async () => {
    await daemon?.stop();
    daemon = undefined;
  });
  after(cleanupTempDirs);

  it('writes HTTP entries to the running server for every event but SessionStart, which keeps the hook command', async () => {
    const r = await install();
    assert.equal(r.code, 0, r.stderr);
    const settings = readJson(settingsFile());
    for (const event of EVENTS) {
      const entry = entryOf(settings, event);
      if (event === 'SessionStart') {
        assert.equal(entry.type, 'command');
        assert.match(entry.command!, /hook\.js'? claude-code --data-dir /);
      } else {
        assert.deepEqual(entry, {
          type: 'http',
          url: `${daemon!.server.url}/api/hooks/claude-code`,
          headers: { Authorization: 'Bearer $BATON_HOOK_TOKEN' },
          allowedEnvVars: ['BATON_HOOK_TOKEN'],
          timeout: 5,
        });
      }
    }
    // `--command`: today's hook command for every event.
    assert.equal((await install('--command')).code, 0);
    const commands = readJson(settingsFile());
    for (const event of EVENTS) assert.equal(entryOf(commands, event).type, 'command', event);
  });

  it('writes the token only to .claude/settings.local.json (owner-only, kept out of git), never to settings.json', async () => {
    assert.equal((await install()).code, 0);
    const token = readJson(localFile()).env.BATON_HOOK_TOKEN as string;
    assert.match(token, /^\S{20,}$/);
    assert.ok(!fs.readFileSync(settingsFile(), 'utf8').includes(token), 'settings.json, which projects commit, names only the variable');
    assert.equal(fs.statSync(localFile()).mode & 0o777, 0o600);
    const ignored = spawnSync('git', ['check-ignore', '-q', localFile()], { cwd: dirs.project });
    assert.equal(ignored.status, 0, 'git ignores the token file');
    const status = execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: dirs.project, encoding: 'utf8' });
    assert.ok(!status.includes('settings.local.json'), status);
  });

  it('user scope: the token goes into env of the user settings beside the hooks; uninstall removes hooks and token', async () => {
    const r = await batonCli(['install', 'claude-code', '--user', '--data-dir', dirs.dataDir], env);
    assert.equal(r.code, 0, r.stderr);
    const userFile = path.join(dirs.configDir, 'settings.json');
    const user = readJson(userFile);
    assert.equal(entryOf(user, 'Stop').type, 'http');
    assert.match(user.env.BATON_HOOK_TOKEN, /^\S{20,}$/);
    assert.equal(fs.statSync(userFile).mode & 0o777, 0o600);
    assert.ok(!fs.existsSync(settingsFile()) && !fs.existsSync(localFile()), 'nothing written into the project');
    const gone = await batonCli(['uninstall', 'claude-code', '--user'], env);
    assert.equal(gone.code, 0, gone.stderr);
    const after = readJson(userFile);
    assert.equal(after.hooks, undefined);
    assert.equal(after.env, undefined);
  });

  it('project uninstall removes the token from settings.local.json and keeps what else it holds', async () => {
    fs.mkdirSync(path.dirname(localFile()), { recursive: true });
    fs.writeFileSync(localFile(), JSON.stringify({ permissions: { allow: ['Bash(ls)'] } }));
    assert.equal((await install()).code, 0);
    assert.ok(readJson(localFile()).env.BATON_HOOK_TOKEN);
    const gone = await batonCli(['uninstall', 'claude-code', '--project', dirs.project], env);
    assert.equal(gone.code, 0, gone.stderr);
    assert.deepEqual(readJson(localFile()), { permissions: { allow: ['Bash(ls)'] } });
  });

  it('the hooks token posts Claude Code hooks and reaches no other route', async () => {
    assert.equal((await install()).code, 0);
    const token = readJson(localFile()).env.BATON_HOOK_TOKEN as string;
    const port = daemon!.server.port;
    const hook = await rawRequest({
      port,
      method: 'POST',
      path: '/api/hooks/claude-code',
      headers: bearer(token),
      body: { hook_event_name: 'UserPromptSubmit', session_id: 'http-s1', cwd: dirs.project, prompt: 'hello over http' },
    });
    assert.equal(hook.status, 200, hook.text);
    assert.ok(await daemon!.store.read('getSession', { scope: 'all', key: 'http-s1' }), 'the hook recorded the session');
    const list = await rawRequest({ port, path: '/api/sessions', headers: bearer(token) });
    assert.equal(list.status, 403, list.text);
    const recall = await rawRequest({ port, method: 'POST', path: '/api/hooks/recall', headers: bearer(token), body: { query: 'hello' } });
    assert.equal(recall.status, 403, recall.text);
  });

  it('a second install keeps the token and changes no file', async () => {
    assert.equal((await install()).code, 0);
    const before = [fs.readFileSync(settingsFile(), 'utf8'), fs.readFileSync(localFile(), 'utf8')];
    assert.equal((await install()).code, 0);
    assert.deepEqual([fs.readFileSync(settingsFile(), 'utf8'), fs.readFileSync(localFile(), 'utf8')], before);
  });

  it('a revoked token: the hook is refused with 401 at once and hooks.log says so; installing again issues a new one', async () => {
    assert.equal((await install()).code, 0);
    const token = readJson(localFile()).env.BATON_HOOK_TOKEN as string;
    const { id } = (await daemon!.store.read('tokenByHash', { secretHash: (await import('../../src/server/security')).hashSecret(token) }))!;
    await daemon!.store.write('revokeToken', { id });
    const hook = await rawRequest({
      port: daemon!.server.port,
      method: 'POST',
      path: '/api/hooks/claude-code',
      headers: bearer(token),
      body: { hook_event_name: 'Stop', session_id: 'http-s2', cwd: dirs.project },
    });
    assert.equal(hook.status, 401);
    const log = fs.readFileSync(path.join(dirs.dataDir, 'hooks.log'), 'utf8');
    assert.match(log, /claude-code other-event: HTTP 401: the HTTP hook's token was refused/);
    // `baton doctor` groups it as a refused token.
    const doctor = await batonCli(['doctor', '--data-dir', dirs.dataDir], env);
    assert.match(doctor.stdout + doctor.stderr, /refused the hook's token/);
    // Installing again replaces the revoked token with a new one that works.
    assert.equal((await install()).code, 0);
    const fresh = readJson(localFile()).env.BATON_HOOK_TOKEN as string;
    assert.notEqual(fresh, token);
    const again = await rawRequest({
      port: daemon!.server.port,
      method: 'POST',
      path: '/api/hooks/claude-code',
      headers: bearer(fresh),
      body: { hook_event_name: 'Stop', session_id: 'http-s2', cwd: dirs.project },
    });
    assert.equal(again.status, 200, again.text);
  });

  it('an HTTP hook naming a transcript the server may not open: the prompt is kept, hooks.log has the line and doctor names --command', async () => {
    assert.equal((await install()).code, 0);
    const token = readJson(localFile()).env.BATON_HOOK_TOKEN as string;
    const outside = path.join(tempFolders('baton-cc-http-outside-', { dir: 'dir' }).dir, 'session.jsonl');
    fs.writeFileSync(outside, JSON.stringify({ type: 'user', message: { role: 'user', content: 'hi' } }) + '\n');
    const hook = await rawRequest({
      port: daemon!.server.port,
      method: 'POST',
      path: '/api/hooks/claude-code',
      headers: bearer(token),
      body: { hook_event_name: 'UserPromptSubmit', session_id: 'http-s4', cwd: dirs.project, prompt: 'kept prompt', transcript_path: outside },
    });
    assert.equal(hook.status, 200, hook.text);
    assert.ok(await daemon!.store.read('getSession', { scope: 'all', key: 'http-s4' }), 'the prompt was recorded without the transcript');
    const log = fs.readFileSync(path.join(dirs.dataDir, 'hooks.log'), 'utf8');
    assert.match(log, /claude-code UserPromptSubmit: step transcript: HTTP 400 invalid_request \(HTTP hook\)/);
    assert.ok(!log.includes(outside), 'the line names no path');
    const doctor = await batonCli(['doctor', '--data-dir', dirs.dataDir], env);
    assert.match(doctor.stdout + doctor.stderr, /baton install claude-code --command/);
  });

  it('the server comes back on another port: the SessionStart hook command points the HTTP entries at it, and the next hook lands', async () => {
    assert.equal((await install()).code, 0);
    const oldUrl = daemon!.server.url;
    await daemon!.stop();
    daemon = await startDaemon({ dataDir: dirs.dataDir, port: 0, config: { transcriptRoots: [dirs.base] } });
    assert.notEqual(daemon.server.url, oldUrl);
    // The user's settings hold another install's entries (another data directory's server): left alone.
    const otherInstall = {
      hooks: {
        SessionStart: [{ hooks: [{ type: 'command', command: `node ${HOOK_JS} claude-code --data-dir /elsewhere/baton`, timeout: 5 }] }],
        Stop: [{ hooks: [{ type: 'http', url: 'http://127.0.0.1:7999/api/hooks/claude-code', timeout: 5 }] }],
      },
    };
    fs.writeFileSync(path.join(dirs.configDir, 'settings.json'), JSON.stringify(otherInstall));
    const payload = JSON.stringify({ hook_event_name: 'SessionStart', session_id: 'http-s3', cwd: dirs.project, source: 'startup' });
    // Asynchronously: the daemon in this process must answer the hook meanwhile.
    await new Promise<void>((resolve, reject) => {
      const child = spawn(process.execPath, [HOOK_JS, 'claude-code', '--data-dir', dirs.dataDir], {
        env: { ...env, CLAUDE_PROJECT_DIR: dirs.project },
        stdio: ['pipe', 'ignore', 'ignore'],
      });
      child.on('error', reject);
      child.on('close', () => resolve());
      child.stdin.end(payload);
    });
    const entry = entryOf(readJson(settingsFile()), 'UserPromptSubmit');
    assert.equal(entry.url, `${daemon.server.url}/api/hooks/claude-code`);
    assert.deepEqual(readJson(path.join(dirs.configDir, 'settings.json')), otherInstall);
    const token = readJson(localFile()).env.BATON_HOOK_TOKEN as string;
    const hook = await rawRequest({
      port: Number(new URL(entry.url!).port),
      method: 'POST',
      path: '/api/hooks/claude-code',
      headers: bearer(token),
      body: { hook_event_name: 'UserPromptSubmit', session_id: 'http-s3', cwd: dirs.project, prompt: 'after the restart' },
    });
    assert.equal(hook.status, 200, hook.text);
  });
});
