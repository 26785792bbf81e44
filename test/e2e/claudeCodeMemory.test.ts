// End to end with the real Claude Code CLI (node_modules/.bin/claude), offline: a decision stated in
// one Claude Code session (hooks installed by the real `baton install claude-code`, model answers
// from the scripted Messages server on 127.0.0.1) becomes a memory when that session ends, and the
// NEXT session of the same project gets it in its context at its start, through the SessionStart
// hook, without asking for it. A session of another project does not.
//
// Needs `npm run build` first (the hooks and the CLI run from dist/). Debugging: BATON_TEST_SHOW=1.

import { strict as assert } from 'node:assert';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startDaemon, type Daemon } from '../../src/server/daemon';
import { CLI } from '../helpers/child';
import { baton, CLAUDE_TIMEOUT_MS, claudeBin, claudeEnv, run, type RunResult, cleanEnv } from '../shared/claudeCli';
import { contentText, requestText, startFakeAnthropic, type FakeAnthropic, type RecordedRequest } from '../shared/fakeAnthropic';
import { e2eReport } from '../helpers/e2eReport';
import { cleanupTempDirs, tempFolders } from '../helpers/tmp';

describe('Claude Code end to end: a decision of one session reaches the next session of the project at its start', function () {
  this.timeout(300_000);

  const tag = crypto.randomBytes(4).toString('hex');
  const decision = `We decided to keep refunds on the ledger-v2 schema, ticket MEMO-${tag}.`;
  const nextPrompt = `NEXT-${tag}: which schema do refunds use?`;
  const otherPrompt = `OTHER-${tag}: what is in this folder?`;

  let dataDir: string;
  let fake: FakeAnthropic | undefined;
  let daemon: Daemon | undefined;
  let env: NodeJS.ProcessEnv;
  const projects: Record<'billing' | 'other', string> = { billing: '', other: '' };
  const outputs: RunResult[] = [];

  const diagnostics = () => e2eReport({ runs: outputs.map((o, i) => [`claude #${i + 1}`, o]), dataDir });

  const claude = async (project: string, prompt: string): Promise<RunResult> => {
    const out = await run(claudeBin(), ['-p', prompt, '--output-format', 'json'], { cwd: project, env, timeoutMs: CLAUDE_TIMEOUT_MS });
    outputs.push(out);
    assert.equal(out.code, 0, `claude -p exited ${out.code}${diagnostics()}`);
    return out;
  };

  /** The first model request of the session whose prompt is `prompt`. */
  const firstRequest = (prompt: string): RecordedRequest => {
    const found = fake!
      .messages()
      .find((r) => (r.body?.messages ?? []).some((m: { role: string; content: unknown }) => m.role === 'user' && contentText(m.content).includes(prompt)));
    assert.ok(found, `a model request for "${prompt}" reached the fake${diagnostics()}`);
    return found;
  };

  before(async function () {
    assert.ok(fs.existsSync(claudeBin()), `the Claude Code CLI is not installed at ${claudeBin()} (npm ci installs it as a devDependency)`);
    assert.ok(fs.existsSync(CLI), `${CLI} is missing: run \`npm run build\` first`);
    const dirs = tempFolders('baton-e2e-memory-', {
      home: 'home',
      configDir: 'claude-config',
      tmp: 'tmp',
      billing: 'billing',
      other: 'other',
      dataDir: 'baton-data',
    });
    ({ billing: projects.billing, other: projects.other, dataDir } = dirs);
    const { home, configDir, tmp } = dirs;

    // Every request gets a plain text answer: the test drives prompts only.
    fake = await startFakeAnthropic({
      parentPromptIncludes: `never-sent-${tag}`,
      agentPrompt: `never-sent-agent-${tag}`,
      subagentReply: 'unused',
      parentFinal: 'unused',
      otherText: 'Noted.',
    });
    daemon = await startDaemon({ dataDir, port: 0, config: { transcriptRoots: [path.join(configDir, 'projects')] } });
    const batonEnv = cleanEnv(home, tmp);
    for (const project of Object.values(projects)) {
      const installed = await baton(['install', 'claude-code', '--project', project, '--data-dir', dataDir], batonEnv);
      assert.equal(installed.code, 0, `baton install failed: ${installed.stderr}`);
    }
    env = claudeEnv(batonEnv, { configDir, tmp, fakeUrl: fake.url });
  });

  after(async () => {
    if (process.env.BATON_TEST_SHOW) console.log(diagnostics());
    await daemon?.stop();
    await fake?.close();
    cleanupTempDirs();
  });

  it('a session states a decision; when it ends, the decision is a memory of the project', async () => {
    await claude(projects.billing, decision);
    const auth = { authorization: `Bearer ${daemon!.token}`, 'content-type': 'application/json' };
    let found = '';
    // The session end stores the memories in the hook's call; the hook has returned when claude exits.
    for (let i = 0; i < 100 && !found.includes(`MEMO-${tag}`); i++) {
      const res = await fetch(`${daemon!.server.url}/api/memory/recall`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ query: 'ledger-v2 refunds', project: projects.billing }),
      });
      found = await res.text();
      if (!found.includes(`MEMO-${tag}`)) await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(found.includes(`MEMO-${tag}`), `the decision is recalled for the project: ${found}${diagnostics()}`);
  });

  it('the next session of the project has the decision in its context from its first request, unasked', async () => {
    await claude(projects.billing, nextPrompt);
    const text = requestText(firstRequest(nextPrompt).body);
    assert.ok(text.includes(`MEMO-${tag}`), `the first request of the next session carries the memory${diagnostics()}`);
    assert.ok(!nextPrompt.includes(`MEMO-${tag}`), 'the prompt itself does not');
  });

  it("a session of another project does not get the billing project's decision", async () => {
    await claude(projects.other, otherPrompt);
    const text = requestText(firstRequest(otherPrompt).body);
    assert.ok(!text.includes(`MEMO-${tag}`), `another project's session is not handed the memory${diagnostics()}`);
  });
});
