// End to end with the real Claude Code CLI (node_modules/.bin/claude), offline: a scripted
// Messages-API server on 127.0.0.1 makes the parent spawn a sub-agent through the `Agent` tool;
// Baton's hooks (installed with the real `baton install claude-code`) feed a Baton daemon running
// in this process. Checks that the sub-agent's first model request carries the parent's context,
// and that lineage, the sub-agent's transcript and search come out of the running server.
//
// Needs `npm run build` first (the hooks and the CLI run from dist/). Offline: Claude Code only
// talks to the fake on 127.0.0.1 (CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC etc.) and needs no
// onboarding or trust config in `-p` mode; HOME, CLAUDE_CONFIG_DIR and its temp dirs are fresh.
// Debugging: BATON_TEST_DUMP_REQUESTS=<file> appends every request the fake received (JSONL);
// BATON_TEST_SHOW=1 prints claude's output, the request sequence and Baton's hooks.log.

import { strict as assert } from 'node:assert';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startDaemon, type Daemon } from '../../src/server/daemon';
import { CLI } from '../helpers/child';
import { baton, CLAUDE_TIMEOUT_MS, claudeBin, claudeEnv, run, type RunResult, cleanEnv } from '../shared/claudeCli';
import { requestText, startFakeAnthropic, type FakeAnthropic, type RecordedRequest } from '../shared/fakeAnthropic';
import { e2eReport, hooksLogText, storedSessions } from '../helpers/e2eReport';
import { cleanupTempDirs, tempFolders } from '../helpers/tmp';

const AGENT_PROMPT = 'Investigate the auth module and report back';
const MODEL = 'claude-sonnet-4-5-20250929';
const USAGE = { input: 1234, output: 567, cacheRead: 8900, cacheWrite: 321 };
const INHERIT_HEADING = 'Inherited from Parent Session';

describe('Claude Code end to end (real CLI, scripted Messages API, live Baton daemon)', function () {
  this.timeout(180_000);

  const marker = `MARKER-${crypto.randomBytes(6).toString('hex')}`;
  const prompt = `Remember the deployment codename ${marker}. Delegate the auth investigation to a sub-agent.`;
  const subagentReply = `SUBAGENT-REPLY-${crypto.randomBytes(4).toString('hex')}: the auth module validates tokens correctly.`;
  const parentFinal = 'PARENT-FINAL: the sub-agent reported back.';

  let home: string;
  let configDir: string;
  let project: string;
  let dataDir: string;
  let fake: FakeAnthropic | undefined;
  let daemon: Daemon | undefined;
  let batonEnv: NodeJS.ProcessEnv;
  let claude: RunResult;
  let parentKey: string;
  let subagentRequests: RecordedRequest[];

  const diagnostics = () =>
    e2eReport({ runs: [['claude', claude]], requests: fake?.requests.map((r) => `${r.seq} ${r.method} ${r.path} ${r.role ?? ''}`), dataDir });

  /** Claude Code's own transcript of a sub-agent (for failure messages). */
  const claudeSubagentFile = (agentId: string | null): string => {
    const root = path.join(configDir, 'projects');
    for (const dir of fs.existsSync(root) ? fs.readdirSync(root) : []) {
      const file = path.join(root, dir, parentKey, 'subagents', `agent-${agentId}.jsonl`);
      if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').slice(0, 6000);
    }
    return '(missing)';
  };

  before(async function () {
    const bin = claudeBin();
    assert.ok(fs.existsSync(bin), `the Claude Code CLI is not installed at ${bin} (npm ci installs it as a devDependency)`);
    assert.ok(fs.existsSync(CLI), `${CLI} is missing: run \`npm run build\` first`);

    const dirs = tempFolders('baton-e2e-cc-', { home: 'home', configDir: 'claude-config', project: 'project', dataDir: 'baton-data', tmp: 'tmp' });
    ({ home, configDir, project, dataDir } = dirs);
    const tmp = dirs.tmp;
    fs.writeFileSync(path.join(project, 'README.md'), '# demo project\n');

    fake = await startFakeAnthropic({
      parentPromptIncludes: marker,
      agentPrompt: AGENT_PROMPT,
      agentDescription: 'investigate',
      subagentType: 'general-purpose',
      // Foreground: the parent's tool_result then carries the sub-agent's reply, and the order of
      // requests is fixed (with the default, Claude Code 2.1.328 starts it in the background).
      runInBackground: false,
      subagentReply,
      parentFinal,
      otherText: 'OK.',
      dumpFile: process.env.BATON_TEST_DUMP_REQUESTS || undefined,
      // Known numbers and a priced model: what the transcripts, and so the stored spend, must show.
      usage: USAGE,
      model: MODEL,
    });
    daemon = await startDaemon({ dataDir, port: 0, config: { transcriptRoots: [path.join(configDir, 'projects')] } });

    // A clean environment: nothing of the developer's or CI's Claude / Baton settings leaks in.
    batonEnv = cleanEnv(home, tmp);
    const installed = await baton(['install', 'claude-code', '--project', project, '--data-dir', dataDir], batonEnv);
    assert.equal(installed.code, 0, `baton install failed: ${installed.stderr}`);
    const settings = JSON.parse(fs.readFileSync(path.join(project, '.claude', 'settings.json'), 'utf8')) as { hooks: Record<string, unknown[]> };
    for (const event of ['SessionStart', 'UserPromptSubmit', 'SubagentStart', 'SubagentStop', 'Stop', 'SessionEnd'])
      assert.ok(settings.hooks[event], `hook for ${event} installed`);
    // The default install: Claude Code posts every event but SessionStart over HTTP, to this daemon.
    const entryOf = (event: string) => (settings.hooks[event][0] as { hooks: Array<{ type: string; url?: string }> }).hooks[0];
    assert.equal(entryOf('SessionStart').type, 'command');
    for (const event of ['UserPromptSubmit', 'SubagentStart', 'SubagentStop', 'Stop', 'SessionEnd'])
      assert.deepEqual([entryOf(event).type, entryOf(event).url], ['http', `${daemon.server.url}/api/hooks/claude-code`], event);
    assert.ok(!JSON.stringify(settings).includes(daemon.token), 'no token in the settings file a project commits');

    claude = await run(bin, ['-p', prompt, '--output-format', 'json'], {
      cwd: project,
      timeoutMs: CLAUDE_TIMEOUT_MS,
      env: claudeEnv(batonEnv, { configDir, tmp, fakeUrl: fake.url }),
    });
    subagentRequests = fake.messages().filter((r) => r.role === 'subagent');
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

  it('(e) runs the real claude -p headless to a clean exit 0, driven only by the fake server', () => {
    assert.equal(claude.timedOut, false, `claude did not finish within ${CLAUDE_TIMEOUT_MS} ms${diagnostics()}`);
    assert.equal(claude.code, 0, `claude exited ${claude.code}${diagnostics()}`);
    const out = JSON.parse(claude.stdout) as { is_error: boolean; result: string; session_id: string };
    assert.equal(out.is_error, false, diagnostics());
    assert.equal(out.result, parentFinal, diagnostics());
    assert.match(parentKey, /^[0-9a-f-]{36}$/);
    const roles = fake!.messages().map((r) => r.role);
    assert.ok(
      roles.includes('parent-first') && roles.includes('subagent') && roles.includes('parent-followup'),
      `the script ran through: ${roles.join(', ')}${diagnostics()}`,
    );
    for (const r of fake!.requests) assert.equal(r.headers.host, `127.0.0.1:${fake!.port}`);
  });

  it("(a) the sub-agent's first model request carries the parent's context (marker not in the Agent prompt)", () => {
    const parentFirst = fake!.messages().find((r) => r.role === 'parent-first');
    assert.ok(parentFirst, `the parent's first turn reached the fake${diagnostics()}`);
    // What the parent handed over: the Agent tool call, as Claude Code sent it back to the model.
    const followup = fake!.messages().find((r) => r.role === 'parent-followup');
    assert.ok(followup, `the parent's follow-up reached the fake${diagnostics()}`);
    const agentCalls = followup.body.messages
      .flatMap((m: { content: unknown }) => (Array.isArray(m.content) ? m.content : []))
      .filter((b: { type?: string; name?: string }) => b.type === 'tool_use' && b.name === 'Agent');
    assert.equal(agentCalls.length, 1);
    assert.equal(agentCalls[0].input.prompt, AGENT_PROMPT);
    assert.ok(!String(agentCalls[0].input.prompt).includes(marker), 'the Agent prompt itself must not carry the marker');

    assert.ok(subagentRequests.length >= 1, `the sub-agent made a model request${diagnostics()}`);
    const first = subagentRequests[0];
    const text = requestText(first.body);
    assert.ok(text.includes(AGENT_PROMPT), 'the sub-agent request holds its task');
    assert.ok(text.includes(INHERIT_HEADING), `the sub-agent's first request carries "${INHERIT_HEADING}"${diagnostics()}`);
    assert.ok(text.includes(marker), `the sub-agent's first request carries the parent's marker ${marker}${diagnostics()}`);
  });

  it("(b) `baton sessions --json` (through the running server) lists the sub-agent as the parent's child", async () => {
    const { listed, sessions } = await storedSessions(dataDir, batonEnv);
    const parent = sessions.find((s) => s.key === parentKey);
    assert.ok(parent, `parent session ${parentKey} listed: ${listed.stdout}${diagnostics()}`);
    assert.equal(parent.harness, 'claude-code');
    assert.equal(parent.parentSessionKey, null);
    const children = sessions.filter((s) => s.parentSessionKey === parentKey);
    assert.equal(children.length, 1, `one child of ${parentKey}: ${listed.stdout}${diagnostics()}`);
    const child = children[0];
    const agentId = subagentRequests[0]?.headers['x-claude-code-agent-id'];
    assert.match(child.key, new RegExp(`^${parentKey}/agent-[0-9a-z]+$`));
    if (typeof agentId === 'string') assert.equal(child.key, `${parentKey}/agent-${agentId}`);
    assert.equal(child.harness, 'claude-code');
    assert.equal(child.harnessAgentType, 'general-purpose');
    assert.equal(child.key, `${parentKey}/agent-${child.harnessAgentId}`);
    // Claude Code's own files agree: <config>/projects/<project>/<session>/subagents/agent-<id>.jsonl.
    const projectDirs = fs.readdirSync(path.join(configDir, 'projects'));
    assert.ok(
      projectDirs.some((d) => fs.existsSync(path.join(configDir, 'projects', d, parentKey, 'subagents', `agent-${child.harnessAgentId}.jsonl`))),
      'the sub-agent transcript file Claude Code wrote has the same agent id',
    );
  });

  it("(c) the sub-agent's transcript was stored (`baton transcript <child key>`)", async () => {
    const { sessions } = await storedSessions(dataDir, batonEnv);
    const child = sessions.find((s) => s.parentSessionKey === parentKey);
    assert.ok(child, `a child of ${parentKey} exists${diagnostics()}`);
    const transcript = await baton(['transcript', child.key, '--data-dir', dataDir], batonEnv);
    const why = () =>
      `\n--- child row\n${JSON.stringify(child)}\n--- stored transcript\n${transcript.stdout}\n--- Claude Code's sub-agent file\n${claudeSubagentFile(child.harnessAgentId)}${diagnostics()}`;
    assert.equal(transcript.code, 0, `baton transcript ${child.key}: ${transcript.stderr}${why()}`);
    assert.ok(transcript.stdout.includes(subagentReply), `the child's transcript holds the sub-agent's reply${why()}`);
    // The task comes only from Claude Code's own sub-agent file (the SubagentStop payload has just the
    // last reply): this fails when Baton read that file before Claude Code had flushed it.
    assert.ok(transcript.stdout.includes(AGENT_PROMPT), `the child's transcript holds its task${why()}`);
  });

  it('(f) the HTTP hooks logged no failure in hooks.log (the server writes their lines)', () => {
    assert.ok(!hooksLogText(dataDir).includes('(HTTP hook)'), hooksLogText(dataDir));
  });

  it('(d) `baton search <marker> --json` finds the parent session', async () => {
    const searched = await baton(['search', marker, '--json', '--data-dir', dataDir], batonEnv);
    assert.equal(searched.code, 0, searched.stderr);
    const { hits } = JSON.parse(searched.stdout) as { hits: Array<{ sessionKey: string; excerpt: string }> };
    assert.ok(
      hits.some((h) => h.sessionKey === parentKey),
      `search for ${marker} finds ${parentKey}: ${searched.stdout}${diagnostics()}`,
    );
  });

  it("(f) the stored spend of the parent and its sub-agent is what their transcripts report, the parent's total carrying the child's", async () => {
    const { sessions } = await storedSessions(dataDir, batonEnv);
    const listed = JSON.parse((await baton(['sessions', '--json', '--data-dir', dataDir], batonEnv)).stdout) as {
      sessions: Array<{ key: string; spend: { own: Spend | null; total: Spend | null } }>;
    };
    const spendOf = (key: string) => listed.sessions.find((s) => s.key === key)!.spend;
    const child = sessions.find((s) => s.parentSessionKey === parentKey);
    assert.ok(child, `a child of ${parentKey}${diagnostics()}`);

    // Independently of Baton's parser: each message id of Claude Code's own file once.
    const fromTranscript = (file: string) => {
      const ids = new Map<string, { model: string; usage: Record<string, number> }>();
      for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
        if (!line.trim()) continue;
        const r = JSON.parse(line) as { type?: string; message?: { id: string; model: string; usage?: Record<string, number> } };
        if (r.type === 'assistant' && r.message?.usage && !ids.has(r.message.id)) ids.set(r.message.id, { model: r.message.model, usage: r.message.usage });
      }
      const all = [...ids.values()];
      const sum = (k: string) => all.reduce((n, m) => n + (m.usage[k] ?? 0), 0);
      return {
        models: [...new Set(all.map((m) => m.model))],
        requests: all.length,
        tokens: [sum('input_tokens'), sum('output_tokens'), sum('cache_read_input_tokens'), sum('cache_creation_input_tokens')],
      };
    };
    const projectDir = fs
      .readdirSync(path.join(configDir, 'projects'))
      .map((d) => path.join(configDir, 'projects', d))
      .find((d) => fs.existsSync(path.join(d, `${parentKey}.jsonl`)))!;
    const parentFile = fromTranscript(path.join(projectDir, `${parentKey}.jsonl`));
    const childFile = fromTranscript(path.join(projectDir, parentKey, 'subagents', `agent-${child.harnessAgentId}.jsonl`));
    const tokens = (s: Spend | null) => (s ? [s.inputTokens, s.outputTokens, s.cacheReadTokens, s.cacheWriteTokens] : null);

    const parent = spendOf(parentKey);
    const sub = spendOf(child.key);
    const why = `\n--- parent ${JSON.stringify(parent)}\n--- child ${JSON.stringify(sub)}\n--- files ${JSON.stringify({ parentFile, childFile })}${diagnostics()}`;
    // The parent asked twice (the Agent call, the final answer), the sub-agent at least once; every request reported the scripted usage.
    assert.ok(parentFile.requests >= 2 && childFile.requests >= 1, why);
    assert.deepEqual(parentFile.models, [MODEL], why);
    assert.deepEqual(parentFile.tokens.slice(2), [USAGE.cacheRead * parentFile.requests, USAGE.cacheWrite * parentFile.requests], why);
    assert.equal(parent.own?.requests, parentFile.requests, why);
    assert.deepEqual(tokens(parent.own), parentFile.tokens, why);
    assert.deepEqual(parent.own?.models, [MODEL], why);
    assert.equal(sub.own?.requests, childFile.requests, why);
    assert.deepEqual(tokens(sub.own), childFile.tokens, why);
    assert.deepEqual(tokens(sub.total), tokens(sub.own), why);
    assert.deepEqual(
      tokens(parent.total),
      parentFile.tokens.map((n, i) => n + childFile.tokens[i]),
      why,
    );
    // Priced from the shipped table (Sonnet 4.5: $3 / $15 / $0.30 / $3.75 per million tokens).
    const [input, output, read, write] = tokens(parent.total)!;
    const expectedUsd = (input * 3 + output * 15 + read * 0.3 + write * 3.75) / 1e6;
    assert.equal(parent.total?.costBasis, 'estimated', why);
    assert.ok(Math.abs(parent.total!.costUsd! - expectedUsd) <= 2e-6, `${parent.total?.costUsd} vs ${expectedUsd}${why}`);
  });
});

interface Spend {
  models: string[];
  requests: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  costUsd: number | null;
  costBasis: string | null;
}
