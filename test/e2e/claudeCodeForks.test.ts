// End to end with the real Claude Code CLI, offline (a scripted Messages API on 127.0.0.1), after a
// plain `baton install claude-code`: what today's Claude Code does to sub-agents.
// - A fork (`subagent_type: "fork"`) starts with the parent's whole conversation: Baton hands it
//   only the text of the spawning message, which Claude Code leaves out of the fork's copy.
// - Resuming a finished sub-agent (SendMessage) fires SubagentStart again under the same id:
//   no second block, and the child's stored transcript keeps the message that resumed it.
// - Two sub-agents of one type spawned in one message each get their own task (from PreToolUse).
// Needs `npm run build` first (the hooks and the CLI run from dist/).

import { strict as assert } from 'node:assert';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startDaemon, type Daemon } from '../../src/server/daemon';
import { CLI } from '../helpers/child';
import { baton, CLAUDE_TIMEOUT_MS, claudeBin, claudeEnv, run, cleanEnv, type RunResult } from '../shared/claudeCli';
import { contentText, requestText, startFakeAnthropic, type FakeAnthropic, type RecordedRequest } from '../shared/fakeAnthropic';
import { e2eReport, storedSessions } from '../helpers/e2eReport';
import { cleanupTempDirs, tempFolders } from '../helpers/tmp';

const INHERIT_HEADING = '## Inherited from Parent Session';
const SPAWNING_LABEL = "The parent's words in the message that started this fork";

type Json = any;

function toolResults(body: Json): Json[] {
  return (body?.messages ?? []).flatMap((m: Json) => (Array.isArray(m?.content) ? m.content.filter((c: Json) => c?.type === 'tool_result') : []));
}

/** Baton's block as a request carries it: from the heading to its budget line. */
function batonBlock(text: string): string | null {
  const at = text.indexOf(INHERIT_HEADING);
  if (at < 0) return null;
  const end = text.indexOf('\nBudget: ~', at);
  return end < 0 ? text.slice(at) : text.slice(at, text.indexOf('\n', end + 1) < 0 ? undefined : text.indexOf('\n', end + 1));
}

/** Claude Code's own file of a sub-agent. */
function subagentFile(configDir: string, parentKey: string, agentId: string): string | null {
  const root = path.join(configDir, 'projects');
  for (const dir of fs.existsSync(root) ? fs.readdirSync(root) : []) {
    const file = path.join(root, dir, parentKey, 'subagents', `agent-${agentId}.jsonl`);
    if (fs.existsSync(file)) return file;
  }
  return null;
}

describe('Claude Code forks, resumes and parallel sub-agents end to end (real CLI, scripted Messages API)', function () {
  this.timeout(240_000);

  const id = crypto.randomBytes(4).toString('hex');
  const marker = `FORKPARENT-${id}`;
  const spawningText = `SPAWNING-ANALYSIS-${id}: the flaky test fails only when the cache is warm, so the fork should bisect the cache layer.`;
  const forkDirective = `FORK-DIRECTIVE-${id}: bisect the cache layer`;
  const resumeMessage = `RESUME-MSG-${id}: also check the eviction path`;
  const helperTask = `HELPER-TASK-${id}: list the flaky tests of the last week`;
  const taskA = `TASK-A-${id}: audit the billing ledger rounding`;
  const taskB = `TASK-B-${id}: audit the auth token refresh`;
  // Early turns of the parallel story's parent, each needed by one child only, then enough other
  // work that the newest part of the parent no longer holds them.
  const billingNote = `BILLING-NOTE-${id}: the billing ledger rounds half-even, and rounding drift shows on invoices over 10k`;
  const authNote = `AUTH-NOTE-${id}: auth refresh tokens rotate every 15 minutes; token reuse must revoke the whole family`;
  const filler = Array.from(
    { length: 40 },
    (_, i) => `Step ${i}: renamed the logger module, moved the CSS build to esbuild, and tidied the README tables.`,
  ).join(' ');

  let dirs: Record<'home' | 'configDir' | 'project' | 'commandProject' | 'dataDir' | 'tmp' | 'base', string>;
  let fake: FakeAnthropic | undefined;
  let daemon: Daemon | undefined;
  let batonEnv: NodeJS.ProcessEnv;
  const runs: Array<[string, RunResult | undefined]> = [];
  let forkAgentId: string | undefined;
  let helperAgentId: string | undefined;
  let forkParent = '';
  let parallelParent = '';

  const diagnostics = () =>
    e2eReport({ runs, requests: fake?.requests.map((r) => `${r.seq} ${r.path} ${r.headers['x-claude-code-agent-id'] ?? ''}`), dataDir: dirs?.dataDir });

  const claude = async (label: string, prompt: string, resume?: string, cwd = dirs.project) => {
    const r = await run(claudeBin(), ['-p', prompt, '--output-format', 'json', ...(resume ? ['--resume', resume] : [])], {
      cwd,
      timeoutMs: CLAUDE_TIMEOUT_MS,
      env: claudeEnv(batonEnv, { configDir: dirs.configDir, tmp: dirs.tmp, fakeUrl: fake!.url }),
    });
    runs.push([label, r]);
    assert.equal(r.code, 0, `${label}: claude exited ${r.code}${diagnostics()}`);
    return (JSON.parse(r.stdout) as { session_id: string }).session_id;
  };

  const agentRequests = (agentId: string): RecordedRequest[] => fake!.messages().filter((r) => r.headers['x-claude-code-agent-id'] === agentId);

  before(async function () {
    assert.ok(fs.existsSync(claudeBin()), 'the Claude Code CLI is installed (npm ci)');
    assert.ok(fs.existsSync(CLI), `${CLI} is missing: run \`npm run build\` first`);
    dirs = tempFolders('baton-e2e-fork-', {
      home: 'home',
      configDir: 'claude-config',
      project: 'project',
      commandProject: 'command-project',
      dataDir: 'baton-data',
      tmp: 'tmp',
    });
    fs.writeFileSync(path.join(dirs.commandProject, 'README.md'), '# demo project\n');
    fs.writeFileSync(path.join(dirs.project, 'README.md'), '# demo project\n');

    fake = await startFakeAnthropic({
      parentPromptIncludes: marker,
      agentPrompt: forkDirective,
      subagentReply: 'unused',
      parentFinal: 'unused',
      respond(body: Json, headers) {
        const text = requestText(body);
        const agent = headers['x-claude-code-agent-id'];
        if (agent) return { blocks: [{ type: 'text', text: `CHILD-DONE ${agent}` }], stopReason: 'end_turn' };
        if (!(body?.tools ?? []).some((t: Json) => t?.name === 'Agent')) return undefined;
        const results = toolResults(body);
        if (text.includes(marker)) {
          // The fork story: spawn a fork and a helper (foreground, one message), load SendMessage,
          // resume the helper, finish.
          if (results.length === 0)
            return {
              blocks: [
                { type: 'text', text: spawningText },
                {
                  type: 'tool_use',
                  id: `toolu_fork_${id}`,
                  name: 'Agent',
                  input: { description: 'bisect', prompt: forkDirective, subagent_type: 'fork', run_in_background: false },
                },
                {
                  type: 'tool_use',
                  id: `toolu_helper_${id}`,
                  name: 'Agent',
                  input: { description: 'flaky list', prompt: helperTask, subagent_type: 'general-purpose', run_in_background: false },
                },
              ],
              stopReason: 'tool_use',
            };
          if (results.length === 2) {
            const agentOf = (call: string) => /agentId: ?([a-z0-9]+)/.exec(contentText(results.find((r: Json) => r.tool_use_id === call)?.content))?.[1];
            forkAgentId = agentOf(`toolu_fork_${id}`) ?? forkAgentId;
            helperAgentId = agentOf(`toolu_helper_${id}`) ?? helperAgentId;
            return { blocks: [{ type: 'tool_use', id: `toolu_ts_${id}`, name: 'ToolSearch', input: { query: 'select:SendMessage' } }], stopReason: 'tool_use' };
          }
          if (results.length === 3)
            return {
              blocks: [
                {
                  type: 'tool_use',
                  id: `toolu_sm_${id}`,
                  name: 'SendMessage',
                  input: { to: helperAgentId, summary: 'one more check', message: resumeMessage },
                },
              ],
              stopReason: 'tool_use',
            };
          return { blocks: [{ type: 'text', text: 'FORK-STORY-DONE' }], stopReason: 'end_turn' };
        }
        if (text.includes(`PARALLEL-${id}`)) {
          const users = (body?.messages ?? []).filter((m: Json) => m?.role === 'user');
          const last = contentText(users[users.length - 1]?.content);
          if (results.length === 0 && !last.includes(`SPAWN-${id}`)) return { blocks: [{ type: 'text', text: 'Noted.' }], stopReason: 'end_turn' };
          if (results.length === 0)
            return {
              blocks: [
                { type: 'text', text: 'Two audits in parallel.' },
                {
                  type: 'tool_use',
                  id: `toolu_a_${id}`,
                  name: 'Agent',
                  input: { description: 'billing', prompt: taskA, subagent_type: 'general-purpose', run_in_background: false },
                },
                {
                  type: 'tool_use',
                  id: `toolu_b_${id}`,
                  name: 'Agent',
                  input: { description: 'auth', prompt: taskB, subagent_type: 'general-purpose', run_in_background: false },
                },
              ],
              stopReason: 'tool_use',
            };
          return { blocks: [{ type: 'text', text: 'PARALLEL-DONE' }], stopReason: 'end_turn' };
        }
        return undefined;
      },
    });
    daemon = await startDaemon({ dataDir: dirs.dataDir, port: 0, config: { transcriptRoots: [path.join(dirs.configDir, 'projects')] } });
    batonEnv = cleanEnv(dirs.home, dirs.tmp);
    const installed = await baton(['install', 'claude-code', '--project', dirs.project, '--data-dir', dirs.dataDir], batonEnv);
    assert.equal(installed.code, 0, `baton install failed: ${installed.stderr}`);
    // The fork story runs with the hook command (`--command`): Claude Code records each command
    // hook's output in the sub-agent's file, so a block answered to the resume would show there;
    // the parallel story runs with the default install (HTTP hooks).
    const commandInstall = await baton(['install', 'claude-code', '--command', '--project', dirs.commandProject, '--data-dir', dirs.dataDir], batonEnv);
    assert.equal(commandInstall.code, 0, `baton install --command failed: ${commandInstall.stderr}`);
    forkParent = await claude('fork story', `Remember ${marker}. Fork a helper to bisect the flaky test.`, undefined, dirs.commandProject);
    parallelParent = await claude('parallel 1', `PARALLEL-${id}: for later, ${billingNote}`);
    await claude('parallel 2', `PARALLEL-${id}: also note ${authNote}`, parallelParent);
    await claude('parallel 3', `PARALLEL-${id}: meanwhile: ${filler}`, parallelParent);
    await claude('parallel 4', `PARALLEL-${id} SPAWN-${id}: run the billing and the auth audits in parallel.`, parallelParent);
  });

  after(async () => {
    if (process.env.BATON_TEST_SHOW) console.log(diagnostics());
    await daemon?.stop();
    await fake?.close();
    cleanupTempDirs();
  });

  it("a fork's first request holds only the spawning text Baton added, marked as such, nothing it already had", () => {
    assert.ok(forkAgentId, `the fork's agent id came back in the Agent result${diagnostics()}`);
    const first = agentRequests(forkAgentId!)[0];
    assert.ok(first, `the fork made a model request${diagnostics()}`);
    const text = requestText(first.body);
    // The fork holds the parent's conversation (Claude Code copied it)...
    assert.ok(text.includes(marker) && text.includes(forkDirective), `the fork's copy of the parent's conversation${diagnostics()}`);
    const block = batonBlock(text);
    assert.ok(block, `Baton's block reached the fork${diagnostics()}`);
    // ...so Baton added only what the copy lacks: the spawning message's text, under its label.
    assert.ok(block.includes(SPAWNING_LABEL) && block.includes(spawningText), `the block holds the spawning text, marked:\n${block}`);
    assert.ok(!block.includes(marker), `the block repeats nothing of the parent's conversation:\n${block}`);
    assert.ok(!block.includes(forkDirective), `the block does not repeat the fork's directive:\n${block}`);
    assert.ok(!/Recent context|Checkpoint summary/.test(block), `no tail, no digest:\n${block}`);
    assert.equal(text.split(spawningText).length - 1, 1, 'the spawning text appears once (Claude Code dropped it from the copy)');
  });

  it('a resumed sub-agent gets no second block, and its stored transcript keeps the message that resumed it', async () => {
    assert.ok(helperAgentId, diagnostics());
    const file = subagentFile(dirs.configDir, forkParent, helperAgentId!);
    assert.ok(file, `Claude Code's file of the helper${diagnostics()}`);
    const own = fs.readFileSync(file, 'utf8');
    assert.ok(own.includes(resumeMessage), `the helper was resumed with the message${diagnostics()}`);
    assert.ok(agentRequests(helperAgentId!).length >= 2, `the helper ran again after the resume${diagnostics()}`);
    // Claude Code records a SubagentStart hook's answer in the sub-agent's file (a command hook's
    // stdout as `hook_success`, the context it adds as `hook_additional_context`): a resume answered
    // with a second block would add a second record of each kind.
    const withBlock = own
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Json)
      .filter((r) => r.attachment?.hookEvent === 'SubagentStart' && JSON.stringify(r.attachment).includes('Inherited from Parent Session'));
    assert.ok(withBlock.length >= 1, `the first start got the block\n${own.slice(0, 6000)}`);
    const perKind = new Map<string, number>();
    for (const r of withBlock) perKind.set(r.attachment.type, (perKind.get(r.attachment.type) ?? 0) + 1);
    for (const [kind, count] of perKind) assert.equal(count, 1, `one ${kind} with a block: none for the resume\n${own.slice(0, 6000)}`);
    const child = `${forkParent}/agent-${helperAgentId}`;
    const transcript = await baton(['transcript', child, '--data-dir', dirs.dataDir], batonEnv);
    assert.equal(transcript.code, 0, transcript.stderr);
    assert.ok(transcript.stdout.includes(resumeMessage), `the stored transcript holds the resume message:\n${transcript.stdout}${diagnostics()}`);
  });

  it("two sub-agents of one type spawned in one message each get their own task, and the parent's early turn that task needs", async () => {
    const { sessions, listed } = await storedSessions(dirs.dataDir, batonEnv);
    const children = sessions.filter((s) => s.parentSessionKey === parallelParent) as Array<(typeof sessions)[number] & { task: string | null }>;
    assert.equal(children.length, 2, `two children: ${listed.stdout}${diagnostics()}`);
    for (const child of children) {
      // Claude Code's own record of which call started the child: agent-<id>.meta.json `toolUseId`.
      const file = subagentFile(dirs.configDir, parallelParent, child.harnessAgentId!);
      assert.ok(file, `Claude Code's file of ${child.key}${diagnostics()}`);
      const meta = JSON.parse(fs.readFileSync(file.replace(/\.jsonl$/, '.meta.json'), 'utf8')) as { toolUseId: string };
      const asked = meta.toolUseId === `toolu_a_${id}` ? taskA : taskB;
      assert.equal(child.task, asked, `child ${child.key} (call ${meta.toolUseId}) stored its own task${diagnostics()}`);
      // Its block holds the early turn its task needs, which the newest part of the parent does not.
      const block = batonBlock(requestText(agentRequests(child.harnessAgentId!)[0]?.body)) ?? '';
      const needed = asked === taskA ? `BILLING-NOTE-${id}` : `AUTH-NOTE-${id}`;
      assert.ok(block.includes(needed), `child ${child.key} (${asked}) inherited ${needed}:\n${block}${diagnostics()}`);
    }
    assert.notEqual(children[0].task, children[1].task);
  });
});
