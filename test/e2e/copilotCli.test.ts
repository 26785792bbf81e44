// End to end with the real GitHub Copilot CLI (npm @github/copilot, pinned; scripts/dev/install-harness-clis.sh
// caches it outside the repo), offline (COPILOT_OFFLINE, a custom provider, no GitHub login): a
// scripted Chat Completions server on 127.0.0.1 makes the parent start two sub-agents in parallel
// with the `task` tool (alpha in sync mode, beta in the background), and alpha start a nested one
// (gamma). Baton's hooks, installed by a plain `baton install copilot-cli` (user hooks in
// $COPILOT_HOME/hooks/baton.json), feed a Baton daemon running in this process. Checks outcomes:
// every child's first model request carries its parent's context, the lineage is exact, search
// finds the parent's words, and importing the same history afterwards adds nothing.
//
// Needs `npm run build` first (hooks and CLI run from dist/). HOME and COPILOT_HOME are fresh temp
// folders. Debugging: BATON_TEST_SHOW=1 prints copilot's output, the requests and Baton's hooks.log.

import { strict as assert } from 'node:assert';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startDaemon, type Daemon } from '../../src/server/daemon';
import { CLI } from '../helpers/child';
import { baton, cleanEnv, run, type RunResult } from '../shared/claudeCli';
import { chatText, startFakeChatCompletions, type FakeChatCompletions } from '../shared/fakeChatCompletions';
import { requireHarnessCli } from '../shared/harnessClis';
import { e2eReport, storedSessions, type StoredSession } from '../helpers/e2eReport';
import { cleanupTempDirs, tempFolders } from '../helpers/tmp';

const COPILOT_TIMEOUT_MS = 150_000;
const INHERIT_HEADING = 'Inherited from Parent Session';
const TASKS = {
  alpha: 'Investigate the auth module and have a sub-agent check the token expiry rules',
  beta: 'Investigate the billing module and report back',
  gamma: 'Check the token expiry rules in the auth module',
} as const;
type Child = keyof typeof TASKS;

/** Which sub-agent a request is: the task that comes last in its first user message (the inherited block before it may quote other tasks). */
function childOf(body: any): Child | undefined {
  const first = (Array.isArray(body?.messages) ? body.messages : []).find((m: any) => m?.role === 'user');
  const text = chatText({ messages: first ? [first] : [] });
  let best: Child | undefined;
  let at = -1;
  for (const [name, task] of Object.entries(TASKS) as Array<[Child, string]>) {
    const i = text.lastIndexOf(task);
    if (i > at) [best, at] = [name, i];
  }
  return best;
}

describe('GitHub Copilot CLI end to end (real copilot -p, scripted Chat Completions, hooks from a plain `baton install copilot-cli`)', function () {
  this.timeout(300_000);

  const marker = `MARKER-${crypto.randomBytes(6).toString('hex')}`;
  const alphaNote = `ALPHA-NOTE-${crypto.randomBytes(6).toString('hex')}`;
  const prompt = `Remember the deployment codename ${marker}. Delegate the auth and billing investigations to sub-agents.`;
  const replies: Record<Child, string> = {
    alpha: `ALPHA-REPLY-${crypto.randomBytes(4).toString('hex')}: tokens are validated and expire after an hour.`,
    beta: `BETA-REPLY-${crypto.randomBytes(4).toString('hex')}: invoices are rounded correctly.`,
    gamma: `GAMMA-REPLY-${crypto.randomBytes(4).toString('hex')}: expiry is one hour.`,
  };
  const parentFinal = 'PARENT-FINAL: both sub-agents reported back.';

  let copilotHome: string;
  let dataDir: string;
  let fake: FakeChatCompletions | undefined;
  let daemon: Daemon | undefined;
  let env: NodeJS.ProcessEnv;
  let installed: RunResult;
  let copilot: RunResult;
  /** Each sub-agent's first model request, by child. */
  const firstRequest = new Map<Child, any>();

  const diagnostics = () =>
    e2eReport({
      runs: [
        ['baton install copilot-cli', installed],
        ['copilot', copilot],
      ],
      requests: fake?.requests.map((r) => `${r.seq} ${r.path} ${r.headers['x-interaction-type'] ?? ''} ${childOf(r.body) ?? ''}`),
      dataDir,
    });

  before(async function () {
    const bin = requireHarnessCli(this, 'copilot');
    assert.ok(fs.existsSync(CLI), `${CLI} is missing: run \`npm run build\` first`);

    const dirs = tempFolders('baton-e2e-copilot-cli-', { home: 'home', copilotHome: 'copilot-home', project: 'project', dataDir: 'baton-data', tmp: 'tmp' });
    ({ copilotHome, dataDir } = dirs);
    const { home, project, tmp } = dirs;
    fs.writeFileSync(path.join(project, 'README.md'), '# demo project\n');

    fake = await startFakeChatCompletions({
      parentPromptIncludes: marker,
      agentPrompt: TASKS.alpha,
      agentDescription: '',
      subagentType: '',
      subagentReply: '',
      parentFinal,
      respond(body, headers) {
        const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
        const offersTools = Array.isArray(body?.tools) && body.tools.length > 0;
        if (!offersTools) return { text: 'Auth and billing' }; // side requests (titles)
        const last = messages[messages.length - 1];
        if (headers['x-interaction-type'] === 'conversation-subagent') {
          const child = childOf(body);
          if (!child) return { text: 'No task found.' };
          if (!firstRequest.has(child)) firstRequest.set(child, body);
          // alpha delegates once, with a note of its own that its child must inherit.
          if (child === 'alpha' && last?.role !== 'tool')
            return {
              text: `${alphaNote}: the token code lives in auth/token.ts.`,
              toolCalls: [
                {
                  id: 'call_gamma',
                  name: 'task',
                  arguments: { agent_type: 'general-purpose', name: 'gamma', description: 'token expiry', prompt: TASKS.gamma, mode: 'sync' },
                },
              ],
            };
          return { text: replies[child] };
        }
        // The parent: its first request delegates; later ones (task results, background notices) answer.
        if (!messages.some((m) => m?.role === 'assistant'))
          return {
            toolCalls: [
              {
                id: 'call_alpha',
                name: 'task',
                arguments: { agent_type: 'general-purpose', name: 'alpha', description: 'auth investigation', prompt: TASKS.alpha, mode: 'sync' },
              },
              {
                id: 'call_beta',
                name: 'task',
                arguments: { agent_type: 'general-purpose', name: 'beta', description: 'billing investigation', prompt: TASKS.beta, mode: 'background' },
              },
            ],
          };
        return { text: parentFinal };
      },
    });
    daemon = await startDaemon({ dataDir, port: 0, config: { transcriptRoots: [path.join(copilotHome, 'session-state')] } });

    // A clean environment with the cached copilot on PATH, as a user who installed it has.
    env = cleanEnv(home, tmp, {
      PATH: `${path.dirname(bin)}:${process.env.PATH}`,
      COPILOT_HOME: copilotHome,
      COPILOT_OFFLINE: 'true',
      COPILOT_AUTO_UPDATE: 'false',
      COPILOT_PROVIDER_BASE_URL: fake.url,
      COPILOT_PROVIDER_API_KEY: 'sk-fake-e2e',
      COPILOT_MODEL: 'gpt-4.1',
    });
    installed = await baton(['install', 'copilot-cli', '--data-dir', dataDir], env);
    assert.equal(installed.code, 0, `baton install copilot-cli failed${diagnostics()}`);
    assert.ok(fs.existsSync(path.join(copilotHome, 'hooks', 'baton.json')), `user hooks installed${diagnostics()}`);

    copilot = await run(bin, ['-p', prompt, '--allow-all-tools', '--no-auto-update'], { cwd: project, env, timeoutMs: COPILOT_TIMEOUT_MS });
  });

  after(async () => {
    if (process.env.BATON_TEST_SHOW) console.log(diagnostics());
    await daemon?.stop();
    await fake?.close();
    cleanupTempDirs();
  });

  it('runs the real copilot -p to a clean exit 0, driven only by the fake server', () => {
    assert.equal(copilot.timedOut, false, `copilot did not finish within ${COPILOT_TIMEOUT_MS} ms${diagnostics()}`);
    assert.equal(copilot.code, 0, `copilot exited ${copilot.code}${diagnostics()}`);
    assert.deepEqual([...firstRequest.keys()].sort(), ['alpha', 'beta', 'gamma'], `every sub-agent asked the model${diagnostics()}`);
    for (const r of fake!.requests) assert.equal(r.headers.host, `127.0.0.1:${fake!.port}`);
  });

  it("each child's first model request carries its parent's context in the inherited block, before its task", () => {
    const expect: Record<Child, string> = { alpha: marker, beta: marker, gamma: alphaNote };
    for (const child of ['alpha', 'beta', 'gamma'] as const) {
      const text = chatText(firstRequest.get(child));
      assert.ok(!TASKS[child].includes(expect[child]), 'the task itself does not carry the marker');
      assert.ok(text.includes(TASKS[child]), `${child}'s request holds its task`);
      assert.ok(text.includes(INHERIT_HEADING), `${child}'s first request carries "${INHERIT_HEADING}"${diagnostics()}`);
      assert.ok(text.includes(expect[child]), `${child}'s first request carries its parent's ${expect[child]}${diagnostics()}`);
      assert.ok(text.indexOf(INHERIT_HEADING) < text.lastIndexOf(TASKS[child]), `${child}: the block comes before the task`);
    }
  });

  it('stores the exact lineage: alpha and beta under the session, gamma under alpha, with their tasks and replies', async () => {
    const { listed, sessions: all } = await storedSessions(dataDir, env);
    const sessions = all.filter((s) => s.harness === 'copilot-cli');
    const roots = sessions.filter((s) => s.parentSessionKey === null);
    const brief = JSON.stringify(all.map((s) => [s.key.slice(0, 8), s.harness, s.parentSessionKey?.slice(0, 8) ?? null, s.harnessAgentType, s.turnCount]));
    assert.equal(roots.length, 1, `one root session: ${brief}${diagnostics()}`);
    const root = roots[0];
    assert.ok(fs.existsSync(path.join(copilotHome, 'session-state', root.key, 'events.jsonl')), 'the root is keyed by its Copilot session id');
    const children = sessions.filter((s) => s.parentSessionKey === root.key);
    assert.equal(children.length, 2, `two children of the root: ${listed.stdout}${diagnostics()}`);
    const byTranscript = new Map<Child, StoredSession>();
    for (const s of sessions.filter((x) => x !== root)) {
      const t = await baton(['transcript', s.key, '--data-dir', dataDir], env);
      const child = (['alpha', 'beta', 'gamma'] as const).find((c) => t.stdout.includes(replies[c]));
      assert.ok(child, `${s.key}'s transcript holds one child's reply: ${t.stdout}${diagnostics()}`);
      assert.ok(t.stdout.includes(TASKS[child]), `${child}'s transcript starts from its task`);
      assert.ok(!t.stdout.includes(INHERIT_HEADING), `${child}'s stored task is not the block Baton injected`);
      byTranscript.set(child, s);
    }
    assert.equal(byTranscript.get('alpha')?.parentSessionKey, root.key);
    assert.equal(byTranscript.get('beta')?.parentSessionKey, root.key);
    assert.equal(byTranscript.get('gamma')?.parentSessionKey, byTranscript.get('alpha')?.key, 'gamma is under alpha, its spawner');
    for (const s of byTranscript.values()) assert.match(s.harnessAgentId ?? '', /^[0-9a-f-]{36}$/, 'the child is keyed by its Copilot agent id');
  });

  it("search finds the parent's words, and the parent's transcript holds the user's prompt, not the background notice", async () => {
    const found = await baton(['search', marker, '--json', '--data-dir', dataDir], env);
    assert.equal(found.code, 0, found.stderr);
    assert.ok(found.stdout.includes(marker), `search finds ${marker}: ${found.stdout}`);
    const { sessions } = await storedSessions(dataDir, env);
    const root = sessions.find((s) => s.harness === 'copilot-cli' && s.parentSessionKey === null)!;
    const t = await baton(['transcript', root.key, '--data-dir', dataDir], env);
    assert.ok(t.stdout.includes(prompt), `the parent's prompt is stored: ${t.stdout}`);
    assert.ok(t.stdout.includes(parentFinal), `the parent's reply is stored${diagnostics()}`);
    assert.doesNotMatch(t.stdout, /^user: <system_notification>/m, 'a background notice is not a user prompt');
  });

  it('`baton import copilot-cli` of the same history afterwards adds nothing', async () => {
    const before = (await storedSessions(dataDir, env)).sessions;
    const imported = await baton(['import', 'copilot-cli', path.join(copilotHome, 'session-state'), '--data-dir', dataDir], env);
    assert.equal(imported.code, 0, `${imported.stdout}${imported.stderr}`);
    assert.match(imported.stdout, /\b0 turns? added/, imported.stdout);
    const after = (await storedSessions(dataDir, env)).sessions;
    assert.equal(after.length, before.length, 'no new session');
    for (const s of after) assert.equal(s.turnCount, before.find((b) => b.key === s.key)?.turnCount, `${s.key} gained no turn`);
  });
});
