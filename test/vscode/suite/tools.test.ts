// Baton's five language-model tools in the real extension host, called the way a model's host calls
// them: `vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined })` (outside a chat
// request; the workbench auto-confirms baton_spawn_subagent's confirmation in extension tests).
// This host has no language model (the scripted one is only in the chat-view host): the
// `vscode-lm` runner must fail with a readable message, and sub-agents that should succeed use a
// test runner instead.
// The typed API, the chat stand-ins and the settings helpers come from chat.test.ts (load it first
// in index.ts; importing it registers its suites, which BATON_VSCODE_GREP can filter).

import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { endpointOf, extension, prompt, sessionStart, setBaton, uid, waitFor, within, workspaceFolder } from './helpers';
import { chatApi, clientOf, subagentsInEffect, turnsOf, type ChatApi } from './chat.test';

interface ContributedTool {
  name: string;
  modelDescription: string;
  inputSchema: object;
}

const TOOLS = ['baton_search_sessions', 'baton_get_inherited_context', 'baton_spawn_subagent', 'baton_query_subagent', 'baton_get_run_status'];

async function invoke(name: string, input: object): Promise<string> {
  const result = await within(Promise.resolve(vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined })), 20_000, name);
  return result.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : `[${(p as object).constructor.name}]`)).join('');
}

/** Invokes a tool that must fail; returns the thrown message (what the model reads). */
async function invokeError(name: string, input: object): Promise<string> {
  let error: unknown;
  await within(
    Promise.resolve(vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined })).then(
      (r) => assert.fail(`${name} answered instead of failing: ${JSON.stringify(r.content)}`),
      (err: unknown) => void (error = err),
    ),
    20_000,
    name,
  );
  assert.ok(error instanceof Error, `${name} threw ${String(error)}`);
  return error.message;
}

describe('@baton tools', () => {
  let a: ChatApi;
  const word = `heron${uid('').slice(1).replace(/-/g, '')}`;
  const seed = uid('toolseed');
  const other = uid('toolother');
  const empty = uid('toolempty');

  before(async function () {
    this.timeout(60_000);
    a = await chatApi();
    const ep = endpointOf(a.host as never);
    const project = workspaceFolder();
    await sessionStart(ep, { key: seed, project, title: 'Tool seed' });
    await prompt(ep, seed, `Decide where the ${word} hide goes`, undefined);
    await prompt(ep, seed, 'And the path?', `The ${word} hide goes behind the reeds, facing east.`);
    await sessionStart(ep, { key: other, project, title: 'Another' });
    await prompt(ep, other, `Nothing about the ${word} here, only its name`, undefined);
    await sessionStart(ep, { key: empty, project, title: 'Empty' });
  });

  after(async function () {
    this.timeout(20_000);
    await setBaton('subagents.enabled', undefined);
  });

  it('all five are listed in vscode.lm.tools with the descriptions and input schemas package.json gives', () => {
    const contributed = (extension().packageJSON as { contributes: { languageModelTools: ContributedTool[] } }).contributes.languageModelTools;
    assert.deepEqual(
      contributed.map((t) => t.name),
      TOOLS,
    );
    const listed = vscode.lm.tools.filter((t) => t.name.startsWith('baton_'));
    assert.deepEqual(listed.map((t) => t.name).sort(), [...TOOLS].sort());
    for (const tool of contributed) {
      const info = listed.find((t) => t.name === tool.name)!;
      assert.equal(info.description, tool.modelDescription, tool.name);
      assert.deepEqual(info.inputSchema, tool.inputSchema, tool.name);
      assert.ok(
        Array.isArray((info.inputSchema as { required?: string[] }).required) && (info.inputSchema as { required: string[] }).required.length > 0,
        `${tool.name} requires nothing`,
      );
    }
  });

  it('baton_search_sessions finds a seeded session, and can be limited to one session', async () => {
    const text = await invoke('baton_search_sessions', { query: word });
    const lines = text.split('\n');
    const hit = lines.find((l) => l.startsWith(`session ${seed} `));
    assert.ok(hit, text);
    assert.match(hit, new RegExp(`^session ${seed} "Tool seed" \\(claude-code, updated \\S+, turn \\d+\\): .*\\[\\[${word}\\]\\]`));
    assert.ok(
      lines.some((l) => l.startsWith(`session ${other} `)),
      text,
    );

    const only = await invoke('baton_search_sessions', { query: word, sessionKey: other });
    assert.ok(only.startsWith(`session ${other} `) && !only.includes(seed), only);
    const one = await invoke('baton_search_sessions', { query: word, limit: 1 });
    assert.equal(one.split('\n').filter((l) => l.startsWith('session ')).length, 1, one);
    const none = await invoke('baton_search_sessions', { query: `${word}absent` });
    assert.equal(none, `No session transcript matches ${JSON.stringify(`${word}absent`)}. Try fewer or different words.`);
  });

  it('baton_get_inherited_context returns the block a child of that session receives', async () => {
    const view = await clientOf(a).inherited(seed);
    assert.equal(view.empty, false);
    const text = await invoke('baton_get_inherited_context', { sessionKey: seed });
    assert.equal(text, view.block);
    assert.ok(text.includes(`The ${word} hide goes behind the reeds`), text);
    assert.equal(
      await invoke('baton_get_inherited_context', { sessionKey: empty }),
      `Session ${empty} has nothing to inherit yet (no transcript or checkpoint).`,
    );
  });

  it('errors are written for the model: what is wrong and what to do', async () => {
    assert.equal(await invokeError('baton_search_sessions', {}), 'Pass a non-empty "query": the words to look for in session transcripts.');
    assert.equal(await invokeError('baton_search_sessions', { query: '   ' }), 'Pass a non-empty "query": the words to look for in session transcripts.');
    assert.equal(
      await invokeError('baton_get_inherited_context', {}),
      'Pass "sessionKey": the parent session whose context you want (find keys with baton_search_sessions).',
    );
    assert.equal(
      await invokeError('baton_get_inherited_context', { sessionKey: 'no-such-session' }),
      'There is no session "no-such-session". Find the right key with baton_search_sessions.',
    );
    assert.equal(await invokeError('baton_get_run_status', {}), 'Pass "runId": the id baton_spawn_subagent returned.');
    assert.equal(
      await invokeError('baton_get_run_status', { runId: 'no-such-run' }),
      'There is no run "no-such-run". Use the id baton_spawn_subagent returned.',
    );
    assert.equal(
      await invokeError('baton_query_subagent', { id: 'x' }),
      'Pass "id" (a sub-agent session key from Live Subagents) and "prompt" (your question).',
    );
    assert.equal(
      await invokeError('baton_query_subagent', { id: 'no-such-holder', prompt: 'what?' }),
      'There is no sub-agent "no-such-holder". Use an id from the Live Subagents list or from baton_spawn_subagent.',
    );
  });

  it('baton_spawn_subagent with sub-agents off refuses, readably, and records nothing', async function () {
    this.timeout(30_000);
    await setBaton('subagents.enabled', false);
    await subagentsInEffect(a, false);
    const task = `Off: survey the ${word} colony`;
    assert.equal(
      await invokeError('baton_spawn_subagent', { task, parentSessionKey: seed }),
      'Sub-agents are turned off (setting baton.subagents.enabled). Do the task yourself, or ask the user to enable them.',
    );
    assert.equal((await a.queryRuns({ parent: seed })).length, 0);
  });

  it('baton_spawn_subagent with sub-agents on but no language model fails saying so, and the run is recorded as failed', async function () {
    this.timeout(30_000);
    assert.deepEqual(await vscode.lm.selectChatModels({}), [], 'this host was expected to have no chat model');
    await setBaton('subagents.enabled', true);
    await subagentsInEffect(a, true);
    assert.equal(await invokeError('baton_spawn_subagent', { task: 'x', mode: 'LATER' }), '"mode" must be one of SYNC, ASYNC_POLL, ASYNC_CALLBACK.');

    const task = `On: survey the ${word} colony`;
    const message = await invokeError('baton_spawn_subagent', { task, parentSessionKey: seed });
    assert.equal(
      message,
      'No language model is available in VS Code (install or sign in to a chat model provider), so the sub-agent cannot run. Do the task yourself.',
    );
    const runs = await a.queryRuns({ parent: seed, runner: 'vscode-lm' });
    const run = runs.find((r) => r.context.prompt === task);
    assert.ok(run, `no vscode-lm run of the task among ${runs.length}`);
    assert.equal(run.status, 'failed');
    assert.equal(run.executionMode, 'SYNC');
    assert.equal(run.error, 'No language model is available in VS Code (install or sign in to a chat model provider), so the sub-agent cannot run.');
    assert.ok(typeof run.durationMs === 'number' && run.finishedAt, 'a failed run has a duration and an end');
    assert.ok(run.sessionKey?.startsWith(`${seed}/run-`));
    const child = await clientOf(a).getSession(run.sessionKey!);
    assert.equal(child?.status, 'failed');
    assert.equal(child?.parentSessionKey, seed);
  });

  // VS Code calls prepareInvocation before invoke, so prepareInvocation must survive an input
  // without "task" and leave the explanation to invoke() ('Pass "task": …'), also when sub-agents
  // are off. Reading `options.input.task.slice(…)` unchecked once answered with a TypeError.
  it('baton_spawn_subagent without "task" says what to pass', async function () {
    this.timeout(30_000);
    await setBaton('subagents.enabled', true);
    await subagentsInEffect(a, true);
    assert.equal(await invokeError('baton_spawn_subagent', { parentSessionKey: seed }), 'Pass "task": what the sub-agent should do, self-contained.');
  });

  it('baton_spawn_subagent ASYNC_POLL returns the run id; baton_get_run_status reports it (failed, no model)', async function () {
    this.timeout(30_000);
    await setBaton('subagents.enabled', true);
    await subagentsInEffect(a, true);
    const task = `Poll: count the ${word} eggs`;
    const text = await invoke('baton_spawn_subagent', { task, parentSessionKey: seed, mode: 'ASYNC_POLL', specId: 'egg-count' });
    const m = /^Started run ([0-9a-f-]{36}) \(ASYNC_POLL\) in session (\S+)\. Check it with baton_get_run_status\.$/.exec(text);
    assert.ok(m, text);
    const [, runId, sessionKey] = m;
    assert.equal(sessionKey, `${seed}/run-${runId.slice(0, 8)}`);
    const status = await waitFor(
      async () => {
        const s = await invoke('baton_get_run_status', { runId });
        return s.startsWith(`run ${runId}: failed`) ? s : null;
      },
      15_000,
      'the run fails',
    );
    const lines = status.split('\n');
    assert.equal(lines[0], `run ${runId}: failed (vscode-lm, ASYNC_POLL)`);
    assert.equal(lines[1], `session: ${sessionKey}`);
    assert.equal(lines[2], `parent: ${seed}`);
    assert.match(lines[3], /^duration: \d+ ms$/);
    assert.equal(
      lines[lines.length - 1],
      'error: No language model is available in VS Code (install or sign in to a chat model provider), so the sub-agent cannot run.',
    );
    assert.equal((await a.runs.status(runId))?.context.specId, 'egg-count');
  });

  // docs/runs.md, "Tools of a sub-agent": deny by default, only what this window's caller has,
  // never the spawn tool itself, and every refused name reported in the result.
  it('baton_spawn_subagent grants a vscode-lm sub-agent only the asked-for tools the caller has, and reports what it refused', async function () {
    this.timeout(60_000);
    await setBaton('subagents.enabled', true);
    await subagentsInEffect(a, true);
    assert.ok(vscode.workspace.isTrusted, 'this host was expected to trust its workspace');
    const started = /^Started run ([0-9a-f-]{36}) \(ASYNC_POLL\) in session \S+\. Check it with baton_get_run_status\.$/;
    const text = await invoke('baton_spawn_subagent', {
      task: `Tools: list the ${word} nests`,
      parentSessionKey: seed,
      mode: 'ASYNC_POLL',
      toolPreset: 'read-only',
      tools: ['baton_spawn_subagent', 'baton_query_subagent', 'no_such_tool_in_this_window'],
    });
    const [first, grant] = text.split('\n\n');
    assert.match(first, started);
    assert.equal(
      grant,
      [
        'Tools granted to the sub-agent: baton_search_sessions, baton_get_inherited_context, baton_get_run_status, baton_query_subagent.',
        'Refused: baton_spawn_subagent (a sub-agent cannot spawn sub-agents (that could recurse without bound)); no_such_tool_in_this_window (no such tool is available here (not in vscode.lm.tools)).',
      ].join('\n'),
    );
    // Without a grant the result is as before: nothing about tools.
    assert.match(await invoke('baton_spawn_subagent', { task: `No tools: count the ${word} nests`, parentSessionKey: seed, mode: 'ASYNC_POLL' }), started);
    assert.equal(
      await invokeError('baton_spawn_subagent', { task: 'x', toolPreset: 'everything' }),
      '"toolPreset" must be one of none, read-only (got "everything").',
    );

    // The setting is the grant of a spawn that names none; an explicit "none" overrides it.
    await setBaton('subagents.defaultTools', ['baton_search_sessions', 'baton_spawn_subagent']);
    try {
      const fromSetting = await waitFor(
        async () => {
          const t = await invoke('baton_spawn_subagent', { task: `Default: map the ${word} nests`, parentSessionKey: seed, mode: 'ASYNC_POLL' });
          return t.includes('\n\n') ? t : null;
        },
        10_000,
        'the default grant is in effect',
      );
      assert.equal(
        fromSetting.split('\n\n')[1],
        'Tools granted to the sub-agent (from baton.subagents.defaultTools): baton_search_sessions.\nRefused: baton_spawn_subagent (a sub-agent cannot spawn sub-agents (that could recurse without bound)).',
      );
      const none = await invoke('baton_spawn_subagent', {
        task: `None: map the ${word} nests`,
        parentSessionKey: seed,
        mode: 'ASYNC_POLL',
        toolPreset: 'none',
      });
      assert.equal(none.split('\n\n')[1], 'Tools granted to the sub-agent: none.');
    } finally {
      await setBaton('subagents.defaultTools', undefined);
    }
  });

  it('baton_spawn_subagent with runner "external" runs the configured CLI as a child process with AGENT_SESSION_ID, SYNC and ASYNC_CALLBACK', async function () {
    this.timeout(60_000);
    const repo = extension().extensionPath;
    const echo = require('node:path').join(repo, 'test', 'fixtures', 'echoRunner.js') as string;
    await setBaton('subagents.enabled', true);
    await setBaton('subagents.externalCommand', [process.execPath, echo, 'ok', 'arg=${AGENT_SESSION_ID}']);
    await subagentsInEffect(a, true);
    await waitFor(() => a.runs.runnerNames.includes('external'), 10_000, 'the external runner is registered');
    try {
      const text = await invoke('baton_spawn_subagent', { task: `Survey the ${word} colony`, parentSessionKey: seed, runner: 'external' });
      const m = /^Sub-agent (\S+) \(run (\S+)\) answered:\n\n([\s\S]*)$/.exec(text);
      assert.ok(m, text);
      const [, childKey, runId, body] = m!;
      const answer = JSON.parse(body) as { agentSessionId: string; arg: string; promptStart: string };
      assert.equal(answer.agentSessionId, childKey, 'the child process got AGENT_SESSION_ID');
      assert.equal(answer.arg, `arg=${childKey}`, '${AGENT_SESSION_ID} in the arguments is replaced');
      assert.match(answer.promptStart, /^## Inherited from Parent Session\n[\s\S]*## Task\n\nSurvey the/);
      const run = await a.runs.status(runId);
      assert.equal(run?.runner, 'external');
      assert.equal(run?.status, 'completed');
      assert.equal(run?.parentSessionKey, seed);
      assert.equal((await clientOf(a).getSession(childKey))?.parentSessionKey, seed);

      // ASYNC_CALLBACK through the same runner: delivered into the parent once it finishes.
      const started = await invoke('baton_spawn_subagent', { task: 'Second survey', parentSessionKey: seed, runner: 'external', mode: 'ASYNC_CALLBACK' });
      const asyncRun = /run (\S+) \(ASYNC_CALLBACK\)/.exec(started)![1];
      await waitFor(async () => (await a.runs.status(asyncRun))?.callbackDeliveredAt != null, 20_000, 'the callback result is marked delivered');
      // The run is marked delivered first (atomically), then the result is written into the parent.
      await waitFor(async () => (await turnsOf(a, seed)).some((t) => t.role === 'system' && t.text.includes(asyncRun)), 10_000, 'the result is in the parent');
      const system = (await turnsOf(a, seed)).filter((t) => t.role === 'system' && t.text.includes(asyncRun));
      assert.equal(system.length, 1, 'delivered once, as one system turn');
      assert.match(await invokeError('baton_spawn_subagent', { task: 'x', runner: 'nope' }), /"runner" must be one of/);
      // An external CLI has its own tools: a grant is refused, readably, before anything is recorded.
      assert.equal(
        await invokeError('baton_spawn_subagent', { task: 'x', runner: 'external', toolPreset: 'read-only' }),
        '"tools" and "toolPreset" apply to the vscode-lm runner only: the "external" runner cannot be given VS Code tools.',
      );
    } finally {
      await setBaton('subagents.externalCommand', undefined);
    }
  });

  it('baton_get_run_status reports a completed run with its duration, tokens and result', async function () {
    this.timeout(30_000);
    await setBaton('subagents.enabled', true);
    await subagentsInEffect(a, true);
    const runner = a.registerRunner({
      name: 'tools-test-runner',
      run: async (req) => ({ content: `Counted for: ${req.task}\nTotal: 12`, inputTokens: 3, outputTokens: 5 }),
    });
    try {
      const task = `Count the ${word} chicks`;
      const spawned = await a.invokeSubagent({ parentSessionKey: seed, task, runner: 'tools-test-runner', mode: 'SYNC' });
      assert.equal(spawned.run?.status, 'completed');
      const text = await invoke('baton_get_run_status', { runId: spawned.runId });
      assert.equal(
        text,
        [
          `run ${spawned.runId}: completed (tools-test-runner, SYNC)`,
          `session: ${spawned.sessionKey}`,
          `parent: ${seed}`,
          `duration: ${spawned.run?.durationMs} ms`,
          'tokens: 3 in, 5 out',
          '',
          `Counted for: ${task}\nTotal: 12`,
        ].join('\n'),
      );
    } finally {
      runner.dispose();
    }
  });

  /** A session holding one exchange (prompt, reply), archived whole (turns 1-2) into a holder by the extension's Archivist. */
  async function archiveExchange(question: string, reply: string) {
    const ep = endpointOf(a.host as never);
    const chatKey = uid('hidechat');
    await sessionStart(ep, { key: chatKey, project: workspaceFolder(), title: 'archived exchange' });
    await prompt(ep, chatKey, question);
    await prompt(ep, chatKey, '', reply);
    const archivist = a.archivist as unknown as { archive(turn: object, reason: string): Promise<{ holderId: string; marker: string }> };
    const archived = await archivist.archive(
      {
        sessionKey: chatKey,
        depth: 0,
        prompt: question,
        response: reply,
        toolsUsed: [],
        toolCallOpen: false,
        maxTurnsEnding: false,
        range: { from: 1, to: 2 },
      },
      'test',
    );
    return { chatKey, archived };
  }

  it('baton_query_subagent answers from an archived holder transcript, and records the exchange in the holder', async function () {
    this.timeout(30_000);
    // A session with one exchange, archived into a holder by the extension's Archivist.
    const { chatKey, archived } = await archiveExchange(
      `Where should the ${word} hide go?`,
      `Behind the reeds, facing east, so the ${word} is backlit at dawn.`,
    );
    assert.equal(archived.holderId, `${chatKey}/holder-1`);
    const question = `Which way does the ${word} hide face?`;
    const text = await invoke('baton_query_subagent', { id: archived.holderId, prompt: question });
    assert.equal(text, `user: Where should the ${word} hide go?\n\nassistant: Behind the reeds, facing east, so the ${word} is backlit at dawn.`);
    const unrelated = await invoke('baton_query_subagent', { id: archived.holderId, prompt: 'zzz qqq' });
    assert.ok(
      unrelated.startsWith(
        `Nothing in ${archived.holderId} matches "zzz qqq". Its transcript:\n\nUser: Where should the ${word} hide go?\nAssistant: Behind the reeds`,
      ),
      unrelated,
    );
    const turns = await turnsOf(a, archived.holderId);
    assert.deepEqual(
      turns.slice(0, 4).map((t) => [t.role, t.text]),
      [
        ['user', `Where should the ${word} hide go?`],
        ['assistant', `Behind the reeds, facing east, so the ${word} is backlit at dawn.`],
        ['user', question],
        ['assistant', text],
      ],
    );
  });

  // Archivist.query posts the holder's transcript with the exchange appended, and nothing else: a
  // payload `userPrompt` beside it would be stored once more (a prompt counts as already present only
  // while unanswered), so every question would appear twice in the holder.
  it('baton_query_subagent records each question once in the holder', async function () {
    this.timeout(30_000);
    const {
      archived: { holderId },
    } = await archiveExchange('Which bank?', 'The north bank.');
    const answer = await invoke('baton_query_subagent', { id: holderId, prompt: 'Which bank again?' });
    assert.deepEqual(
      (await turnsOf(a, holderId)).map((t) => [t.role, t.text]),
      [
        ['user', 'Which bank?'],
        ['assistant', 'The north bank.'],
        ['user', 'Which bank again?'],
        ['assistant', answer],
      ],
    );
  });
});
