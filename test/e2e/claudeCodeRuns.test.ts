// End to end with the real Claude Code CLI (node_modules/.bin/claude), offline: a Claude Code
// parent session (hooks installed by the real `baton install claude-code`, model answers from the
// scripted Messages server on 127.0.0.1) gets an ASYNC_CALLBACK run spawned through
// POST /api/runs/spawn with a real child process as runner (test/fixtures/echoRunner.js). Checks
// that the run's result reaches the parent's next prompt (`claude -p --resume`) through its
// UserPromptSubmit hook, and that the prompt after that does not get it again.
//
// Needs `npm run build` first (the hooks and the CLI run from dist/). Debugging:
// BATON_TEST_DUMP_REQUESTS=<file> appends every request the fake received (JSONL).

import { strict as assert } from 'node:assert';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startDaemon, type Daemon } from '../../src/server/daemon';
import { CLI, ROOT } from '../helpers/child';
import { baton, CLAUDE_TIMEOUT_MS, claudeBin, claudeEnv, run, type RunResult, cleanEnv } from '../shared/claudeCli';
import { contentText, requestText, startFakeAnthropic, type FakeAnthropic, type RecordedRequest } from '../shared/fakeAnthropic';
import { e2eReport } from '../helpers/e2eReport';
import { cleanupTempDirs, tempFolders } from '../helpers/tmp';

const ECHO = path.join(ROOT, 'test', 'fixtures', 'echoRunner.js');
const RESULTS_HEADING = 'Sub-agent results (1):';

describe('Claude Code end to end: an ASYNC_CALLBACK run reaches the parent at its next prompt, once', function () {
  this.timeout(480_000);

  const tag = crypto.randomBytes(4).toString('hex');
  const firstPrompt = `FIRST-PROMPT-${tag}: we are migrating the billing service.`;
  const secondPrompt = `SECOND-PROMPT-${tag}: anything new?`;
  const thirdPrompt = `THIRD-PROMPT-${tag}: and now?`;
  const task = `RUN-TASK-${tag}: check the billing tests`;

  let project: string;
  let dataDir: string;
  let fake: FakeAnthropic | undefined;
  let daemon: Daemon | undefined;
  let env: NodeJS.ProcessEnv;
  let parentKey = '';
  const outputs: RunResult[] = [];

  const diagnostics = () => e2eReport({ runs: outputs.map((o, i) => [`claude #${i + 1}`, o]), dataDir });

  const claude = async (args: string[]): Promise<RunResult> => {
    const out = await run(claudeBin(), [...args, '--output-format', 'json'], { cwd: project, env, timeoutMs: CLAUDE_TIMEOUT_MS });
    outputs.push(out);
    assert.equal(out.code, 0, `claude ${args.join(' ')} exited ${out.code}${diagnostics()}`);
    return out;
  };

  /** The model request of the turn whose newest user message holds `prompt`. */
  const turnRequest = (prompt: string): RecordedRequest => {
    const found = fake!.messages().filter((r) => {
      const users = (r.body?.messages ?? []).filter((m: { role: string }) => m.role === 'user');
      return users.length > 0 && contentText(users[users.length - 1].content).includes(prompt);
    });
    assert.ok(found.length >= 1, `a model request for "${prompt}" reached the fake${diagnostics()}`);
    return found[found.length - 1];
  };

  const count = (text: string, what: string) => text.split(what).length - 1;

  /** What Claude Code sent after the user message holding `prompt` (the hook's additionalContext arrives there). */
  const afterPrompt = (request: RecordedRequest, prompt: string): string => {
    const messages: Array<{ role: string; content: unknown }> = request.body.messages;
    const at = messages.map((m) => m.role === 'user' && contentText(m.content).includes(prompt)).lastIndexOf(true);
    return messages
      .slice(at + 1)
      .map((m) => contentText(m.content))
      .join('\n');
  };

  before(async function () {
    assert.ok(fs.existsSync(claudeBin()), `the Claude Code CLI is not installed at ${claudeBin()} (npm ci installs it as a devDependency)`);
    assert.ok(fs.existsSync(CLI), `${CLI} is missing: run \`npm run build\` first`);
    const dirs = tempFolders('baton-e2e-runs-', { home: 'home', configDir: 'claude-config', tmp: 'tmp', project: 'project', dataDir: 'baton-data' });
    ({ project, dataDir } = dirs);
    const { home, configDir, tmp } = dirs;

    // Every request gets a plain text answer: this test drives no tools, only prompts.
    fake = await startFakeAnthropic({
      parentPromptIncludes: `never-sent-${tag}`,
      agentPrompt: `never-sent-agent-${tag}`,
      subagentReply: 'unused',
      parentFinal: 'unused',
      otherText: 'Noted.',
      dumpFile: process.env.BATON_TEST_DUMP_REQUESTS || undefined,
    });
    daemon = await startDaemon({
      dataDir,
      port: 0,
      config: { transcriptRoots: [path.join(configDir, 'projects')], runners: { echo: { command: process.execPath, args: [ECHO, 'ok'] } } },
    });
    const batonEnv = cleanEnv(home, tmp);
    const installed = await baton(['install', 'claude-code', '--project', project, '--data-dir', dataDir], batonEnv);
    assert.equal(installed.code, 0, `baton install failed: ${installed.stderr}`);
    env = claudeEnv(batonEnv, { configDir, tmp, fakeUrl: fake.url });
  });

  after(async () => {
    if (process.env.BATON_TEST_SHOW) console.log(diagnostics());
    await daemon?.stop();
    await fake?.close();
    cleanupTempDirs();
  });

  it('spawns the run with the Claude Code session as parent; the child inherits its first prompt', async () => {
    const first = await claude(['-p', firstPrompt]);
    parentKey = (JSON.parse(first.stdout) as { session_id: string }).session_id;
    assert.match(parentKey, /^[0-9a-f-]{36}$/);

    const auth = { authorization: `Bearer ${daemon!.token}`, 'content-type': 'application/json' };
    const spawned = await fetch(`${daemon!.server.url}/api/runs/spawn`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ parentSessionKey: parentKey, task, runner: 'echo', executionMode: 'ASYNC_CALLBACK' }),
    });
    assert.equal(spawned.status, 200);
    const { id } = (await spawned.json()) as { id: string };
    let run: { status: string; resultContent: string | null; callbackDeliveredAt: string | null } | undefined;
    for (let i = 0; i < 200; i++) {
      run = (await (await fetch(`${daemon!.server.url}/api/runs/${id}`, { headers: auth })).json()) as typeof run;
      if (run!.status === 'completed' || run!.status === 'failed') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(run?.status, 'completed', JSON.stringify(run));
    assert.equal(run!.callbackDeliveredAt, null, 'left for the parent to take');
    const answer = JSON.parse(run!.resultContent!) as { agentSessionId: string; promptStart: string };
    assert.equal(answer.agentSessionId, `${parentKey}/run-${id.slice(0, 8)}`);
    assert.ok(answer.promptStart.includes(`FIRST-PROMPT-${tag}`), `the child inherited the parent's prompt: ${answer.promptStart}`);
  });

  it("the parent's next prompt (claude -p --resume) carries the result through the UserPromptSubmit hook", async () => {
    assert.ok(parentKey, 'the first step ran');
    await claude(['-p', secondPrompt, '--resume', parentKey]);
    const request = turnRequest(secondPrompt);
    assert.equal(count(requestText(request.body), RESULTS_HEADING), 1, `the aggregated results arrive once in the second turn${diagnostics()}`);
    const context = afterPrompt(request, secondPrompt);
    assert.match(context, /UserPromptSubmit hook additional context: Sub-agent results \(1\):\n- run [0-9a-f-]+ \(echo\) completed:/);
    assert.ok(context.includes(task), 'with the run result (the echo runner repeats its task)');
    assert.equal(count(requestText(turnRequest(firstPrompt).body), RESULTS_HEADING), 0, 'not before the run finished');
  });

  it('the prompt after that does not carry it again', async () => {
    assert.ok(parentKey, 'the first step ran');
    await claude(['-p', thirdPrompt, '--resume', parentKey]);
    const request = turnRequest(thirdPrompt);
    // The resumed conversation repeats the second turn (with its context) as history; nothing new is added.
    assert.equal(count(requestText(request.body), RESULTS_HEADING), 1, `delivered once only${diagnostics()}`);
    assert.doesNotMatch(afterPrompt(request, thirdPrompt), /Sub-agent results/);
  });
});
