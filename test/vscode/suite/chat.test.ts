// The @baton chat participant in the real extension host, driven through its handler
// (`api.chat.handle`) with request, context and stream objects shaped like VS Code's, the history
// built from the real `vscode.ChatRequestTurn`/`ChatResponseTurn` classes (constructible at run time
// since 1.100). This host has no language model (the Chat view's own tests, with a scripted model,
// are test/vscode/chatView), so where a model is needed `FakeModel` stands in for a
// `vscode.LanguageModelChat`: it records what it was sent and streams a scripted answer.
//
// Three suites: the participant and its commands; sub-agents spawned from a chat session (a test
// runner, SYNC / ASYNC_POLL / ASYNC_CALLBACK, callback delivery into the conversation); archival
// of chat turns into holder sub-agents. Settings are changed at the Global level and reset after.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { validateSettings } from '../../../src/core/settings';
import type { SubagentRun as RunLike } from '../../../src/core/types';
import { api as readyApi, endpointOf, extension, post, prompt, sessionStart, setBaton, uid, waitFor, within, workspaceFolder } from './helpers';

// ---------------------------------------------------------------------------------------------
// What these suites use from activate()'s exports (structural, like helpers.ts).

interface TurnLike {
  seq: number;
  role: string;
  text: string;
}

interface SessionLike {
  key: string;
  harness: string;
  project: string | null;
  parentSessionKey: string | null;
  harnessAgentType: string | null;
  status: string;
  title: string | null;
  turnCount: number;
}

interface ClientLike {
  url: string;
  endpoint: { url: string; port: number; pid: number; token: string };
  getSession(key: string): Promise<SessionLike | null>;
  turns(key: string, from?: number, limit?: number): Promise<{ total: number; turns: TurnLike[] }>;
  inherited(key: string): Promise<{ block: string; empty: boolean; chars: number; estimatedTokens: number }>;
  listRuns(filter?: Record<string, string | number>): Promise<RunLike[]>;
}

interface NodeLike {
  key: string;
  session: SessionLike;
}

interface ChatResultLike {
  metadata: { sessionKey: string; command?: string; query?: string; archived?: string; archivedMarker?: string };
}

interface RunRequestLike {
  runId: string;
  sessionKey: string;
  parentSessionKey: string | null;
  task: string;
  inherited: string;
}

export interface ChatApi {
  host: { ready: Promise<void>; role: string; client: ClientLike | null; dataDir: string };
  tree: { getChildren(node?: NodeLike): Promise<NodeLike[]>; getTreeItem(node: NodeLike): vscode.TreeItem };
  chat: {
    handle(
      request: vscode.ChatRequest,
      context: vscode.ChatContext,
      stream: vscode.ChatResponseStream,
      token: vscode.CancellationToken,
    ): Promise<ChatResultLike>;
    sessionFor(context: vscode.ChatContext): { key: string; fresh: boolean };
    followups(result: ChatResultLike): vscode.ChatFollowup[];
  };
  runs: {
    wait(runId: string): Promise<RunLike | null>;
    status(runId: string): Promise<RunLike | null>;
    deliver(parentKey: string): Promise<RunLike[]>;
    runnerNames: string[];
  };
  archivist: {
    liveHolders(parentKey: string): Array<{ id: string; task: string }>;
    query(holderId: string, prompt: string, model?: vscode.LanguageModelChat): Promise<string>;
  };
  invokeSubagent(options: {
    parentSessionKey: string | null;
    task: string;
    runner: string;
    mode?: string;
    title?: string;
  }): Promise<{ runId: string; sessionKey: string; mode: string; run: RunLike | null }>;
  queryRuns(filter?: { runner?: string; status?: string; parent?: string; limit?: number }): Promise<RunLike[]>;
  registerRunner(runner: {
    name: string;
    run(request: RunRequestLike, signal: AbortSignal): Promise<{ content: string; inputTokens?: number; outputTokens?: number }>;
  }): vscode.Disposable;
}

export async function chatApi(): Promise<ChatApi> {
  return (await readyApi()) as unknown as ChatApi;
}

export function clientOf(a: ChatApi): ClientLike {
  assert.ok(a.host.client, `the host has no client (role ${a.host.role})`);
  return a.host.client;
}

// ---------------------------------------------------------------------------------------------
// Stand-ins for what VS Code's chat view would pass to the handler.

/** Records what the participant streams. */
export class RecordingStream {
  readonly markdowns: Array<string | vscode.MarkdownString> = [];
  readonly references: Array<vscode.Uri | vscode.Location | { variableName: string; value?: vscode.Uri | vscode.Location }> = [];
  readonly other: Array<[string, unknown]> = [];

  markdown(value: string | vscode.MarkdownString): void {
    this.markdowns.push(value);
  }
  reference(value: vscode.Uri | vscode.Location | { variableName: string; value?: vscode.Uri | vscode.Location }): void {
    this.references.push(value);
  }
  anchor(value: unknown): void {
    this.other.push(['anchor', value]);
  }
  button(value: unknown): void {
    this.other.push(['button', value]);
  }
  filetree(value: unknown): void {
    this.other.push(['filetree', value]);
  }
  progress(value: unknown): void {
    this.other.push(['progress', value]);
  }
  push(value: unknown): void {
    this.other.push(['push', value]);
  }

  /** The markdown fragments as text, in order. */
  get fragments(): string[] {
    return this.markdowns.map((m) => (typeof m === 'string' ? m : m.value));
  }
  get text(): string {
    return this.fragments.join('');
  }
  get referencedKeys(): string[] {
    return this.references.filter((r): r is vscode.Uri => r instanceof vscode.Uri && r.scheme === 'baton-session').map((u) => u.path.slice(1));
  }
}

function messageText(message: vscode.LanguageModelChatMessage | string): string {
  if (typeof message === 'string') return message;
  const content = message.content as unknown;
  if (typeof content === 'string') return content;
  return (content as Array<{ value?: unknown }>).map((p) => (typeof p.value === 'string' ? p.value : '')).join('');
}

/**
 * A stand-in for a `vscode.LanguageModelChat` (none can be installed here): `sendRequest` records
 * the prompt it was sent and streams the fragments `reply` returns; `countTokens` counts ~4
 * characters a token. A `reply` that throws makes `sendRequest` reject.
 */
export class FakeModel {
  readonly id = 'baton-test-fake';
  readonly vendor = 'baton-test';
  readonly family = 'fake';
  readonly version = '1';
  readonly name = 'Fake model (test stand-in)';
  readonly maxInputTokens = 100_000;
  readonly prompts: string[] = [];
  /** Every request's messages, role and text, as sent. */
  readonly requests: Array<Array<{ role: 'user' | 'assistant'; text: string }>> = [];

  constructor(private readonly reply: (prompt: string) => string[] | Promise<string[]>) {}

  async sendRequest(messages: vscode.LanguageModelChatMessage[]): Promise<vscode.LanguageModelChatResponse> {
    const text = messages.map(messageText).join('\n');
    this.prompts.push(text);
    this.requests.push(messages.map((m) => ({ role: m.role === vscode.LanguageModelChatMessageRole.Assistant ? 'assistant' : 'user', text: messageText(m) })));
    const fragments = await this.reply(text);
    async function* textStream(): AsyncIterable<string> {
      for (const f of fragments) yield f;
    }
    async function* partStream(): AsyncIterable<unknown> {
      for (const f of fragments) yield new vscode.LanguageModelTextPart(f);
    }
    return { text: textStream(), stream: partStream() } as vscode.LanguageModelChatResponse;
  }

  async countTokens(text: string | vscode.LanguageModelChatMessage): Promise<number> {
    return Math.ceil(messageText(text).length / 4);
  }

  get asModel(): vscode.LanguageModelChat {
    return this as unknown as vscode.LanguageModelChat;
  }
}

function chatRequest(prompt: string, command?: string, model?: vscode.LanguageModelChat): vscode.ChatRequest {
  // `model` is required in the typings; undefined stands for "no model" (the handler checks).
  return { prompt, command, references: [], toolReferences: [], toolInvocationToken: undefined, model } as unknown as vscode.ChatRequest;
}

type Ctor<T> = new (...args: unknown[]) => T;

/** A conversation with @baton: each answer goes into the history the next request carries, as VS Code would. */
export class Conversation {
  readonly history: Array<vscode.ChatRequestTurn | vscode.ChatResponseTurn> = [];

  constructor(private readonly a: ChatApi) {}

  async ask(prompt: string, command?: string, model?: vscode.LanguageModelChat): Promise<{ result: ChatResultLike; stream: RecordingStream; text: string }> {
    const stream = new RecordingStream();
    const cts = new vscode.CancellationTokenSource();
    try {
      const result = await within(
        this.a.chat.handle(chatRequest(prompt, command, model), { history: [...this.history] }, stream as unknown as vscode.ChatResponseStream, cts.token),
        30_000,
        `@baton ${command ? `/${command} ` : ''}${prompt}`,
      );
      // The constructors are private in the typings but public at run time (checked in the first test).
      const RequestTurn = vscode.ChatRequestTurn as unknown as Ctor<vscode.ChatRequestTurn>;
      const ResponseTurn = vscode.ChatResponseTurn as unknown as Ctor<vscode.ChatResponseTurn>;
      this.history.push(
        new RequestTurn(prompt, command, [], 'baton.chat', []),
        new ResponseTurn([new vscode.ChatResponseMarkdownPart(stream.text)], result, 'baton.chat', command),
      );
      return { result, stream, text: stream.text };
    } finally {
      cts.dispose();
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Settings and small helpers.

/** Waits until the extension itself treats sub-agents as on/off: an unknown runner is refused for the right reason. */
export async function subagentsInEffect(a: ChatApi, enabled: boolean): Promise<void> {
  await waitFor(
    async () => {
      const message = await a.invokeSubagent({ parentSessionKey: null, task: 'probe', runner: 'no-such-runner-probe' }).then(
        () => 'resolved',
        (err: Error) => err.message,
      );
      return enabled ? message.startsWith('No runner named "no-such-runner-probe"') : message.includes('turned off');
    },
    10_000,
    `sub-agents ${enabled ? 'on' : 'off'} in the extension`,
  );
}

interface ArchivalLike {
  enabled: boolean;
  onMaxTurns: boolean;
  tokenThreshold: number;
  depthCap: number;
  summary: { style: string; model: string | null };
  holderTools: string[];
}

/** The archival settings the extension uses right now (the Archivist's settings getter, read structurally). */
export function archivalInEffect(a: ChatApi): ArchivalLike {
  return (a.archivist as unknown as { settings(): ArchivalLike }).settings();
}

export async function turnsOf(a: ChatApi, key: string): Promise<TurnLike[]> {
  return (await clientOf(a).turns(key, 1, 500)).turns;
}

/** The command link the participant writes for a session (`command:baton.openTranscript?…`). */
function linkArgs(text: string, key: string): unknown[][] {
  const out: unknown[][] = [];
  for (const m of text.matchAll(/\]\(command:baton\.openTranscript\?([^)\s]+)\)/g)) {
    const args = JSON.parse(decodeURIComponent(m[1])) as unknown[];
    if (args[0] === key) out.push(args);
  }
  return out;
}

async function rootNode(a: ChatApi, key: string): Promise<NodeLike> {
  const roots = await a.tree.getChildren();
  const node = roots.find((n) => n.key === key);
  assert.ok(node, `${key} is not a root of the Sessions tree (${roots.length} roots)`);
  return node;
}

function codeBlock(text: string): string {
  return `\`\`\`markdown\n${text}\n\`\`\``;
}

// ---------------------------------------------------------------------------------------------

describe('@baton chat: participant', () => {
  let a: ChatApi;
  const word = `kingfisher${uid('').slice(1).replace(/-/g, '')}`;
  const seed = uid('chatseed');
  const seedTitle = `Chat seed ${seed}`;
  const emptySeed = uid('chatempty');
  const root = uid('chatroot');
  const child = uid('chatchild');
  const grandchild = uid('chatgrand');

  before(async function () {
    this.timeout(60_000);
    a = await chatApi();
    const ep = endpointOf(a.host as never);
    const project = workspaceFolder();
    await sessionStart(ep, { key: seed, project, title: seedTitle });
    await prompt(ep, seed, `Plan the ${word} survey along the river`, undefined);
    await prompt(ep, seed, 'Which bank first?', `The ${word} survey starts at the north bank at dawn.`);
    await sessionStart(ep, { key: emptySeed, project, title: 'Nothing recorded yet' });
    await sessionStart(ep, { key: root, project, title: `Tree root ${root}` });
    await sessionStart(ep, { key: child, project, parent: root, title: `Tree child ${child}`, harnessAgentType: 'Explore' });
    await sessionStart(ep, { key: grandchild, project, parent: child, title: `Tree grandchild ${grandchild}`, harnessAgentType: 'general-purpose' });
  });

  it('is contributed in package.json, activates on it, and is registered with the workbench', async function () {
    this.timeout(30_000);
    const pkg = extension().packageJSON as {
      activationEvents: string[];
      contributes: { chatParticipants: Array<{ id: string; name: string; commands: Array<{ name: string }> }> };
    };
    const contributed = pkg.contributes.chatParticipants.find((p) => p.id === 'baton.chat');
    assert.ok(contributed, 'package.json contributes no chat participant baton.chat');
    assert.equal(contributed.name, 'baton');
    assert.deepEqual(contributed.commands.map((c) => c.name).sort(), ['parent', 'runs', 'search', 'tree']);
    assert.ok(pkg.activationEvents.includes('onChatParticipant:baton.chat'), 'no onChatParticipant:baton.chat activation event');
    assert.equal(extension().isActive, true);

    // No API lists participants, and the workbench answers a refused registration only in its own
    // log (the renderer's; the runner records it in artifacts/browser-console.log beside the
    // BATON_DATA_DIR it gives the extension host). Its chat service refuses a second implementation
    // of an id that already has one ("Agent already has implementation") and an id package.json
    // does not declare. A probe that registers `baton.chat` again therefore proves the extension's
    // own registration went through (the refused probe is never stored, so it cannot replace it);
    // the undeclared id is the control that the log is being read.
    const dataDir = process.env.BATON_DATA_DIR;
    assert.ok(dataDir, 'the runner sets BATON_DATA_DIR');
    const consoleLog = path.join(path.dirname(dataDir), 'artifacts', 'browser-console.log');
    assert.ok(fs.existsSync(consoleLog), `${consoleLog} is missing: has test/vscode/runner.ts moved the browser log?`);
    const logged = (): string => fs.readFileSync(consoleLog, 'utf8');
    const undeclared = vscode.chat.createChatParticipant('baton.undeclaredProbe', () => ({}));
    const duplicate = vscode.chat.createChatParticipant('baton.chat', () => ({}));
    try {
      await waitFor(
        () => logged().includes('chatParticipant must be declared in package.json: baton.undeclaredProbe'),
        15_000,
        'the control: the workbench refuses an undeclared participant',
      );
      await waitFor(() => logged().includes('Agent already has implementation: "baton.chat"'), 15_000, 'the workbench refuses a second baton.chat');
      assert.ok(!logged().includes('chatParticipant must be declared in package.json: baton.chat'), 'the workbench does not know baton.chat');
    } finally {
      undeclared.dispose();
      duplicate.dispose();
    }
  });

  it('the history uses the real ChatRequestTurn/ChatResponseTurn classes (constructible in 1.100)', () => {
    const RequestTurn = vscode.ChatRequestTurn as unknown as Ctor<vscode.ChatRequestTurn>;
    const ResponseTurn = vscode.ChatResponseTurn as unknown as Ctor<vscode.ChatResponseTurn>;
    const req = new RequestTurn('hello', 'tree', [], 'baton.chat', []);
    const res = new ResponseTurn([], { metadata: { sessionKey: 'k' } }, 'baton.chat', 'tree');
    assert.ok(req instanceof vscode.ChatRequestTurn);
    assert.ok(res instanceof vscode.ChatResponseTurn);
    assert.equal(req.prompt, 'hello');
    assert.equal(res.command, 'tree');
    assert.deepEqual(a.chat.sessionFor({ history: [req, res] }), { key: 'k', fresh: false });
    const fresh = a.chat.sessionFor({ history: [req] });
    assert.equal(fresh.fresh, true);
    assert.match(fresh.key, /^vscode-chat-[0-9a-f-]{36}$/);
  });

  it('every conversation is a tracked vscode-chat session; a follow-up request reuses it', async function () {
    this.timeout(60_000);
    const conv = new Conversation(a);
    const first = await conv.ask('', 'tree');
    const key = first.result.metadata.sessionKey;
    assert.match(key, /^vscode-chat-/);
    assert.equal(first.result.metadata.command, 'tree');
    const session = await clientOf(a).getSession(key);
    assert.ok(session, `session ${key} was not recorded`);
    assert.equal(session.harness, 'vscode-chat');
    assert.equal(session.project, workspaceFolder());
    assert.equal(session.parentSessionKey, null);
    assert.equal(session.title, '@baton /tree');
    let turns = await turnsOf(a, key);
    assert.deepEqual(
      turns.map((t) => t.role),
      ['user', 'assistant'],
    );
    assert.equal(turns[0].text, '/tree');
    assert.equal(turns[1].text, first.text.trim());

    const second = await conv.ask(`What did the ${word} survey decide?`);
    assert.equal(second.result.metadata.sessionKey, key, 'the second request (with the first answer in its history) opened another session');
    turns = await turnsOf(a, key);
    assert.deepEqual(
      turns.map((t) => t.role),
      ['user', 'assistant', 'user', 'assistant'],
    );
    assert.equal(turns[2].text, `What did the ${word} survey decide?`);
    assert.equal(turns[3].text, second.text.trim());
    assert.equal((await clientOf(a).getSession(key))?.turnCount, 4);

    const other = await new Conversation(a).ask(`Title from the ${word} question`);
    assert.equal((await clientOf(a).getSession(other.result.metadata.sessionKey))?.title, `Title from the ${word} question`);
    assert.notEqual(other.result.metadata.sessionKey, key, 'a new conversation (empty history) must be a new session');
  });

  it('/search lists the matching sessions with command:baton.openTranscript links to the hit turn', async function () {
    this.timeout(30_000);
    const { result, stream, text } = await new Conversation(a).ask(word, 'search');
    assert.equal(result.metadata.query, word);
    const seedLinks = linkArgs(text, seed);
    assert.equal(seedLinks.length, 1, text);
    const seedTurns = await turnsOf(a, seed);
    const hitSeq = seedLinks[0][1] as number;
    assert.ok(seedTurns.find((t) => t.seq === hitSeq)?.text.includes(word), `the link's turn #${hitSeq} does not mention ${word}`);
    assert.ok(text.includes(`**${word}**`), 'the hit word is not bold in the excerpt');
    assert.match(text, new RegExp(`- \\[${seed}\\]\\(command:baton\\.openTranscript\\?[^)]+\\) — “Chat seed ${seed}”, claude-code, \\S+ ago\\n  > `));
    // The links only work when the markdown trusts that command.
    const md = stream.markdowns.find((m) => typeof m !== 'string' && m.value.includes(seed)) as vscode.MarkdownString;
    assert.ok(
      md && typeof md.isTrusted === 'object' && md.isTrusted.enabledCommands.includes('baton.openTranscript'),
      'the markdown does not trust baton.openTranscript',
    );

    const empty = await new Conversation(a).ask('', 'search');
    assert.equal(empty.text, 'Give me something to search for: `/search <words>`.');
  });

  // The prompt is stored in the conversation's own session before /search (and a free-form
  // question's search) runs, so the search must leave the conversation itself (and its sub-agents)
  // out of the hits; otherwise "No session mentions …" could never be answered and the conversation
  // would take one of the hit slots.
  it('/search for words no session has says so', async function () {
    this.timeout(30_000);
    const none = await new Conversation(a).ask(`${word}nothing`, 'search');
    assert.equal(none.text, `No session mentions ${JSON.stringify(`${word}nothing`)}.`);
  });

  it('/tree shows the nested lineage, each level indented under its parent', async function () {
    this.timeout(30_000);
    const { text } = await new Conversation(a).ask('', 'tree');
    const lines = text.split('\n');
    const at = (key: string): number => lines.findIndex((l) => l.includes(`](command:baton.openTranscript?${encodeURIComponent(JSON.stringify([key]))})`));
    const [r, c, g] = [at(root), at(child), at(grandchild)];
    assert.ok(r >= 0 && c > r && g > c, `root ${r}, child ${c}, grandchild ${g} in:\n${text}`);
    assert.match(lines[r], new RegExp(`^- \\[Tree root ${root}\\]\\(.+\\) — claude-code, active, 0 turns$`));
    assert.match(lines[c], new RegExp(`^  - \\[Tree child ${child}\\]\\(.+\\) — claude-code Explore, active, 0 turns$`));
    assert.match(lines[g], new RegExp(`^    - \\[Tree grandchild ${grandchild}\\]\\(.+\\) — claude-code general-purpose, active, 0 turns$`));
    assert.equal(c, r + 1, 'the child does not follow its parent');
    assert.equal(g, c + 1, 'the grandchild does not follow its parent');
  });

  it('/parent <key> shows exactly the block that key would pass on; without a key, the newest workspace session', async function () {
    this.timeout(30_000);
    const view = await clientOf(a).inherited(seed);
    assert.equal(view.empty, false);
    assert.ok(view.block.startsWith('## Inherited from Parent Session'), view.block);
    const named = await new Conversation(a).ask(seed, 'parent');
    assert.ok(named.text.includes(`(${view.chars} characters, about ${view.estimatedTokens} tokens):\n\n${codeBlock(view.block)}`), named.text);
    assert.equal(linkArgs(named.text, seed).length, 1);

    // Without a key: the newest session of this workspace that is not a chat (touch the seed so it is).
    await prompt(endpointOf(a.host as never), seed, 'One more note on the survey', 'Noted.');
    const fresh = await clientOf(a).inherited(seed);
    const implicit = await new Conversation(a).ask('', 'parent');
    assert.ok(implicit.text.includes(codeBlock(fresh.block)), implicit.text);

    const empty = await new Conversation(a).ask(emptySeed, 'parent');
    assert.ok(empty.text.endsWith('has nothing to inherit yet (no transcript or checkpoint).'), empty.text);
    const unknown = await new Conversation(a).ask('no-such-session-key', 'parent');
    assert.equal(unknown.text, '\n\n**Baton:** session no-such-session-key not found');
  });

  it('a free-form question without a model answers with the context and lists the sessions used', async function () {
    this.timeout(30_000);
    await prompt(endpointOf(a.host as never), seed, 'Anything else?', 'Bring binoculars.');
    const view = await clientOf(a).inherited(seed);
    // Words that are all in the seed (/search ANDs every word; free-form questions do not, see below).
    const question = `${word} survey at dawn?`;
    const first = await new Conversation(a).ask(question);
    const intro = 'No language model is available, so here is the context Baton has for this question:\n\n';
    assert.ok(first.text.startsWith(intro + view.block + '\n\n## Search hits\n'), first.text);
    assert.match(first.text, new RegExp(`\\n- ${seed}: .*\\[\\[${word}\\]\\]`));
    const used = /\n\nSessions used: (.+)$/.exec(first.text)?.[1];
    assert.ok(used, `no "Sessions used" line in:\n${first.text}`);
    assert.equal(linkArgs(used, seed).length, 1);
    assert.ok(first.stream.referencedKeys.includes(seed), `references: ${first.stream.referencedKeys.join(', ')}`);
    assert.equal(first.stream.referencedKeys[0], seed, 'the session whose context is shown comes first');

    // Deterministic: the same question in another conversation gets the same context block.
    const second = await new Conversation(a).ask(question);
    assert.equal(second.text.slice(0, second.text.indexOf('## Search hits')), first.text.slice(0, first.text.indexOf('## Search hits')));
  });

  // A free-form question cannot go to the full-text search as typed: every word would be required,
  // so a natural question ("Where does the X survey start?") would match only the conversation
  // itself, which stored the question just before. Its content words are searched OR-ed, ranked by
  // BM25, and the conversation's own session is left out.
  it('a natural-language question finds the session that answers it, not the conversation itself', async function () {
    this.timeout(30_000);
    const { result, text, stream } = await new Conversation(a).ask(`Where does the ${word} survey start?`);
    assert.match(text, new RegExp(`## Search hits\\n(.*\\n)*- ${seed}: `));
    assert.ok(!stream.referencedKeys.includes(result.metadata.sessionKey), `the conversation cites itself: ${stream.referencedKeys.join(', ')}`);
  });

  it('with a model (stand-in), the model gets the context and the question, and its streamed text is the answer', async function () {
    this.timeout(30_000);
    const view = await clientOf(a).inherited(seed);
    const model = new FakeModel(() => ['The survey ', 'starts at the ', 'north bank at dawn.']);
    const question = `The ${word} survey at dawn?`;
    const conv = new Conversation(a);
    const { result, stream, text } = await conv.ask(question, undefined, model.asModel);
    assert.equal(model.prompts.length, 1);
    const sent = model.prompts[0];
    assert.ok(sent.startsWith("You answer questions about the user's AI agent sessions, using only this context from Baton:\n\n"), sent);
    assert.ok(sent.includes(view.block), 'the model was not sent the inherited block');
    assert.ok(sent.includes('\n\n## Search hits\n') && sent.includes(`\n- ${seed}: `), sent);
    assert.ok(sent.endsWith(`\n\nQuestion: ${question}`), sent);
    assert.deepEqual(stream.fragments.slice(0, 3), ['The survey ', 'starts at the ', 'north bank at dawn.']);
    assert.ok(text.startsWith('The survey starts at the north bank at dawn.\n\nSessions used: '), text);
    const turns = await turnsOf(a, result.metadata.sessionKey);
    assert.deepEqual(
      turns.map((t) => [t.role, t.text]),
      [
        ['user', question],
        ['assistant', text.trim()],
      ],
    );

    // A model that fails: the answer says so and falls back to the context.
    const failing = new FakeModel(() => {
      throw new Error('quota exceeded');
    });
    const fallback = await conv.ask(question, undefined, failing.asModel);
    assert.ok(fallback.text.startsWith('The language model could not answer (quota exceeded); here is what Baton has:\n\n' + view.block), fallback.text);
  });

  it('offers follow-ups: the other commands, and an exact-phrase search after /search', async () => {
    const plain = a.chat.followups({ metadata: { sessionKey: 'k' } });
    assert.deepEqual(
      plain.map((f) => f.command),
      ['tree', 'parent', 'runs'],
    );
    assert.ok(plain.every((f) => f.label && f.prompt === ''));
    const afterTree = a.chat.followups({ metadata: { sessionKey: 'k', command: 'tree' } });
    assert.deepEqual(
      afterTree.map((f) => f.command),
      ['parent', 'runs'],
    );
    const afterSearch = a.chat.followups({ metadata: { sessionKey: 'k', command: 'search', query: 'red kite' } });
    assert.deepEqual(afterSearch[0], { prompt: '"red kite"', command: 'search', label: 'Search the exact phrase' });
    assert.deepEqual(
      afterSearch.slice(1).map((f) => f.command),
      ['tree', 'parent', 'runs'],
    );
    // From a real answer's result.
    const { result } = await new Conversation(a).ask('', 'runs');
    assert.deepEqual(
      a.chat.followups(result).map((f) => f.command),
      ['tree', 'parent'],
    );
  });
});

// ---------------------------------------------------------------------------------------------

describe('@baton chat: sub-agents', () => {
  let a: ChatApi;
  let runner: vscode.Disposable | undefined;
  const calls: RunRequestLike[] = [];
  const gates = new Map<string, Promise<void>>();
  let conv: Conversation;
  let chatKey: string;
  const word = `osprey${uid('').slice(1).replace(/-/g, '')}`;
  const runIds: Record<string, string> = {};

  /** A gate a runner call waits on until released. */
  function gate(task: string): () => void {
    let release!: () => void;
    gates.set(task, new Promise<void>((r) => (release = r)));
    return release;
  }

  async function systemTurns(key: string): Promise<TurnLike[]> {
    return (await turnsOf(a, key)).filter((t) => t.role === 'system');
  }

  before(async function () {
    this.timeout(60_000);
    a = await chatApi();
    runner = a.registerRunner({
      name: 'test-runner',
      run: async (req) => {
        calls.push(req);
        await within(gates.get(req.task) ?? Promise.resolve(), 20_000, `gate of ${req.task}`);
        return { content: `Result of: ${req.task}`, inputTokens: 3, outputTokens: 5 };
      },
    });
    await setBaton('subagents.enabled', true);
    await subagentsInEffect(a, true);
    conv = new Conversation(a);
    // A short opening (a /search), so the whole of it fits in the inherited tail.
    const { result } = await conv.ask(`Split the ${word} nest count into sub-tasks`, 'search');
    chatKey = result.metadata.sessionKey;
  });

  after(async function () {
    this.timeout(30_000);
    runner?.dispose();
    await setBaton('subagents.enabled', undefined);
  });

  it('SYNC: the child inherits the chat, hangs under it in the tree, and the run is recorded with tokens and duration', async function () {
    this.timeout(30_000);
    const task = `SYNC: count the ${word} nests on the north bank`;
    const spawned = await a.invokeSubagent({ parentSessionKey: chatKey, task, runner: 'test-runner', mode: 'SYNC' });
    runIds.SYNC = spawned.runId;
    assert.equal(spawned.mode, 'SYNC');
    assert.equal(spawned.sessionKey, `${chatKey}/run-${spawned.runId.slice(0, 8)}`);
    const run = spawned.run;
    assert.ok(run, 'SYNC returned no run');
    assert.equal(run.status, 'completed');
    assert.equal(run.runner, 'test-runner');
    assert.equal(run.executionMode, 'SYNC');
    assert.equal(run.parentSessionKey, chatKey);
    assert.equal(run.sessionKey, spawned.sessionKey);
    assert.equal(run.context.prompt, task);
    assert.equal(run.resultContent, `Result of: ${task}`);
    assert.equal(run.inputTokens, 3);
    assert.equal(run.outputTokens, 5);
    assert.ok(typeof run.durationMs === 'number' && run.durationMs >= 0, `durationMs ${run.durationMs}`);
    assert.ok(run.startedAt && run.finishedAt && run.finishedAt >= run.startedAt);

    // The runner got the chat's inherited block.
    const call = calls.find((c) => c.task === task);
    assert.ok(call, 'the runner was not called');
    assert.equal(call.parentSessionKey, chatKey);
    assert.ok(call.inherited.startsWith('## Inherited from Parent Session'), call.inherited);
    assert.ok(call.inherited.includes(`vscode-chat session ${chatKey}`) && call.inherited.includes(`Split the ${word} nest count`), call.inherited);

    const child = await clientOf(a).getSession(spawned.sessionKey);
    assert.ok(child);
    assert.equal(child.parentSessionKey, chatKey);
    assert.equal(child.harness, 'baton');
    assert.equal(child.harnessAgentType, 'test-runner');
    assert.equal(child.status, 'completed');
    assert.deepEqual(
      (await turnsOf(a, spawned.sessionKey)).map((t) => [t.role, t.text]),
      [
        ['user', `${call.inherited}\n\n## Task\n\n${task}`],
        ['assistant', `Result of: ${task}`],
      ],
    );

    const chatNode = await rootNode(a, chatKey);
    const children = await a.tree.getChildren(chatNode);
    const childNode = children.find((n) => n.key === spawned.sessionKey);
    assert.ok(childNode, `the run's session is not under the chat session: ${children.map((n) => n.key).join(', ')}`);
    assert.equal(a.tree.getTreeItem(childNode).label, task);
  });

  it('ASYNC_POLL: returns at once with the run pending or running; it completes later', async function () {
    this.timeout(30_000);
    const task = `POLL: map the ${word} feeding spots`;
    const release = gate(task);
    const spawned = await a.invokeSubagent({ parentSessionKey: chatKey, task, runner: 'test-runner', mode: 'ASYNC_POLL' });
    runIds.ASYNC_POLL = spawned.runId;
    assert.equal(spawned.mode, 'ASYNC_POLL');
    assert.ok(spawned.run && ['pending', 'running'].includes(spawned.run.status), `status at return: ${spawned.run?.status}`);
    await waitFor(async () => (await a.runs.status(spawned.runId))?.status === 'running', 10_000, 'the run is running');
    assert.equal((await a.runs.status(spawned.runId))?.resultContent, null);
    release();
    const done = await within(a.runs.wait(spawned.runId), 15_000, 'runs.wait');
    assert.equal(done?.status, 'completed');
    assert.equal(done?.resultContent, `Result of: ${task}`);
    assert.equal(done?.inputTokens, 3);
    assert.equal(done?.outputTokens, 5);
    assert.ok((done?.durationMs ?? -1) >= 0);
    assert.equal(done?.callbackDeliveredAt, null, 'a polled run is not delivered');
    assert.ok((await a.queryRuns({ parent: chatKey })).some((r) => r.id === spawned.runId));
    assert.ok((await a.tree.getChildren(await rootNode(a, chatKey))).some((n) => n.key === spawned.sessionKey));
    assert.equal((await systemTurns(chatKey)).length, 0, 'nothing is delivered into the chat for a polled run');
  });

  it('ASYNC_CALLBACK finishing while the chat answers: delivered once, as a System turn, and the answer says it arrived', async function () {
    this.timeout(45_000);
    const task = `CALLBACK: check the ${word} chicks`;
    const release = gate(task);
    const spawned = await a.invokeSubagent({ parentSessionKey: chatKey, task, runner: 'test-runner', mode: 'ASYNC_CALLBACK' });
    runIds.ASYNC_CALLBACK = spawned.runId;
    assert.equal(spawned.mode, 'ASYNC_CALLBACK');
    assert.ok(spawned.run && spawned.run.status !== 'completed');
    // The model (a stand-in) lets the run finish while the chat is busy answering, then answers.
    const model = new FakeModel(async () => {
      release();
      const finished = await within(a.runs.wait(spawned.runId), 15_000, 'the callback run');
      assert.equal(finished?.status, 'completed');
      return ['Waiting on the chick count.'];
    });
    const { text } = await conv.ask('How are the chicks?', undefined, model.asModel);
    assert.ok(text.startsWith('Waiting on the chick count.'), text);
    assert.ok(text.endsWith('\n\n_1 sub-agent result(s) arrived and were added to this conversation._'), text);

    const expected = `Sub-agent results (1):\n- run ${spawned.runId} (test-runner) completed:\n  Result of: ${task}`;
    let system = await systemTurns(chatKey);
    assert.deepEqual(
      system.map((t) => t.text),
      [expected],
    );
    const turns = await turnsOf(a, chatKey);
    assert.equal(turns[turns.length - 1].role, 'system', 'the delivery comes after the answer');
    const run = await a.runs.status(spawned.runId);
    assert.ok(run?.callbackDeliveredAt, 'the run is not marked delivered');

    // Never twice: neither an explicit delivery nor the next answer brings it again.
    assert.deepEqual(await a.runs.deliver(chatKey), []);
    const next = await conv.ask('', 'tree');
    assert.ok(!next.text.includes('arrived'), next.text);
    system = await systemTurns(chatKey);
    assert.equal(system.filter((t) => t.text.includes(spawned.runId)).length, 1);
  });

  it('ASYNC_CALLBACK finishing while the chat is idle is delivered at once, as one System turn', async function () {
    this.timeout(30_000);
    const task = `CALLBACK idle: weigh the ${word} fish`;
    const spawned = await a.invokeSubagent({ parentSessionKey: chatKey, task, runner: 'test-runner', mode: 'ASYNC_CALLBACK' });
    await within(a.runs.wait(spawned.runId), 15_000, 'the callback run');
    const delivered = await waitFor(
      async () => (await systemTurns(chatKey)).filter((t) => t.text.includes(`run ${spawned.runId} (test-runner) completed`)),
      10_000,
      'the System turn',
    );
    assert.equal(delivered.length, 1);
    assert.ok((await a.runs.status(spawned.runId))?.callbackDeliveredAt);
    assert.deepEqual(await a.runs.deliver(chatKey), []);
  });

  // A callback result that finishes while the conversation is idle is written into the chat
  // session as a System turn (previous test). The next answer must announce it too, to the user and
  // to the model's context: once only results that landed during a request were announced.
  it('ASYNC_CALLBACK finishing while the chat is idle is announced by the next answer', async function () {
    this.timeout(30_000);
    const task = `CALLBACK idle 2: count the ${word} eggs`;
    const spawned = await a.invokeSubagent({ parentSessionKey: chatKey, task, runner: 'test-runner', mode: 'ASYNC_CALLBACK' });
    await within(a.runs.wait(spawned.runId), 15_000, 'the callback run');
    await waitFor(async () => (await a.runs.status(spawned.runId))?.callbackDeliveredAt, 10_000, 'delivery');
    const { text } = await conv.ask('Any news?');
    assert.ok(text.includes('arrived') && text.includes(`Result of: ${task}`), text);
  });

  it('/runs shows the runs in a table, this chat as their parent', async function () {
    this.timeout(30_000);
    assert.deepEqual(Object.keys(runIds).sort(), ['ASYNC_CALLBACK', 'ASYNC_POLL', 'SYNC'], 'the spawning tests ran first');
    const { text } = await conv.ask('', 'runs');
    const lines = text.split('\n');
    assert.equal(lines[0], '| run | runner | status | mode | parent | ms | task |');
    assert.equal(lines[1], '|---|---|---|---|---|---|---|');
    for (const [mode, id] of Object.entries(runIds)) {
      const run = await a.runs.status(id);
      const row = lines.find((l) => l.startsWith(`| ${id.slice(0, 8)} |`));
      assert.ok(row, `no row for ${mode} run ${id}:\n${text}`);
      assert.equal(row, `| ${id.slice(0, 8)} | test-runner | completed | ${mode} | this chat | ${run?.durationMs} | ${run?.context.prompt?.slice(0, 60)} |`);
    }
  });

  it('with baton.subagents.enabled off, invokeSubagent rejects with a readable message and records nothing', async function () {
    this.timeout(30_000);
    await setBaton('subagents.enabled', false);
    await subagentsInEffect(a, false);
    const before = (await a.queryRuns({ parent: chatKey })).length;
    await assert.rejects(a.invokeSubagent({ parentSessionKey: chatKey, task: 'should not run', runner: 'test-runner', mode: 'SYNC' }), {
      message: 'Baton sub-agents are turned off (baton.subagents.enabled).',
    });
    assert.equal((await a.queryRuns({ parent: chatKey })).length, before);
    assert.ok(!calls.some((c) => c.task === 'should not run'));
    await setBaton('subagents.enabled', true);
    await subagentsInEffect(a, true);
    await assert.rejects(a.invokeSubagent({ parentSessionKey: chatKey, task: 'x', runner: 'nobody' }), (err: Error) => {
      assert.match(err.message, /^No runner named "nobody" \(available: .*test-runner.*\)\.$/);
      return true;
    });
  });
});

// ---------------------------------------------------------------------------------------------

describe('@baton chat: archival', () => {
  let a: ChatApi;
  const warnings: string[] = [];
  let restoreWarnings: (() => void) | undefined;
  const word = `pelican${uid('').slice(1).replace(/-/g, '')}`;
  // Text that lives only in the archived turn (past the first line, so not in the holder's task either).
  const promptDetail = `${word}PROMPTDETAIL`;
  const lakeDetail = `${word}LAKEDETAIL`;
  const summary = { outcome: 'Explained the winter grounds.', key_findings: ['inland lakes'], files_touched: [], tools_used: [], open_questions: [] };
  const replies = new Map<string, string[]>();
  /** Answers the participant's questions from `replies` (by the question's text) and summary requests with `summary`. */
  const model = new FakeModel((sent) => {
    if (sent.startsWith('Summarise the conversation turn below as JSON')) return [JSON.stringify(summary)];
    if (sent.startsWith('Summarise the conversation turn below in one paragraph')) return ['The user asked where the bird winters. It winters on the lakes.'];
    const question = sent.slice(sent.lastIndexOf('Question: ') + 'Question: '.length);
    return replies.get(question) ?? ['(no scripted reply)'];
  });
  let conv: Conversation;
  let chatKey: string;
  let holderId: string;
  let longPrompt: string;

  /** One turn of the conversation with the fake model, its reply scripted. */
  async function turn(prompt: string, reply: string[]) {
    replies.set(prompt, reply);
    return conv.ask(prompt, undefined, model.asModel);
  }

  /** The request the participant sent for a question (not a summary request). */
  function requestFor(prompt: string): Array<{ role: string; text: string }> {
    const found = model.requests.filter((r) => r.at(-1)?.text.endsWith(`Question: ${prompt}`));
    assert.equal(found.length, 1, `one request for ${prompt}`);
    return found[0];
  }

  before(async function () {
    this.timeout(60_000);
    a = await chatApi();
    // The extension's own `vscode` API object (the module loader hands it to anything required from
    // inside the extension's folder): its showWarningMessage is wrapped to record what it shows.
    const extVscode = createRequire(path.join(extension().extensionPath, 'dist', 'extension.js'))('vscode') as typeof vscode;
    const original = extVscode.window.showWarningMessage;
    extVscode.window.showWarningMessage = ((message: string, ...rest: unknown[]) => {
      warnings.push(message);
      return (original as (...args: unknown[]) => Thenable<unknown>).call(extVscode.window, message, ...rest);
    }) as typeof original;
    restoreWarnings = () => (extVscode.window.showWarningMessage = original);
  });

  after(async function () {
    this.timeout(30_000);
    for (const key of ['enabled', 'tokenThreshold', 'depthCap', 'onMaxTurns', 'summary.style', 'summary.model', 'holderTools'])
      await setBaton(`archival.${key}`, undefined);
    await setBaton('subagents.enabled', undefined);
    restoreWarnings?.();
  });

  it('archival without sub-agents is a configuration error: a warning, and archival stays off', async function () {
    this.timeout(30_000);
    const message =
      'baton.archival.enabled needs baton.subagents.enabled: archival moves finished turns into sub-agents. Archival stays off until sub-agents are enabled.';
    // The core validator readSettings() applies:
    const { settings, errors } = validateSettings({ 'archival.enabled': true });
    assert.deepEqual(errors, [message]);
    assert.equal(settings.archival.enabled, false);
    // And the extension, live: the warning it shows on the change, and the settings it then uses.
    await setBaton('subagents.enabled', false);
    warnings.length = 0;
    await setBaton('archival.enabled', true);
    await waitFor(() => warnings.includes(`Baton settings: ${message}`), 10_000, `the warning (seen: ${JSON.stringify(warnings)})`);
    assert.equal(archivalInEffect(a).enabled, false);
    await setBaton('archival.enabled', undefined);
  });

  it('the archival settings are contributed with the documented defaults (8,000 tokens, 5 tool calls, depth 3, max-turns ending, structured, no holder tools)', () => {
    const props = (extension().packageJSON as { contributes: { configuration: { properties: Record<string, { default: unknown }> } } }).contributes
      .configuration.properties;
    const defaults = Object.fromEntries(
      Object.entries(props)
        .filter(([k]) => k.startsWith('baton.archival.'))
        .map(([k, v]) => [k.slice('baton.archival.'.length), v.default]),
    );
    assert.deepEqual(defaults, {
      enabled: false,
      onMaxTurns: true,
      tokenThreshold: 8000,
      toolCallThreshold: 5,
      depthCap: 3,
      'summary.style': 'structured',
      'summary.model': null,
      holderTools: [],
    });
    const inEffect = archivalInEffect(a);
    assert.deepEqual(
      [inEffect.onMaxTurns, inEffect.tokenThreshold, inEffect.depthCap, inEffect.summary, inEffect.holderTools],
      [true, 8000, 3, { style: 'structured', model: null }, []],
    );
  });

  it('a turn at the token threshold moves whole into holder-1 under the chat session, queryable through the API', async function () {
    this.timeout(60_000);
    await setBaton('subagents.enabled', true);
    await setBaton('archival.tokenThreshold', 1000);
    await setBaton('archival.depthCap', 2);
    warnings.length = 0;
    await setBaton('archival.enabled', true);
    await subagentsInEffect(a, true);
    await waitFor(
      () => archivalInEffect(a).enabled && archivalInEffect(a).tokenThreshold === 1000,
      10_000,
      'archival on, tokenThreshold 1000, in the extension',
    );
    assert.deepEqual(warnings, [], 'no configuration warning once sub-agents are on');

    conv = new Conversation(a);
    const first = await turn(`Note the ${word} route: the coast first.`, ['Noted: coast first.']);
    chatKey = first.result.metadata.sessionKey;
    assert.equal(first.result.metadata.archived, undefined, 'a short turn is below the threshold');
    longPrompt = `Where does the ${word} spend the winter?\nDetails: ${promptDetail} ${'with the field notes '.repeat(100)}`;
    const longReply = `The ${word} winters on the inland lakes. ${`${lakeDetail}: flocks of thousands. `.repeat(60)}`;
    assert.ok((longPrompt + longReply).length >= 4000, 'the turn is at least 1000 estimated tokens');
    const second = await turn(longPrompt, [longReply]);
    assert.equal(second.result.metadata.sessionKey, chatKey);
    holderId = `${chatKey}/holder-1`;
    assert.equal(second.result.metadata.archived, holderId);
    const marker = second.result.metadata.archivedMarker ?? '';
    assert.ok(
      marker.startsWith(`[archived turn]\nsubagent_id: ${holderId}\n\noutcome: Explained the winter grounds.\nkey_findings:\n- inland lakes\n`),
      marker,
    );
    assert.ok(
      model.prompts.some((p) => p.startsWith('Summarise the conversation turn below as JSON') && p.includes(lakeDetail)),
      'the summary was asked of the model, in the structured style',
    );

    // The holder: a session under the chat session that keeps the turn whole, readable through the API.
    const holder = await clientOf(a).getSession(holderId);
    assert.ok(holder, 'the holder session does not exist');
    assert.equal(holder.parentSessionKey, chatKey);
    assert.equal(holder.harness, 'baton');
    assert.equal(holder.harnessAgentType, 'holder');
    assert.equal(holder.title, `Archive: Where does the ${word} spend the winter?`);
    const held = (await turnsOf(a, holderId)).map((t) => [t.role, t.text]);
    assert.equal(held.length, 2, JSON.stringify(held).slice(0, 500));
    assert.deepEqual(held[0], ['user', longPrompt.trim()]);
    assert.ok(held[1][0] === 'assistant' && held[1][1].startsWith(longReply.trim()), 'the holder keeps the whole reply');
    assert.ok(
      (await a.tree.getChildren(await rootNode(a, chatKey))).some((n) => n.key === holderId),
      'the holder is not under the chat session in the tree',
    );
    assert.deepEqual(a.archivist.liveHolders(chatKey), [{ id: holderId, task: `Archive: Where does the ${word} spend the winter?` }]);

    // … and a JSONL file laid out like a session: <dataDir>/agents/subagent-<id>/sessions/<id>.jsonl.
    const id = holderId.replace(/[^\w.-]+/g, '_');
    const file = path.join(a.host.dataDir, 'agents', `subagent-${id}`, 'sessions', `${id}.jsonl`);
    assert.ok(fs.existsSync(file), `${file} is missing`);
    const lines = fs
      .readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { role: string; content: string });
    assert.deepEqual(
      lines.map((l) => l.role),
      ['user', 'assistant'],
    );
    // The file holds the holder's stored turns (the same for the headless archive route): the prompt as stored, trimmed.
    assert.equal(lines[0].content, longPrompt.trim());
    assert.ok(lines[1].content.startsWith(longReply.trim()), 'the file keeps the whole reply');

    // The chat's own transcript keeps the marker as one System turn.
    const system = (await turnsOf(a, chatKey)).filter((t) => t.role === 'system');
    assert.deepEqual(
      system.map((t) => t.text),
      [marker],
    );

    // The archive is a completed holder run.
    const runs = await a.queryRuns({ parent: chatKey, runner: 'holder' });
    assert.equal(runs.length, 1);
    assert.equal(runs[0].status, 'completed');
    assert.equal(runs[0].sessionKey, holderId);
    assert.equal(runs[0].context.specId, 'archive:token_threshold');
    assert.equal(runs[0].resultContent, marker);
  });

  it("the next request's messages to the model carry the marker and summary in place of the archived turn, never its text", async function () {
    this.timeout(60_000);
    assert.ok(holderId, 'the previous test archived a turn');
    const prompt = `Remind me about the ${word} winter`;
    const third = await turn(prompt, ['Ask the holder ', 'for the details.']);
    assert.ok(third.text.startsWith('Ask the holder for the details.'), third.text);
    assert.equal(third.result.metadata.archived, undefined, 'a short turn is not archived');
    const sent = requestFor(prompt);
    const marker = (await turnsOf(a, chatKey)).find((t) => t.role === 'system')?.text ?? '';
    // History: the live first turn whole, the archived second only as its marker, then the question.
    assert.deepEqual(
      sent.slice(0, 3).map((m) => m.role),
      ['user', 'assistant', 'assistant'],
    );
    assert.equal(sent[0].text, `Note the ${word} route: the coast first.`);
    assert.ok(sent[1].text.startsWith('Noted: coast first.'), sent[1].text);
    assert.equal(sent[2].text, marker);
    assert.equal(sent.length, 4);
    const all = sent.map((m) => m.text).join('\n');
    assert.ok(all.includes(`[archived turn]\nsubagent_id: ${holderId}\n\noutcome: Explained the winter grounds.`), all.slice(0, 2000));
    assert.ok(!all.includes(lakeDetail), 'the archived reply reached the model');
    assert.ok(!all.includes(promptDetail), 'the archived prompt reached the model');
    // … and the prompt names the live holder, as the runtime's Live Subagents section does.
    assert.ok(all.includes(`# Live Subagents\n`), all.slice(-1500));
    assert.ok(all.includes(`- id: ${holderId} | task: Archive: Where does the ${word} spend the winter?`), all.slice(-1500));
  });

  it('a reply that ends with [Max turns reached] is archived (max_turns), short as it is; with onMaxTurns off it is not', async function () {
    this.timeout(60_000);
    const frozen = await turn(`Trace the ${word} migration`, ['Read two logs so far.\n\n[Max turns reached]']);
    assert.equal(frozen.result.metadata.archived, `${chatKey}/holder-2`);
    const runs = await a.queryRuns({ parent: chatKey, runner: 'holder' });
    assert.deepEqual(runs.map((r) => r.context.specId).sort(), ['archive:max_turns', 'archive:token_threshold']);
    await setBaton('archival.onMaxTurns', false);
    await waitFor(() => archivalInEffect(a).onMaxTurns === false, 10_000, 'onMaxTurns off in the extension');
    const kept = await turn(`Trace the ${word} migration again`, ['Read two more logs.\n\n[Max turns reached]']);
    assert.equal(kept.result.metadata.archived, undefined);
    await setBaton('archival.onMaxTurns', undefined);
    await waitFor(() => archivalInEffect(a).onMaxTurns === true, 10_000, 'onMaxTurns back on');
  });

  it('summary.style paragraph: the model is asked for a paragraph, and without a model the summary is a paragraph too', async function () {
    this.timeout(60_000);
    await setBaton('archival.summary.style', 'paragraph');
    await waitFor(() => archivalInEffect(a).summary.style === 'paragraph', 10_000, 'paragraph style in the extension');
    const withModel = await turn(`Which lakes does the ${word} use?\n${'lake notes '.repeat(400)}`, ['The northern ones.']);
    assert.ok(withModel.result.metadata.archived, 'the long turn was not archived');
    assert.ok(
      model.prompts.some((p) => p.startsWith('Summarise the conversation turn below in one paragraph of 3-5 sentences, no bullets')),
      'no paragraph summary request',
    );
    assert.ok(
      withModel.result.metadata.archivedMarker?.endsWith('\n\nThe user asked where the bird winters. It winters on the lakes.'),
      withModel.result.metadata.archivedMarker,
    );
    const noModel = await conv.ask(`Which rivers does the ${word} follow?\n${'river notes '.repeat(400)}`);
    const marker = noModel.result.metadata.archivedMarker ?? '';
    assert.ok(marker, 'the long turn without a model was not archived');
    const body = marker.split('\n\n').slice(1).join('\n\n');
    assert.ok(!body.startsWith('outcome:') && !body.includes('\n- '), `not a paragraph: ${body}`);
    assert.match(body, /Asked: Which rivers does the /);
    await setBaton('archival.summary.style', undefined);
  });

  it('summary.model naming no available model falls back to the conversation model (none can be installed here to be picked)', async function () {
    this.timeout(60_000);
    await setBaton('archival.summary.model', 'no-such-model-family');
    await waitFor(() => archivalInEffect(a).summary.model === 'no-such-model-family', 10_000, 'summary.model in the extension');
    const before = model.prompts.filter((p) => p.startsWith('Summarise the conversation turn below as JSON')).length;
    const result = await turn(`Which ${word} colonies nest inland?\n${'colony notes '.repeat(400)}`, ['Two of them.']);
    assert.ok(result.result.metadata.archivedMarker?.includes('\n\noutcome: Explained the winter grounds.\n'), result.result.metadata.archivedMarker);
    assert.equal(model.prompts.filter((p) => p.startsWith('Summarise the conversation turn below as JSON')).length, before + 1);
    await setBaton('archival.summary.model', undefined);
  });

  it('baton_query_subagent answers from the holder transcript; holders archive their own turns down to the depth cap', async function () {
    this.timeout(30_000);
    assert.ok(holderId, 'an earlier test archived a turn');
    const result = await within(
      Promise.resolve(
        vscode.lm.invokeTool('baton_query_subagent', { input: { id: holderId, prompt: `Where does the ${word} winter?` }, toolInvocationToken: undefined }),
      ),
      20_000,
      'baton_query_subagent',
    );
    const text = result.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
    assert.ok(text.includes(`user: Where does the ${word} spend the winter?`), text.slice(0, 500));
    assert.ok(text.includes(`assistant: The ${word} winters on the inland lakes.`), text.slice(0, 500));
    const holderTurns = await turnsOf(a, holderId);
    assert.deepEqual(
      holderTurns.slice(2, 4).map((t) => [t.role, t.text]),
      [
        ['user', `Where does the ${word} winter?`],
        ['assistant', text.trim()],
      ],
    );
    // The answer quotes the whole archived turn, so it is over the threshold: it moved into a holder
    // of the holder (depth 1 < depthCap 2)…
    const nested = await clientOf(a).getSession(`${holderId}/holder-1`);
    assert.ok(nested, 'the holder did not archive its own turn');
    assert.equal(nested.parentSessionKey, holderId);
    assert.deepEqual(
      a.archivist.liveHolders(holderId).map((h) => h.id),
      [`${holderId}/holder-1`],
    );
    // … but the nested holder is at the depth cap and never archives.
    await vscode.lm.invokeTool('baton_query_subagent', {
      input: { id: `${holderId}/holder-1`, prompt: `Where does the ${word} winter?` },
      toolInvocationToken: undefined,
    });
    assert.equal(await clientOf(a).getSession(`${holderId}/holder-1/holder-1`), null, 'a holder at the depth cap archived');
    assert.deepEqual(a.archivist.liveHolders(`${holderId}/holder-1`), []);
  });

  it('holders get only the granted tools (none by default); an ungranted call is refused, not run; a loop out of rounds ends at max turns and archives', async function () {
    this.timeout(60_000);
    const holder2 = `${chatKey}/holder-2`;
    const run = (await a.queryRuns({ parent: chatKey, runner: 'holder' })).find((r) => r.sessionKey === holder2);
    assert.ok(run, 'holder-2 has its run');
    /** Calls baton_get_run_status until it sees a tool result (or always, `stubborn`); records the tools offered. */
    const toolModel = (stubborn: boolean) => {
      const offered: string[][] = [];
      const results: string[] = [];
      /** Requests that were the holder's rounds, not an archive summary request. */
      const rounds: number[] = [];
      const fake = {
        id: 'baton-test-tools',
        vendor: 'baton-test',
        family: 'tools',
        version: '1',
        name: 'Tool-calling fake',
        maxInputTokens: 100_000,
        countTokens: async (t: string) => Math.ceil(String(t).length / 4),
        async sendRequest(messages: vscode.LanguageModelChatMessage[], options: vscode.LanguageModelChatRequestOptions) {
          offered.push((options.tools ?? []).map((t) => t.name));
          const opening = (messages[0].content as unknown[]).map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
          if (opening.startsWith('Summarise the conversation turn')) {
            async function* summaryText(): AsyncIterable<string> {
              yield 'The holder kept checking its run status and ran out of rounds.';
            }
            return { stream: summaryText(), text: summaryText() };
          }
          rounds.push(offered.length);
          const last = messages[messages.length - 1].content as unknown[];
          const result = last.find((p): p is vscode.LanguageModelToolResultPart => p instanceof vscode.LanguageModelToolResultPart);
          const seen = result ? result.content.map((c) => (c instanceof vscode.LanguageModelTextPart ? c.value : '')).join('') : '';
          if (result) results.push(seen);
          const parts: unknown[] =
            result && !stubborn
              ? [new vscode.LanguageModelTextPart(`Tool said: ${seen}`)]
              : [new vscode.LanguageModelToolCallPart(`call-${offered.length}`, 'baton_get_run_status', { runId: run.id })];
          async function* stream(): AsyncIterable<unknown> {
            for (const p of parts) yield p;
          }
          async function* text(): AsyncIterable<string> {
            for (const p of parts) if (p instanceof vscode.LanguageModelTextPart) yield p.value;
          }
          return { stream: stream(), text: text() };
        },
      };
      return { model: fake as unknown as vscode.LanguageModelChat, offered, results, rounds };
    };

    const denied = toolModel(false);
    const refused = await a.archivist.query(holder2, 'What did you read?', denied.model);
    assert.deepEqual(denied.offered, [[], []], 'no tool is offered by default');
    assert.match(denied.results[0], /^Tool "baton_get_run_status" is not granted to this holder/);
    assert.ok(refused.startsWith('Tool said: Tool "baton_get_run_status" is not granted'), refused);

    await setBaton('archival.holderTools', ['baton_get_run_status']);
    await waitFor(() => archivalInEffect(a).holderTools.includes('baton_get_run_status'), 10_000, 'holderTools in the extension');
    const granted = toolModel(false);
    const answered = await a.archivist.query(holder2, 'What is your run status?', granted.model);
    assert.deepEqual(granted.offered[0], ['baton_get_run_status']);
    assert.ok(granted.results[0].startsWith(`run ${run.id}: completed (holder, SYNC)`), granted.results[0]);
    assert.ok(answered.startsWith(`Tool said: run ${run.id}: completed`), answered);
    assert.equal(await clientOf(a).getSession(`${holder2}/holder-1`), null, 'short answers are not archived');

    // A model that never stops calling tools: the holder's loop ends after its rounds with the
    // max-turns marker, and that ending archives the holder's turn.
    const stubborn = toolModel(true);
    const frozen = await a.archivist.query(holder2, 'Keep checking', stubborn.model);
    assert.equal(stubborn.rounds.length, 5, 'the loop is bounded');
    assert.equal(stubborn.results.length, 4, 'each round but the last saw its tool result');
    assert.ok(frozen.endsWith('[Max turns reached]'), frozen);
    const nestedRuns = await a.queryRuns({ parent: holder2, runner: 'holder' });
    assert.deepEqual(
      nestedRuns.map((r) => [r.sessionKey, r.context.specId]),
      [[`${holder2}/holder-1`, 'archive:max_turns']],
    );
    assert.ok(nestedRuns[0].resultContent?.endsWith('\n\nThe holder kept checking its run status and ran out of rounds.'), nestedRuns[0].resultContent ?? '');
    await setBaton('archival.holderTools', undefined);
  });

  it('a holder archived through the API (or before a reload) is listed too: the Live Subagents come from the store', async function () {
    this.timeout(30_000);
    assert.ok(chatKey, 'an earlier test started the conversation');
    const archived = await post<{ holderKey: string; marker: string }>(endpointOf(a.host as never), `/api/sessions/${encodeURIComponent(chatKey)}/archive`, {
      from: 1,
      to: 2,
      summary: 'The route: coast first.',
      title: 'Archive: the route notes',
    });
    assert.ok(!a.archivist.liveHolders(chatKey).some((h) => h.id === archived.holderKey), 'the extension did not make this holder');
    const prompt = `Which ${word} holders are there?`;
    await turn(prompt, ['Several.']);
    const sent = requestFor(prompt)
      .map((m) => m.text)
      .join('\n');
    assert.ok(sent.includes(`- id: ${archived.holderKey} | task: Archive: the route notes`), sent.slice(-2000));
    assert.ok(sent.includes(`- id: ${holderId} | task: Archive: Where does the ${word} spend the winter?`), sent.slice(-2000));
  });

  it("a holder's depth comes from its lineage, not its key: a custom-keyed holder and its own holder stop at the depth cap", async function () {
    this.timeout(30_000);
    assert.ok(chatKey, 'an earlier test started the conversation');
    const custom = uid('custom-holder');
    // Turns 3-4 of the chat: the long exchange about the winter.
    await post(endpointOf(a.host as never), `/api/sessions/${encodeURIComponent(chatKey)}/archive`, { from: 3, to: 4, holderKey: custom });
    const ask = (id: string) =>
      vscode.lm.invokeTool('baton_query_subagent', { input: { id, prompt: `Where does the ${word} winter?` }, toolInvocationToken: undefined });
    await ask(custom); // depth 1: its long answer is archived into a holder of its own (depth 2)
    const nested = await clientOf(a).getSession(`${custom}/holder-1`);
    assert.ok(nested, 'the custom holder did not archive its long answer');
    await ask(`${custom}/holder-1`); // depth 2 = depthCap: never archives
    assert.equal(await clientOf(a).getSession(`${custom}/holder-1/holder-1`), null, 'a holder at the depth cap archived');
  });

  // The archive marker (and a run's delivery text) is posted as one structured System turn. Posted
  // as plain text, the server's parser split it at every line starting with "User:", "Assistant:",
  // "Tool:", "Human:" or "AI:", so a paragraph summary holding such a line invented turns.
  it('an archived turn stays one System turn whatever the model summary says', async function () {
    this.timeout(30_000);
    assert.ok(chatKey, 'an earlier test started the conversation');
    const odd = new FakeModel((sent) =>
      sent.startsWith('Summarise the conversation turn')
        ? ['The user asked about the winter.\nAssistant: it said lakes.\nUser: then thanked it.']
        : ['Glad to help.'],
    );
    const before = (await turnsOf(a, chatKey)).length;
    const { result } = await conv.ask(`Thanks for the ${word} notes\n${'thanks '.repeat(700)}`, undefined, odd.asModel);
    assert.ok(result.metadata.archived, 'the turn was not archived');
    const added = (await turnsOf(a, chatKey)).slice(before);
    assert.deepEqual(
      added.map((t) => t.role),
      ['user', 'assistant', 'system'],
      JSON.stringify(added, null, 1).slice(0, 1000),
    );
    assert.ok(added[2].text.endsWith('The user asked about the winter.\nAssistant: it said lakes.\nUser: then thanked it.'), added[2].text);
  });
});
