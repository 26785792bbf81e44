// End to end with the real OpenCode CLI (npm opencode-ai, pinned; scripts/dev/install-harness-clis.sh
// caches it outside the repo), offline: a scripted Chat Completions server on 127.0.0.1 makes the
// parent call the `task` tool, which runs a child session; Baton's plugin, installed by
// `baton install opencode`, feeds a Baton daemon running in this process. Checks outcomes only (not
// the plugin's internals): the child's first model request carries the parent's context, and the
// lineage is stored.
//
// Needs `npm run build` first (the plugin and CLI come from dist/). OpenCode runs in a throwaway
// home (test/shared/openCodeHome.ts: fresh HOME and XDG folders, a git project, the plugin
// package marked installed so that, offline, OpenCode does not stall trying to npm-install it).
// Debugging: BATON_TEST_SHOW=1 prints opencode's output, the requests and Baton's hooks.log.

import { strict as assert } from 'node:assert';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startDaemon, type Daemon } from '../../src/server/daemon';
import { CLI } from '../helpers/child';
import { baton, run, type RunResult } from '../shared/claudeCli';
import { chatText, startFakeChatCompletions, type FakeChatCompletions } from '../shared/fakeChatCompletions';
import { requireHarnessCli } from '../shared/harnessClis';
import { e2eReport, storedSessions } from '../helpers/e2eReport';
import { makeOpenCodeHome } from '../shared/openCodeHome';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';

const OPENCODE_TIMEOUT_MS = 150_000;
const AGENT_PROMPT = 'Investigate the auth module and report back';
const INHERIT_HEADING = 'Inherited from Parent Session';

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
    dataDir = path.join(base, 'baton-data');
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    fake = await startFakeChatCompletions({
      parentPromptIncludes: marker,
      agentPrompt: AGENT_PROMPT,
      agentDescription: 'investigate auth',
      subagentType: 'general',
      subagentReply,
      parentFinal,
    });
    // OpenCode's own HOME and XDG folders, a git project, and its model an OpenAI-compatible
    // provider that is the fake (the SDK package is bundled).
    const oc = makeOpenCodeHome(base, 'project', { 'README.md': '# demo project\n' }, fake.url);
    const project = oc.project;
    env = oc.env;
    daemon = await startDaemon({ dataDir, port: 0 });

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
    // Its first prompt is its task: the plugin asked for the block again with it, and it is stored.
    assert.equal((children[0] as { task?: string | null }).task, AGENT_PROMPT, `the child's task: ${listed.stdout}${diagnostics()}`);
  });
});
