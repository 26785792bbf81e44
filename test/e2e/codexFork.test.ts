// End to end with the real Codex CLI, offline (a scripted Responses API on 127.0.0.1), after a plain
// `baton install codex`: a `spawn_agent` call with `fork_context: true` starts a child holding the
// parent's history, but not the assistant text written just before the call. Codex's SubagentStart
// does not say it is a fork (`agent_type: "default"`); the call's PreToolUse does, so Baton hands the
// fork only the text its copy lacks, and stores the child's task. Needs `npm run build` first.

import { strict as assert } from 'node:assert';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startDaemon, type Daemon } from '../../src/server/daemon';
import { CLI } from '../helpers/child';
import { baton, run, type RunResult, cleanEnv } from '../shared/claudeCli';
import { codexFakeConfig, responsesCall, responsesMessage, responsesText, startFakeResponses, type FakeResponses } from '../shared/fakeResponses';
import { requireHarnessCli } from '../shared/harnessClis';
import { e2eReport, storedSessions } from '../helpers/e2eReport';
import { cleanupTempDirs, tempFolders } from '../helpers/tmp';

type Json = any;

describe('Codex forks end to end (real codex exec, spawn_agent with fork_context)', function () {
  this.timeout(240_000);

  const id = crypto.randomBytes(4).toString('hex');
  const marker = `CODEXPARENT-${id}`;
  const spawningText = `SPAWNING-ANALYSIS-${id}: the slow query only appears with the new index, so the fork should compare both plans.`;
  const task = `FORK-TASK-${id}: compare the two query plans`;
  let dirs: Record<'home' | 'codexHome' | 'project' | 'dataDir' | 'tmp' | 'base', string>;
  let fake: FakeResponses | undefined;
  let daemon: Daemon | undefined;
  let env: NodeJS.ProcessEnv;
  let codex: RunResult | undefined;

  const call = responsesCall;
  const message = responsesMessage;
  const diagnostics = () =>
    e2eReport({ runs: [['codex', codex]], requests: fake?.requests.map((r) => `${r.seq} ${r.headers['thread-id'] ?? ''}`), dataDir: dirs?.dataDir });

  before(async function () {
    const codexBin = requireHarnessCli(this, 'codex');
    assert.ok(fs.existsSync(CLI), `${CLI} is missing: run \`npm run build\` first`);
    dirs = tempFolders('baton-e2e-codex-fork-', { home: 'home', codexHome: 'codex-home', project: 'project', dataDir: 'baton-data', tmp: 'tmp' });
    let parentThread: string | undefined;
    fake = await startFakeResponses({
      parentPromptIncludes: marker,
      agentPrompt: task,
      subagentReply: 'unused',
      parentFinal: 'unused',
      respond(body: Json, headers) {
        const thread = String(headers['thread-id'] ?? '');
        parentThread ??= thread;
        if (thread !== parentThread) return [message(`FORK-DONE ${id}`)];
        const outputs = (body?.input ?? []).filter((i: Json) => i?.type === 'function_call_output');
        if (outputs.length === 0) return [message(spawningText), call('call_fork', 'spawn_agent', { message: task, fork_context: true })];
        if (outputs.length === 1) {
          const child = /"agent_id":"([^"]+)"/.exec(String(outputs[0].output))?.[1] ?? '';
          return [call('call_wait', 'wait_agent', { targets: [child], timeout_ms: 60_000 })];
        }
        return [message('PARENT-DONE')];
      },
    });
    fs.writeFileSync(path.join(dirs.codexHome, 'config.toml'), codexFakeConfig(fake.url));
    daemon = await startDaemon({ dataDir: dirs.dataDir, port: 0, config: { transcriptRoots: [path.join(dirs.codexHome, 'sessions')] } });
    env = cleanEnv(dirs.home, dirs.tmp, {
      PATH: `${path.dirname(codexBin)}:${process.env.PATH}`,
      CODEX_HOME: dirs.codexHome,
      BATON_E2E_FAKE_KEY: 'sk-fake-e2e',
    });
    const installed = await baton(['install', 'codex', '--data-dir', dirs.dataDir], env);
    assert.equal(installed.code, 0, installed.stderr);
    codex = await run(
      'bash',
      ['-c', 'exec "$0" exec --skip-git-repo-check "$1" </dev/null', codexBin, `Remember ${marker}. Fork a helper to compare the plans.`],
      {
        cwd: dirs.project,
        env,
        timeoutMs: 120_000,
      },
    );
    assert.equal(codex.code, 0, diagnostics());
  });

  after(async () => {
    if (process.env.BATON_TEST_SHOW) console.log(diagnostics());
    await daemon?.stop();
    await fake?.close();
    cleanupTempDirs();
  });

  it("the fork's first request holds the spawning text Baton added, marked, and no copy of what it already had", () => {
    const parentThread = String(fake!.requests[0].headers['thread-id']);
    const first = fake!.requests.find((r) => String(r.headers['thread-id']) !== parentThread);
    assert.ok(first, `the fork made a request${diagnostics()}`);
    const text = responsesText(first.body);
    assert.ok(text.includes(marker), `Codex copied the parent's history into the fork${diagnostics()}`);
    const at = text.indexOf('## Inherited from Parent Session');
    assert.ok(at >= 0, `Baton's block reached the fork${diagnostics()}`);
    const block = text.slice(at, text.indexOf('\nBudget: ~', at) + 1);
    assert.ok(block.includes("The parent's words in the message that started this fork") && block.includes(spawningText), block);
    assert.ok(!block.includes(marker), `the block repeats nothing of the parent's history:\n${block}`);
    assert.ok(!/Recent context|Checkpoint summary/.test(block), block);
  });

  it("stores the fork's task from its spawn call", async () => {
    const { sessions, listed } = await storedSessions(dirs.dataDir, env);
    const child = sessions.find((s) => s.parentSessionKey !== null) as ((typeof sessions)[number] & { task?: string | null }) | undefined;
    assert.ok(child, listed.stdout);
    assert.equal(child.task, task);
  });
});
