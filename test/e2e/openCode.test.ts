// End to end with the real OpenCode CLI (npm opencode-ai, pinned; scripts/install-harness-clis.sh
// caches it outside the repo), offline: a scripted Chat Completions server on 127.0.0.1 makes the
// parent call the `task` tool, which runs a child session; Baton's plugin, installed by
// `baton install opencode`, feeds a Baton daemon running in this process. Checks outcomes only (not
// the plugin's internals): the child's first model request carries the parent's context, and the
// lineage is stored.
//
// Needs `npm run build` first (the plugin and CLI come from dist/). HOME and XDG folders are fresh
// temp folders, the project is a git repository, OPENCODE_DISABLE_MODELS_FETCH=1, and each config
// folder holds a package.json + package-lock.json naming @opencode-ai/plugin with an empty
// node_modules/: without them OpenCode tries to npm-install the plugin package at start and, offline,
// stalls for about a minute.
// Debugging: BATON_TEST_SHOW=1 prints opencode's output, the requests and Baton's hooks.log.

import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startDaemon, type Daemon } from '../../src/server/daemon';
import { CLI } from '../helpers/child';
import { baton, run, type RunResult } from '../helpers/claudeCli';
import { chatText, startFakeChatCompletions, type FakeChatCompletions } from '../helpers/fakeChatCompletions';
import { requireHarnessCli } from '../helpers/harnessClis';
import { e2eReport, storedSessions } from '../helpers/e2eReport';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';

const OPENCODE_TIMEOUT_MS = 150_000;
const PLUGIN_VERSION = '1.18.33';
const AGENT_PROMPT = 'Investigate the auth module and report back';
const INHERIT_HEADING = 'Inherited from Parent Session';

/** The files that tell OpenCode its plugin package is already installed in a config folder. */
function markPluginInstalled(dir: string): void {
  fs.mkdirSync(path.join(dir, 'node_modules'), { recursive: true });
  const dependencies = { '@opencode-ai/plugin': PLUGIN_VERSION };
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ dependencies }, null, 2) + '\n');
  fs.writeFileSync(
    path.join(dir, 'package-lock.json'),
    JSON.stringify({ name: path.basename(dir), lockfileVersion: 3, requires: true, packages: { '': { dependencies } } }, null, 2) + '\n',
  );
}

describe('OpenCode end to end (real opencode run, scripted Chat Completions, plugin from `baton install opencode`)', function () {
  this.timeout(300_000);

  const marker = `MARKER-${crypto.randomBytes(6).toString('hex')}`;
  const prompt = `Remember the deployment codename ${marker}. Delegate the auth investigation to a sub-agent.`;
  const subagentReply = `SUBAGENT-REPLY-${crypto.randomBytes(4).toString('hex')}: the auth module validates tokens correctly.`;
  const parentFinal = 'PARENT-FINAL: the sub-agent reported back.';

  let dataDir: string;
  let fake: FakeChatCompletions | undefined;
  let daemon: Daemon | undefined;
  let env: NodeJS.ProcessEnv;
  let installed: RunResult;
  let opencode: RunResult;

  const diagnostics = () =>
    e2eReport({
      runs: [
        ['baton install opencode', installed],
        ['opencode', opencode],
      ],
      requests: fake?.requests.map((r) => `${r.seq} ${r.path} ${r.role ?? ''}`),
      dataDir,
    });

  before(async function () {
    const bin = requireHarnessCli(this, 'opencode');
    assert.ok(fs.existsSync(CLI), `${CLI} is missing: run \`npm run build\` first`);

    const base = fs.realpathSync(tempDir('baton-e2e-opencode-'));
    const home = path.join(base, 'home');
    const xdg = {
      config: path.join(base, 'xdg-config'),
      data: path.join(base, 'xdg-data'),
      cache: path.join(base, 'xdg-cache'),
      state: path.join(base, 'xdg-state'),
    };
    const project = path.join(base, 'project');
    dataDir = path.join(base, 'baton-data');
    const tmp = path.join(base, 'tmp');
    for (const dir of [home, ...Object.values(xdg), project, dataDir, tmp]) fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(project, 'README.md'), '# demo project\n');
    const git = spawnSync('bash', ['-c', 'git init -q && git add -A && git -c user.name=e2e -c user.email=e2e@example.invalid commit -qm init'], {
      cwd: project,
      encoding: 'utf8',
    });
    assert.equal(git.status, 0, git.stderr);

    fake = await startFakeChatCompletions({
      parentPromptIncludes: marker,
      agentPrompt: AGENT_PROMPT,
      agentDescription: 'investigate auth',
      subagentType: 'general',
      subagentReply,
      parentFinal,
    });
    // OpenCode's model: an OpenAI-compatible provider that is the fake (the SDK package is bundled).
    fs.writeFileSync(
      path.join(project, 'opencode.json'),
      JSON.stringify(
        {
          model: 'fake/fake-model',
          small_model: 'fake/fake-model',
          autoupdate: false,
          share: 'disabled',
          provider: {
            fake: {
              npm: '@ai-sdk/openai-compatible',
              name: 'Fake',
              options: { baseURL: fake.url, apiKey: 'sk-fake-e2e' },
              models: { 'fake-model': { name: 'Fake model', tool_call: true } },
            },
          },
        },
        null,
        2,
      ) + '\n',
    );
    markPluginInstalled(path.join(xdg.config, 'opencode'));
    markPluginInstalled(path.join(project, '.opencode'));
    daemon = await startDaemon({ dataDir, port: 0 });

    env = {
      PATH: process.env.PATH,
      HOME: home,
      XDG_CONFIG_HOME: xdg.config,
      XDG_DATA_HOME: xdg.data,
      XDG_CACHE_HOME: xdg.cache,
      XDG_STATE_HOME: xdg.state,
      TMPDIR: tmp,
      LANG: 'C.UTF-8',
      OPENCODE_DISABLE_MODELS_FETCH: '1',
      OPENCODE_DISABLE_AUTOUPDATE: '1',
      NO_PROXY: '127.0.0.1,localhost',
      no_proxy: '127.0.0.1,localhost',
    };
    installed = await baton(['install', 'opencode', '--project', project, '--data-dir', dataDir], env);
    assert.equal(installed.code, 0, `baton install opencode failed${diagnostics()}`);
    assert.ok(fs.existsSync(path.join(project, '.opencode', 'plugin', 'baton.js')), `the plugin is installed${diagnostics()}`);

    opencode = await run(bin, ['run', ...prompt.split(' ')], { cwd: project, env, timeoutMs: OPENCODE_TIMEOUT_MS });
  });

  after(async () => {
    if (process.env.BATON_TEST_SHOW) console.log(diagnostics());
    await daemon?.stop();
    await fake?.close();
    cleanupTempDirs();
  });

  it('runs the real opencode run to a clean exit 0, driven only by the fake server', () => {
    assert.equal(opencode.timedOut, false, `opencode did not finish within ${OPENCODE_TIMEOUT_MS} ms${diagnostics()}`);
    assert.equal(opencode.code, 0, `opencode exited ${opencode.code}${diagnostics()}`);
    const roles = fake!.requests.map((r) => r.role);
    for (const role of ['parent-first', 'subagent', 'parent-followup'])
      assert.ok(roles.includes(role as never), `the script reached ${role}: ${roles.join(', ')}${diagnostics()}`);
    for (const r of fake!.requests) assert.equal(r.headers.host, `127.0.0.1:${fake!.port}`);
  });

  it("the child's first model request carries the inherited block with the parent's marker (not in its task)", () => {
    const first = fake!.requests.find((r) => r.role === 'subagent');
    assert.ok(first, `the child made a model request${diagnostics()}`);
    assert.ok(!AGENT_PROMPT.includes(marker));
    const text = chatText(first.body);
    assert.ok(text.includes(AGENT_PROMPT), 'the child request holds its task');
    assert.ok(text.includes(INHERIT_HEADING), `the child's first request carries "${INHERIT_HEADING}"${diagnostics()}`);
    assert.ok(text.includes(marker), `the child's first request carries the parent's marker ${marker}${diagnostics()}`);
  });

  it('stores the lineage: the task child is an opencode session under the parent', async () => {
    const { listed, sessions: all } = await storedSessions(dataDir, env);
    const sessions = all.filter((s) => s.harness === 'opencode');
    const roots = sessions.filter((s) => s.parentSessionKey === null);
    assert.equal(roots.length, 1, `one parent session: ${listed.stdout}${diagnostics()}`);
    const children = sessions.filter((s) => s.parentSessionKey === roots[0].key);
    assert.equal(children.length, 1, `one child of ${roots[0].key}: ${listed.stdout}${diagnostics()}`);
    assert.match(children[0].key, /^ses_/);
    assert.notEqual(children[0].key, roots[0].key);
  });
});
