// End to end with the real Claude Code CLI and the DEFAULT install (HTTP hooks): the Baton server
// is restarted on another port after `baton install claude-code`. The session running meanwhile
// must not be held up by its refused HTTP hooks; its SessionStart hook command points the HTTP
// entries at the server that now runs, so the next session's hooks land (the sub-agent starts with
// the inherited block) and the first session's prompt is in the store by the time it is resumed
// (whether its own later events already landed depends on when Claude Code re-read the settings;
// docs/harnesses.md, "HTTP hooks").
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
import { e2eReport } from '../helpers/e2eReport';
import { cleanupTempDirs, tempFolders } from '../helpers/tmp';

const AGENT_PROMPT = 'Investigate the payments module and report back';
const INHERIT_HEADING = 'Inherited from Parent Session';

describe('Claude Code HTTP hooks after the server moved to another port (real CLI, default install)', function () {
  this.timeout(240_000);

  const firstMarker = `FIRST-${crypto.randomBytes(6).toString('hex')}`;
  const secondMarker = `SECOND-${crypto.randomBytes(6).toString('hex')}`;
  let configDir: string;
  let project: string;
  let dataDir: string;
  let tmp: string;
  let fake: FakeAnthropic | undefined;
  let daemon: Daemon | undefined;
  let batonEnv: NodeJS.ProcessEnv;
  let oldUrl: string;
  let first: RunResult;
  let second: RunResult;
  let resumed: RunResult;
  let firstKey = '';
  const searchFirst = async () => {
    const searched = await baton(['search', firstMarker, '--json', '--data-dir', dataDir], batonEnv);
    assert.equal(searched.code, 0, searched.stderr);
    return (JSON.parse(searched.stdout) as { hits: Array<{ sessionKey: string }> }).hits.map((h) => h.sessionKey);
  };

  const diagnostics = () =>
    e2eReport({
      runs: [
        ['first', first],
        ['second', second],
        ['resumed', resumed],
      ],
      requests: fake?.requests.map((r) => `${r.seq} ${r.method} ${r.path} ${r.role ?? ''}`),
      dataDir,
    });
  const claude = (args: string[]) =>
    run(claudeBin(), args, { cwd: project, timeoutMs: CLAUDE_TIMEOUT_MS, env: claudeEnv(batonEnv, { configDir, tmp, fakeUrl: fake!.url }) });
  const settings = () =>
    JSON.parse(fs.readFileSync(path.join(project, '.claude', 'settings.json'), 'utf8')) as { hooks: Record<string, Array<{ hooks: Array<{ url?: string }> }>> };

  before(async function () {
    assert.ok(fs.existsSync(claudeBin()), `the Claude Code CLI is not installed at ${claudeBin()}`);
    assert.ok(fs.existsSync(CLI), `${CLI} is missing: run \`npm run build\` first`);
    const dirs = tempFolders('baton-e2e-cc-restart-', { home: 'home', configDir: 'claude-config', project: 'project', dataDir: 'baton-data', tmp: 'tmp' });
    ({ configDir, project, dataDir, tmp } = dirs);
    fs.writeFileSync(path.join(project, 'README.md'), '# demo project\n');
    fake = await startFakeAnthropic({
      parentPromptIncludes: secondMarker,
      agentPrompt: AGENT_PROMPT,
      agentDescription: 'investigate',
      subagentType: 'general-purpose',
      runInBackground: false,
      subagentReply: 'SUBAGENT-REPLY: payments are fine.',
      parentFinal: 'PARENT-FINAL: done.',
      otherText: 'OK.',
    });
    const roots = { transcriptRoots: [path.join(configDir, 'projects')] };
    daemon = await startDaemon({ dataDir, port: 0, config: roots });
    batonEnv = cleanEnv(dirs.home, tmp);
    const installed = await baton(['install', 'claude-code', '--project', project, '--data-dir', dataDir], batonEnv);
    assert.equal(installed.code, 0, `baton install failed: ${installed.stderr}`);
    oldUrl = daemon.server.url;

    // The server goes away and comes back on another port.
    await daemon.stop();
    daemon = await startDaemon({ dataDir, port: 0, config: roots });
    assert.notEqual(daemon.server.url, oldUrl);

    first = await claude(['-p', `Note the codename ${firstMarker}.`, '--output-format', 'json']);
    try {
      firstKey = (JSON.parse(first.stdout) as { session_id: string }).session_id;
    } catch {
      firstKey = '';
    }
    second = await claude(['-p', `Remember ${secondMarker}. Delegate the payments investigation to a sub-agent.`, '--output-format', 'json']);
    resumed = await claude(['-p', 'Anything else?', '--resume', firstKey, '--output-format', 'json']);
  });

  after(async () => {
    if (process.env.BATON_TEST_SHOW) console.log(diagnostics());
    await daemon?.stop();
    await fake?.close();
    cleanupTempDirs();
  });

  it('the session running while its HTTP hooks are refused is not held up: exit 0 well within the hooks budget', () => {
    assert.equal(first.code, 0, `first session exited ${first.code}${diagnostics()}`);
    assert.match(firstKey, /^[0-9a-f-]{36}$/);
    // Refused connections cost nothing; even a hook waiting out its 5 s for each event would stay below this.
    assert.ok(first.ms < 60_000, `first session took ${first.ms} ms`);
  });

  it("its SessionStart hook command pointed Baton's HTTP entries at the server that runs now", () => {
    for (const event of ['UserPromptSubmit', 'SubagentStart', 'Stop'])
      assert.equal(settings().hooks[event][0].hooks[0].url, `${daemon!.server.url}/api/hooks/claude-code`, event);
  });

  it("the next session's hooks land: the sub-agent's first request carries the parent's context", () => {
    assert.equal(second.code, 0, `second session exited ${second.code}${diagnostics()}`);
    const sub = fake!.messages().find((r) => r.role === 'subagent');
    assert.ok(sub, `the sub-agent made a model request${diagnostics()}`);
    const text = requestText(sub.body);
    assert.ok(text.includes(INHERIT_HEADING) && text.includes(secondMarker), `inherited block with ${secondMarker}${diagnostics()}`);
  });

  it("the first session's prompt is in the store once it was resumed (nothing the next event could deliver is dropped)", async () => {
    assert.equal(resumed.code, 0, `resumed session exited ${resumed.code}${diagnostics()}`);
    const found = await searchFirst();
    assert.ok(found.includes(firstKey), `search for ${firstMarker} finds ${firstKey}: ${found.join(', ')}${diagnostics()}`);
  });
});
