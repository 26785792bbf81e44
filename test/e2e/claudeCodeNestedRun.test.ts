// End to end with the real Claude Code CLI as a runner (test/fixtures/claudeRunner.js runs
// `claude -p` on the prompt Baton writes), offline: a run spawned under a session starts Claude
// Code; the scripted model on 127.0.0.1 makes it run `baton run` through its Bash tool, naming no
// parent. The inner run must land under the outer run's session (Baton gave the child
// AGENT_SESSION_ID, Claude Code's Bash passed it on, `baton run` took it as its parent): a run
// spawned from inside a run is its child, and nothing is left without a parent.
//
// Needs `npm run build` first (the CLI runs from dist/).

import { strict as assert } from 'node:assert';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startDaemon, type Daemon } from '../../src/server/daemon';
import { CLI, ROOT } from '../helpers/child';
import { claudeBin, claudeEnv, cleanEnv } from '../shared/claudeCli';
import { contentText, startFakeAnthropic, type FakeAnthropic } from '../shared/fakeAnthropic';
import { cleanupTempDirs, tempFolders } from '../helpers/tmp';

const CLAUDE_RUNNER = path.join(ROOT, 'test', 'fixtures', 'claudeRunner.js');
const ECHO = path.join(ROOT, 'test', 'fixtures', 'echoRunner.js');

interface RunRow {
  id: string;
  status: string;
  parentSessionKey: string | null;
  sessionKey: string | null;
  resultContent: string | null;
}

describe('Claude Code end to end: a run spawned from inside a run (Claude Code running `baton run`) lands under it', function () {
  this.timeout(300_000);

  const tag = crypto.randomBytes(4).toString('hex');
  const outerTask = `OUTER-${tag}: check the billing tests with a helper run`;
  const innerTask = `INNER-${tag}: run the billing tests`;
  const parent = `nested-parent-${tag}`;

  let dataDir: string;
  let fake: FakeAnthropic | undefined;
  let daemon: Daemon | undefined;
  let runs: RunRow[] = [];
  let bashResult = '';

  const api = async (route: string, init: RequestInit = {}) => {
    const res = await fetch(`${daemon!.server.url}${route}`, {
      ...init,
      headers: { authorization: `Bearer ${daemon!.token}`, 'content-type': 'application/json' },
    });
    return { status: res.status, body: (await res.json()) as any };
  };

  before(async function () {
    assert.ok(fs.existsSync(claudeBin()), `the Claude Code CLI is not installed at ${claudeBin()} (npm ci installs it as a devDependency)`);
    assert.ok(fs.existsSync(CLI), `${CLI} is missing: run \`npm run build\` first`);
    const dirs = tempFolders('baton-e2e-nested-run-', { home: 'home', configDir: 'claude-config', tmp: 'tmp', project: 'project', dataDir: 'baton-data' });
    dataDir = dirs.dataDir;
    const { base, home, configDir, tmp, project } = dirs;

    // The model inside the outer run runs `baton run` once, then reports what it printed.
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} run --runner echo --data-dir ${JSON.stringify(dataDir)} --json ${JSON.stringify(innerTask)}`;
    fake = await startFakeAnthropic({
      parentPromptIncludes: `never-sent-${tag}`,
      agentPrompt: `never-sent-agent-${tag}`,
      subagentReply: 'unused',
      parentFinal: 'unused',
      otherText: 'Noted.',
      respond(body) {
        const messages: Array<{ role: string; content: any }> = body?.messages ?? [];
        if (!messages.some((m) => m.role === 'user' && contentText(m.content).includes(`OUTER-${tag}`))) return undefined;
        const last = messages[messages.length - 1];
        const result = Array.isArray(last?.content) ? last.content.find((c: { type?: string }) => c?.type === 'tool_result') : undefined;
        if (!result)
          return {
            blocks: [{ type: 'tool_use', id: `toolu_nested_${tag}`, name: 'Bash', input: { command, description: 'Start the helper run' } }],
            stopReason: 'tool_use',
          };
        bashResult = contentText(result.content);
        return { blocks: [{ type: 'text', text: `OUTER-DONE-${tag}` }], stopReason: 'end_turn' };
      },
    });

    const claudeEnvFile = path.join(base, 'claude-env.json');
    fs.writeFileSync(claudeEnvFile, JSON.stringify(claudeEnv(cleanEnv(home, tmp), { configDir, tmp, fakeUrl: fake.url })));
    daemon = await startDaemon({
      dataDir,
      port: 0,
      config: {
        runners: {
          claude: { command: process.execPath, args: [CLAUDE_RUNNER, claudeBin(), claudeEnvFile], cwd: project },
          echo: { command: process.execPath, args: [ECHO, 'ok'] },
        },
      },
    });
    assert.equal(
      (await api('/api/hooks/session-start', { method: 'POST', body: JSON.stringify({ harness: 'claude-code', sessionKey: parent, project }) })).status,
      200,
    );

    const spawned = await api('/api/runs/spawn', {
      method: 'POST',
      body: JSON.stringify({ parentSessionKey: parent, task: outerTask, runner: 'claude', executionMode: 'SYNC' }),
    });
    assert.equal(spawned.status, 200, JSON.stringify(spawned.body));
    runs = (await api('/api/runs')).body.runs as RunRow[];
  });

  after(async () => {
    await daemon?.stop();
    await fake?.close();
    cleanupTempDirs();
  });

  it('the outer run ran the real Claude Code, which ran `baton run` through its Bash tool', () => {
    const outer = runs.find((r) => r.parentSessionKey === parent);
    assert.ok(outer, `the outer run is under the parent: ${JSON.stringify(runs)}`);
    assert.equal(outer.status, 'completed', JSON.stringify(outer));
    assert.ok(outer.resultContent?.includes(`OUTER-DONE-${tag}`), `Claude Code answered: ${outer.resultContent}`);
    assert.ok(bashResult.includes('"status"'), `baton run printed its run: ${bashResult}`);
  });

  it("the inner run is under the outer run's session, and no run or session is left without a parent", async () => {
    const outer = runs.find((r) => r.parentSessionKey === parent)!;
    assert.equal(runs.length, 2, JSON.stringify(runs));
    const inner = runs.find((r) => r !== outer)!;
    assert.ok(outer.sessionKey, 'the outer run has its own session');
    assert.equal(inner.parentSessionKey, outer.sessionKey, `the inner run names the outer run's session as its parent: ${JSON.stringify(inner)}`);
    assert.equal(inner.status, 'completed');
    const sessions = (await api('/api/sessions?all=1&limit=100')).body.sessions as Array<{ key: string; parentSessionKey: string | null }>;
    const byKey = new Map(sessions.map((s) => [s.key, s]));
    assert.equal(byKey.get(outer.sessionKey!)?.parentSessionKey, parent);
    assert.equal(byKey.get(inner.sessionKey!)?.parentSessionKey, outer.sessionKey);
    for (const s of sessions) if (s.key !== parent) assert.ok(s.parentSessionKey && byKey.has(s.parentSessionKey), `${s.key} has a recorded parent`);
  });
});
