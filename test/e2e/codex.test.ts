// End to end with the real Codex CLI (npm @openai/codex, pinned; scripts/dev/install-harness-clis.sh
// caches it outside the repo), offline: a scripted Responses API on 127.0.0.1 makes the parent spawn
// a sub-agent with `spawn_agent`; Baton's hooks, installed by a plain `baton install codex` (which
// records Codex's trust for them: no --dangerously-bypass-hook-trust here), feed a Baton daemon
// running in this process. Checks that the sub-agent's first model request carries the parent's
// context and that the lineage is stored.
//
// Needs `npm run build` first (hooks and CLI run from dist/). HOME and CODEX_HOME are fresh temp
// folders; Codex talks only to the fake (a custom model provider in config.toml).
// Debugging: BATON_TEST_SHOW=1 prints codex's output, the requests and Baton's hooks.log.

import { strict as assert } from 'node:assert';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startDaemon, type Daemon } from '../../src/server/daemon';
import { CLI } from '../helpers/child';
import { baton, run, type RunResult, cleanEnv } from '../shared/claudeCli';
import { codexFakeConfig, responsesText, startFakeResponses, type FakeResponses } from '../shared/fakeResponses';
import { requireHarnessCli } from '../shared/harnessClis';
import { e2eReport, storedSessions } from '../helpers/e2eReport';
import { cleanupTempDirs, tempFolders } from '../helpers/tmp';

const CODEX_TIMEOUT_MS = 120_000;
const AGENT_PROMPT = 'Investigate the auth module and report back';
const INHERIT_HEADING = 'Inherited from Parent Session';

describe('Codex end to end (real codex exec, scripted Responses API, hooks from a plain `baton install codex`)', function () {
  this.timeout(240_000);

  const marker = `MARKER-${crypto.randomBytes(6).toString('hex')}`;
  const prompt = `Remember the deployment codename ${marker}. Delegate the auth investigation to a sub-agent.`;
  const subagentReply = `SUBAGENT-REPLY-${crypto.randomBytes(4).toString('hex')}: the auth module validates tokens correctly.`;
  const parentFinal = 'PARENT-FINAL: the sub-agent reported back.';

  let codexHome: string;
  let dataDir: string;
  let fake: FakeResponses | undefined;
  let daemon: Daemon | undefined;
  let env: NodeJS.ProcessEnv;
  let installed: RunResult;
  let codex: RunResult;

  const diagnostics = () =>
    e2eReport({
      runs: [
        ['baton install codex', installed],
        ['codex', codex],
      ],
      requests: fake?.requests.map((r) => `${r.seq} ${r.path} ${r.role ?? ''}`),
      dataDir,
    });

  before(async function () {
    const codexBin = requireHarnessCli(this, 'codex');
    assert.ok(fs.existsSync(CLI), `${CLI} is missing: run \`npm run build\` first`);

    const dirs = tempFolders('baton-e2e-codex-', { home: 'home', codexHome: 'codex-home', project: 'project', dataDir: 'baton-data', tmp: 'tmp' });
    ({ codexHome, dataDir } = dirs);
    const { home, project, tmp } = dirs;
    fs.writeFileSync(path.join(project, 'README.md'), '# demo project\n');

    fake = await startFakeResponses({ parentPromptIncludes: marker, agentPrompt: AGENT_PROMPT, subagentReply, parentFinal });
    // Codex's model: a custom provider that is the fake.
    fs.writeFileSync(path.join(codexHome, 'config.toml'), codexFakeConfig(fake.url));
    daemon = await startDaemon({ dataDir, port: 0, config: { transcriptRoots: [path.join(codexHome, 'sessions')] } });

    // A clean environment with the cached codex on PATH, as a user who installed it has.
    env = cleanEnv(home, tmp, { PATH: `${path.dirname(codexBin)}:${process.env.PATH}`, CODEX_HOME: codexHome, BATON_E2E_FAKE_KEY: 'sk-fake-e2e' });
    installed = await baton(['install', 'codex', '--data-dir', dataDir], env);
    assert.equal(installed.code, 0, `baton install codex failed${diagnostics()}`);

    codex = await run('bash', ['-c', 'exec "$0" exec --skip-git-repo-check "$1" </dev/null', codexBin, prompt], {
      cwd: project,
      env,
      timeoutMs: CODEX_TIMEOUT_MS,
    });
  });

  after(async () => {
    if (process.env.BATON_TEST_SHOW) console.log(diagnostics());
    await daemon?.stop();
    await fake?.close();
    cleanupTempDirs();
  });

  it('`baton install codex` says it recorded Codex trust for its hooks', () => {
    assert.match(installed.stdout, /Trusted Baton's 9 Codex hooks .*which now reports them trusted/, diagnostics());
  });

  it('runs the real codex exec to a clean exit 0, driven only by the fake server', () => {
    assert.equal(codex.timedOut, false, `codex did not finish within ${CODEX_TIMEOUT_MS} ms${diagnostics()}`);
    assert.equal(codex.code, 0, `codex exited ${codex.code}${diagnostics()}`);
    const roles = fake!.requests.map((r) => r.role);
    for (const role of ['parent-first', 'parent-spawned', 'subagent', 'parent-followup'])
      assert.ok(roles.includes(role as never), `the script reached ${role}: ${roles.join(', ')}${diagnostics()}`);
    assert.ok(codex.stdout.includes(parentFinal), diagnostics());
    for (const r of fake!.requests) assert.equal(r.headers.host, `127.0.0.1:${fake!.port}`);
  });

  it("the sub-agent's first model request carries the inherited block with the parent's marker (not in its task)", () => {
    const first = fake!.requests.find((r) => r.role === 'subagent');
    assert.ok(first, `the sub-agent made a model request${diagnostics()}`);
    const spawn = fake!.requests.find((r) => r.role === 'parent-spawned');
    const spawnCall = (spawn?.body?.input ?? []).find((i: { type?: string; name?: string }) => i?.type === 'function_call' && i.name === 'spawn_agent');
    assert.ok(spawnCall && !String(spawnCall.arguments).includes(marker), 'the spawn_agent task itself does not carry the marker');
    const text = responsesText(first.body);
    assert.ok(text.includes(AGENT_PROMPT), 'the sub-agent request holds its task');
    assert.ok(text.includes(INHERIT_HEADING), `the sub-agent's first request carries "${INHERIT_HEADING}"${diagnostics()}`);
    assert.ok(text.includes(marker), `the sub-agent's first request carries the parent's marker ${marker}${diagnostics()}`);
  });

  it('stores the lineage: the sub-agent is a codex session under the parent', async () => {
    const { listed, sessions } = await storedSessions(dataDir, env);
    const parentId = String(fake!.requests.find((r) => r.role === 'parent-first')?.headers['session-id'] ?? '');
    const parent = sessions.find((s) => s.key === parentId);
    assert.ok(parent, `parent session ${parentId} listed: ${listed.stdout}${diagnostics()}`);
    assert.equal(parent.harness, 'codex');
    assert.equal(parent.parentSessionKey, null);
    const children = sessions.filter((s) => s.parentSessionKey === parentId);
    assert.equal(children.length, 1, `one child of ${parentId}: ${listed.stdout}${diagnostics()}`);
    assert.equal(children[0].harness, 'codex');
    const childThread = String(fake!.requests.find((r) => r.role === 'subagent')?.headers['thread-id'] ?? '');
    assert.equal(children[0].harnessAgentId, childThread, 'the child is the thread that made the sub-agent request');
  });
});
