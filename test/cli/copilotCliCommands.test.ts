// GitHub Copilot CLI in the built `baton` CLI (dist/cli.js) as a user runs it: its place in `baton
// install --help`, `baton import --help` and the hook health of `baton doctor` (after the built hook
// command ran against a real daemon), and where `baton install copilot-cli` writes Baton's hook
// file: the user's ($COPILOT_HOME/hooks/baton.json) by default, a repository's with --project.

import { strict as assert } from 'node:assert';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startDaemon } from '../../src/server/daemon';
import { CLI, ROOT } from '../helpers/child';
import { HOOK } from '../helpers/hookProcess';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';

const EVENTS = ['sessionStart', 'userPromptSubmitted', 'subagentStart', 'subagentStop', 'agentStop', 'sessionEnd'];

/** The built CLI in `cwd`, with HOME and COPILOT_HOME of the test's own (never the user's). */
function baton(args: string[], opts: { cwd: string; home: string; copilotHome: string }) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd: opts.cwd,
    env: { ...process.env, HOME: opts.home, COPILOT_HOME: opts.copilotHome, XDG_CONFIG_HOME: path.join(opts.home, '.config') },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** `node dist/hook.js copilot-cli --event E --data-dir D`, the payload on stdin; resolves with its exit status. */
function copilotCliHook(event: string, dataDir: string, payload: unknown, env: NodeJS.ProcessEnv): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [HOOK, 'copilot-cli', '--event', event, '--data-dir', dataDir], { env: { ...process.env, ...env }, stdio: 'pipe' });
    child.stdout.resume();
    child.stderr.resume();
    const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.on('close', (status) => {
      clearTimeout(kill);
      resolve(status);
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(JSON.stringify(payload));
  });
}

function setup() {
  const base = tempDir('baton-copilot-cli-cmd-');
  const t = {
    home: path.join(base, 'home'),
    copilotHome: path.join(base, 'copilot-home'),
    cwd: path.join(base, 'cwd'),
    dataDir: path.join(base, 'data'),
  };
  for (const dir of Object.values(t)) fs.mkdirSync(dir, { recursive: true });
  return t;
}

describe('GitHub Copilot CLI in the built baton CLI', function () {
  this.timeout(60_000);
  before(function () {
    assert.ok(fs.existsSync(CLI) && fs.existsSync(HOOK), 'dist/ is missing: run `node scripts/dev/build.mjs` first');
  });
  after(cleanupTempDirs);

  it('`baton install --help` and `baton import --help` list copilot-cli', () => {
    const t = setup();
    const install = baton(['install', '--help'], { ...t, cwd: ROOT });
    assert.equal(install.status, 0, install.stderr);
    assert.match(install.stdout, /choices:[^)]*"copilot-cli"/, install.stdout);
    const imports = baton(['import', '--help'], { ...t, cwd: ROOT });
    assert.equal(imports.status, 0, imports.stderr);
    assert.match(imports.stdout, /\n {2}copilot-cli \[options\] \[dir\] +import GitHub Copilot CLI sessions/, imports.stdout);
    const one = baton(['import', 'copilot-cli', '--help'], { ...t, cwd: ROOT });
    assert.equal(one.status, 0, one.stderr);
    assert.match(one.stdout.replace(/\s+/g, ' '), /session-state/);
  });

  it("`baton doctor` lists copilot-cli's hook health: never fired with its fix, then when it last fired and the input it refused", async () => {
    const t = setup();
    const fresh = baton(['doctor', '--data-dir', t.dataDir], t);
    assert.equal(fresh.status, 0, fresh.stdout + fresh.stderr);
    assert.match(
      fresh.stdout,
      /\n {2}GitHub Copilot CLI \(copilot-cli\): never fired\n {4}fix: No GitHub Copilot CLI hook has reached Baton\. .*trusted folder/,
    );

    const daemon = await startDaemon({ dataDir: t.dataDir, port: 0, config: { transcriptRoots: [path.join(t.copilotHome, 'session-state')] } });
    try {
      const env = { COPILOT_HOME: t.copilotHome };
      const sessionId = '0b5e55ed-0000-4000-8000-00000000d0c7';
      assert.equal(await copilotCliHook('sessionStart', t.dataDir, { sessionId, cwd: t.cwd, source: 'new', timestamp: 1 }, env), 0);
      assert.equal(await copilotCliHook('userPromptSubmitted', t.dataDir, { cwd: t.cwd, prompt: 'no session id' }, env), 0);
    } finally {
      await daemon.stop();
    }
    const after = baton(['doctor', '--data-dir', t.dataDir], t);
    assert.equal(after.status, 0, after.stdout + after.stderr);
    assert.match(after.stdout, /\n {2}GitHub Copilot CLI \(copilot-cli\): last fired \S+ \(sessionStart\)\n/, after.stdout);
    assert.match(after.stdout, /failed: userPromptSubmitted: sessionId: is required/, after.stdout);
    const json = JSON.parse(baton(['doctor', '--json', '--data-dir', t.dataDir], t).stdout) as {
      hooks: { harnesses: Array<{ id: string; events: Array<{ event: string }>; failures: Array<{ event: string; reason: string }> }> };
    };
    const copilotCli = json.hooks.harnesses.find((h) => h.id === 'copilot-cli');
    assert.ok(copilotCli, JSON.stringify(json.hooks.harnesses.map((h) => h.id)));
    assert.ok(
      copilotCli.events.some((e) => e.event === 'sessionStart'),
      JSON.stringify(copilotCli.events),
    );
    assert.deepEqual(
      copilotCli.failures.map((f) => [f.event, f.reason]),
      [['userPromptSubmitted', 'sessionId: is required']],
    );
  });

  it('plain `baton install copilot-cli` writes the user hook file $COPILOT_HOME/hooks/baton.json (and nothing in the current folder)', () => {
    const t = setup();
    const r = baton(['install', 'copilot-cli', '--data-dir', t.dataDir], t);
    assert.equal(r.status, 0, r.stdout + r.stderr);
    const userFile = path.join(t.copilotHome, 'hooks', 'baton.json');
    assert.ok(fs.existsSync(userFile), `${userFile} written: ${r.stdout}`);
    assert.ok(r.stdout.includes(userFile), r.stdout);
    const hooks = (JSON.parse(fs.readFileSync(userFile, 'utf8')) as { hooks: Record<string, Array<{ bash: string }>> }).hooks;
    assert.deepEqual(Object.keys(hooks), EVENTS);
    for (const event of EVENTS) assert.ok(hooks[event][0].bash.includes(`copilot-cli --event ${event} `), hooks[event][0].bash);
    assert.ok(fs.existsSync(path.join(t.copilotHome, 'mcp-config.json')), 'the user install registers the MCP server');
    assert.equal(fs.existsSync(path.join(t.cwd, '.github')), false, 'no repository hook file in the current folder');
  });

  it('`baton install copilot-cli --project DIR` writes DIR/.github/hooks/baton.json, not the user file', () => {
    const t = setup();
    const repo = path.join(t.cwd, 'repo');
    fs.mkdirSync(repo);
    const r = baton(['install', 'copilot-cli', '--project', repo, '--data-dir', t.dataDir], t);
    assert.equal(r.status, 0, r.stdout + r.stderr);
    const repoFile = path.join(repo, '.github', 'hooks', 'baton.json');
    assert.ok(fs.existsSync(repoFile), `${repoFile} written: ${r.stdout}`);
    const hooks = (JSON.parse(fs.readFileSync(repoFile, 'utf8')) as { hooks: Record<string, unknown> }).hooks;
    assert.deepEqual(Object.keys(hooks), EVENTS);
    assert.match(r.stdout, /trusted folder/);
    assert.equal(fs.existsSync(path.join(t.copilotHome, 'hooks', 'baton.json')), false, 'no user hook file');
    assert.equal(fs.existsSync(path.join(t.copilotHome, 'mcp-config.json')), false, 'no MCP registration from a project install');
  });
});
