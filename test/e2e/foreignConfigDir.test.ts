// End to end with the real Claude Code CLI run with a CLAUDE_CONFIG_DIR the Baton server was never
// told about (a second account, a terminal whose environment differs from the editor's): its
// transcripts lie outside the server's allowed roots, so the server may not open them. The hook,
// running in Claude Code's own environment, sends the new bytes itself (docs/security.md,
// "Transcripts outside the roots"). Checks that the session and its sub-agent are recorded from
// those bytes and that the sub-agent still starts warm with the parent's marker.
//
// Needs `npm run build` first (the hooks and the CLI run from dist/). Offline, like claudeCode.test.ts.

import { strict as assert } from 'node:assert';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startDaemon, type Daemon } from '../../src/server/daemon';
import { CLI } from '../helpers/child';
import { baton, CLAUDE_TIMEOUT_MS, claudeBin, claudeEnv, run, type RunResult, cleanEnv } from '../shared/claudeCli';
import { requestText, startFakeAnthropic, type FakeAnthropic } from '../shared/fakeAnthropic';
import { e2eReport, hooksLogText } from '../helpers/e2eReport';
import { cleanupTempDirs, tempFolders } from '../helpers/tmp';

const AGENT_PROMPT = 'Investigate the billing module and report back';
const INHERIT_HEADING = 'Inherited from Parent Session';

describe('Claude Code with a config folder the server does not know (real CLI)', function () {
  this.timeout(180_000);

  const marker = `MARKER-${crypto.randomBytes(6).toString('hex')}`;
  const prompt = `Remember the release codename ${marker}. Delegate the billing investigation to a sub-agent.`;
  const subagentReply = `SUBAGENT-REPLY-${crypto.randomBytes(4).toString('hex')}: billing rounds correctly.`;
  const parentFinal = 'PARENT-FINAL: the sub-agent reported back.';

  let configDir: string;
  let dataDir: string;
  let knownRoot: string;
  let fake: FakeAnthropic | undefined;
  let daemon: Daemon | undefined;
  let batonEnv: NodeJS.ProcessEnv;
  let claude: RunResult;
  let parentKey = '';

  const hooksLog = () => hooksLogText(dataDir, Infinity);
  const diagnostics = () => e2eReport({ runs: [['claude', claude]], dataDir });

  before(async function () {
    const bin = claudeBin();
    assert.ok(fs.existsSync(bin), `the Claude Code CLI is not installed at ${bin} (npm ci installs it as a devDependency)`);
    assert.ok(fs.existsSync(CLI), `${CLI} is missing: run \`npm run build\` first`);

    // configDir: the folder Claude Code uses, which nothing in the server's configuration names.
    const dirs = tempFolders('baton-e2e-foreign-', {
      home: 'home',
      configDir: 'second-account',
      knownRoot: path.join('known-claude', 'projects'),
      project: 'project',
      dataDir: 'baton-data',
      tmp: 'tmp',
    });
    ({ configDir, knownRoot, dataDir } = dirs);
    const { home, project, tmp } = dirs;
    fs.writeFileSync(path.join(project, 'README.md'), '# demo project\n');

    fake = await startFakeAnthropic({
      parentPromptIncludes: marker,
      agentPrompt: AGENT_PROMPT,
      agentDescription: 'investigate',
      subagentType: 'general-purpose',
      runInBackground: false,
      subagentReply,
      parentFinal,
      otherText: 'OK.',
    });
    // The server allows only another folder, as when it was started with another environment.
    daemon = await startDaemon({ dataDir, port: 0, config: { transcriptRoots: [knownRoot] } });

    batonEnv = cleanEnv(home, tmp);
    // The hook command: Claude Code's HTTP hooks (the default install) carry only the payload, and a
    // transcript the server may not open needs the hook to send its bytes (docs/harnesses.md, "HTTP hooks").
    const installed = await baton(['install', 'claude-code', '--command', '--project', project, '--data-dir', dataDir], batonEnv);
    assert.equal(installed.code, 0, `baton install failed: ${installed.stderr}`);

    claude = await run(bin, ['-p', prompt, '--output-format', 'json'], {
      cwd: project,
      timeoutMs: CLAUDE_TIMEOUT_MS,
      env: claudeEnv(batonEnv, { configDir, tmp, fakeUrl: fake.url }),
    });
    try {
      parentKey = (JSON.parse(claude.stdout) as { session_id: string }).session_id;
    } catch {
      parentKey = '';
    }
  });

  after(async () => {
    if (process.env.BATON_TEST_SHOW) console.log(diagnostics());
    await daemon?.stop();
    await fake?.close();
    cleanupTempDirs();
  });

  it('runs to a clean exit, and its transcripts really lie outside the allowed roots', () => {
    assert.equal(claude.code, 0, `claude exited ${claude.code}${diagnostics()}`);
    assert.match(parentKey, /^[0-9a-f-]{36}$/, diagnostics());
    const projects = path.join(configDir, 'projects');
    assert.ok(fs.existsSync(projects) && fs.readdirSync(projects).length > 0, `Claude Code wrote its transcripts under ${projects}`);
    assert.ok(
      !path
        .relative(knownRoot, projects)
        .split(path.sep)
        .every((p) => p !== '..'),
      'not under the server roots',
    );
  });

  it("records the session from the file's bytes and the sub-agent as its child", async () => {
    const parent = await daemon!.store.read('getSession', { scope: 'all', key: parentKey });
    assert.ok(parent, `parent ${parentKey} recorded${diagnostics()}`);
    const parentText = (await daemon!.store.read('transcript', { scope: 'all', key: parentKey })).content;
    // The Agent tool call is only in Claude Code's own file (no hook payload carries it).
    assert.ok(parentText.includes('Agent('), `the parent's transcript holds the Agent call from its file${diagnostics()}\n--- stored\n${parentText}`);
    const children = (await daemon!.store.read('listSessions', { scope: 'all' })).sessions.filter((s) => s.parentSessionKey === parentKey);
    assert.equal(children.length, 1, `one child of ${parentKey}${diagnostics()}`);
    const childText = (await daemon!.store.read('transcript', { scope: 'all', key: children[0].key })).content;
    assert.ok(childText.includes(AGENT_PROMPT), `the child's task comes from its own file${diagnostics()}\n--- stored\n${childText}`);
    assert.ok(childText.includes(subagentReply), `the child's reply is stored${diagnostics()}`);
  });

  it("starts the sub-agent warm: its first model request carries the parent's marker", () => {
    const first = fake!.messages().find((r) => r.role === 'subagent');
    assert.ok(first, `the sub-agent made a model request${diagnostics()}`);
    const text = requestText(first.body);
    assert.ok(text.includes(AGENT_PROMPT), 'the sub-agent request holds its task');
    assert.ok(text.includes(INHERIT_HEADING), `the sub-agent's first request carries "${INHERIT_HEADING}"${diagnostics()}`);
    assert.ok(text.includes(marker), `the sub-agent's first request carries ${marker}${diagnostics()}`);
  });

  it('logs no refused transcript in hooks.log', () => {
    assert.ok(!/HTTP 4\d\d/.test(hooksLog()), hooksLog());
  });
});
