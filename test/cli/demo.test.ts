// `baton demo` with the built CLI (dist/cli.js: `npm run build` first), real processes, real files:
// the recorded Claude Code transcripts, Codex rollouts, OpenCode exports, GitHub Copilot CLI session logs and VS Code
// chat sessions in demo/sessions/ go through `baton import`'s code into a marked demo data directory; lineage (parallel and nested sub-agents), the
// stated constraint, search and the compaction come out of the store; it never writes into the
// user's data.

import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { scanClaudeProjects } from '../../src/harnesses/claudeCode/import';
import { scanCodexSessions } from '../../src/harnesses/codex/import';
import { parseChatSession } from '../../src/harnesses/copilot/chatSessions';
import { chatSessionFiles } from '../../src/harnesses/copilot/import';
import { scanCopilotCliSessions } from '../../src/harnesses/copilotCli/import';
import { DEMO_MARKER, readDemoMarker } from '../../src/node/demoData';
import { prepareStartDemo } from '../../scripts/dev/startDemo';
import { CLI, ROOT, runCli } from '../helpers/child';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';

const RECORDED = path.join(ROOT, 'demo', 'sessions', 'claude-code');
const RECORDED_CODEX = path.join(ROOT, 'demo', 'sessions', 'codex');
const RECORDED_OPENCODE = path.join(ROOT, 'demo', 'sessions', 'opencode');
const RECORDED_COPILOT = path.join(ROOT, 'demo', 'sessions', 'copilot');
const RECORDED_COPILOT_CLI = path.join(ROOT, 'demo', 'sessions', 'copilot-cli');
const CONSTRAINT = 'Never touch the production database';

interface SessionRow {
  key: string;
  parentSessionKey: string | null;
  harness: string;
  status: string;
  turnCount: number;
}

describe('baton demo (built CLI, recorded Claude Code, Codex, OpenCode and GitHub Copilot CLI sessions and VS Code agent mode chats)', function () {
  this.timeout(120_000);

  let home: string;
  let env: NodeJS.ProcessEnv;
  let dataDir: string;
  const recorded = scanClaudeProjects(RECORDED);
  const roots = recorded.filter((i) => i.depth === 0);
  const subagents = recorded.filter((i) => i.depth > 0);
  const codexRecorded = scanCodexSessions(RECORDED_CODEX);
  const codexRoots = codexRecorded.filter((i) => i.depth === 0);
  // The OpenCode story: `opencode export` files, session id -> parent id (null for a root).
  const openCode = new Map(
    fs
      .readdirSync(RECORDED_OPENCODE)
      .filter((n) => n.endsWith('.json'))
      .map((n) => (JSON.parse(fs.readFileSync(path.join(RECORDED_OPENCODE, n), 'utf8')) as { info: { id: string; parentID?: string } }).info)
      .map((info) => [info.id, info.parentID ?? null] as const),
  );
  const openCodeChildren = [...openCode.values()].filter((p) => p !== null).length;
  // VS Code agent mode's chats (demo/sessions/copilot), each with its runSubagent children.
  const copilotChats = chatSessionFiles(RECORDED_COPILOT).map((f) => parseChatSession(fs.readFileSync(f, 'utf8'), path.basename(f, '.jsonl'))!);
  const copilotSubagents = copilotChats.flatMap((c) => c.subagents);
  // GitHub Copilot CLI's session logs (demo/sessions/copilot-cli/<id>/events.jsonl), each a session with its sub-agents.
  const copilotCliRecorded = scanCopilotCliSessions(RECORDED_COPILOT_CLI);
  const copilotCliRoots = copilotCliRecorded.filter((i) => i.depth === 0);
  /** Every recorded session, of every harness. */
  const allSessions = recorded.length + codexRecorded.length + openCode.size + copilotChats.length + copilotSubagents.length + copilotCliRecorded.length;

  const cli = (args: string[]) => runCli(args, { env, timeout: 90_000 });
  const json = <T>(args: string[]): T => {
    const r = cli([...args, '--json']);
    assert.equal(r.status, 0, `baton ${args.join(' ')}: ${r.stderr}`);
    return JSON.parse(r.stdout) as T;
  };

  before(() => {
    assert.ok(fs.existsSync(CLI), `${CLI} is missing: run \`npm run build\` first`);
    home = tempDir('baton-demo-home-');
    // The user's own data directory is elsewhere: the demo must not touch it.
    env = { HOME: home, XDG_DATA_HOME: path.join(home, 'share'), BATON_DATA_DIR: path.join(home, 'real-data'), PATH: process.env.PATH };
    dataDir = path.join(home, 'demo-data');
  });
  after(() => cleanupTempDirs());

  it('the recording holds a dozen sessions, sub-agents nested two deep, in a small footprint', () => {
    assert.ok(roots.length >= 10, `${roots.length} recorded sessions`);
    assert.ok(
      subagents.some((s) => s.depth === 2),
      'a nested sub-agent',
    );
    let bytes = 0;
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true }))
        if (e.isDirectory()) walk(path.join(dir, e.name));
        else bytes += fs.statSync(path.join(dir, e.name)).size;
    };
    walk(RECORDED);
    assert.ok(bytes < 1.5 * 1024 * 1024, `${bytes} bytes recorded`);
    const text = fs.readFileSync(roots[0].file, 'utf8');
    assert.ok(!/baton-demo-rec-/.test(text), 'temp paths were scrubbed');
  });

  it('imports every recorded session into a marked demo directory, and again adds nothing', () => {
    const first = json<{ dataDir: string; sessions: number; subagents: number; turnsAdded: number; featured: string }>(['demo', '--data-dir', dataDir]);
    assert.equal(first.dataDir, dataDir);
    assert.equal(first.sessions, allSessions);
    assert.equal(
      first.subagents,
      subagents.length +
        codexRecorded.length -
        codexRoots.length +
        openCodeChildren +
        copilotSubagents.length +
        copilotCliRecorded.length -
        copilotCliRoots.length,
    );
    assert.ok(first.turnsAdded >= 200, `${first.turnsAdded} turns`);
    const marker = readDemoMarker(dataDir);
    assert.ok(marker, `${DEMO_MARKER} written`);
    assert.equal(marker.featured, first.featured);
    assert.equal(marker.sessions, allSessions);

    const again = json<{ sessions: number; turnsAdded: number }>(['demo', '--data-dir', dataDir]);
    assert.equal(again.sessions, allSessions);
    assert.equal(again.turnsAdded, 0);
    assert.equal(json<{ sessions: SessionRow[] }>(['sessions', '--data-dir', dataDir, '--limit', '500']).sessions.length, allSessions);
    assert.ok(!fs.existsSync(env.BATON_DATA_DIR!), "the user's data directory was not created");
  });

  it('keeps the lineage: the featured session has parallel sub-agents and a nested one under one of them', () => {
    const { sessions } = json<{ sessions: SessionRow[] }>(['sessions', '--data-dir', dataDir, '--limit', '500']);
    const featured = readDemoMarker(dataDir)!.featured!;
    const root = sessions.find((s) => s.key === featured);
    assert.ok(root, `featured ${featured} stored`);
    assert.equal(root.parentSessionKey, null);
    const children = sessions.filter((s) => s.parentSessionKey === featured);
    assert.ok(children.length >= 2, `parallel sub-agents: ${children.map((c) => c.key).join(', ')}`);
    const nested = sessions.filter((s) => children.some((c) => c.key === s.parentSessionKey));
    assert.equal(nested.length, 1, 'one nested sub-agent');
    assert.ok(nested[0].key.startsWith(`${featured}/agent-`));
    assert.equal(sessions.filter((s) => s.parentSessionKey === null && s.harness === 'claude-code').length, roots.length);
    assert.equal(sessions.filter((s) => s.parentSessionKey === null && s.harness === 'copilot').length, copilotChats.length);
  });

  it('imports the recorded Codex sessions with their sub-agents: parallel, and nested under the spawning sub-agent', () => {
    assert.ok(codexRoots.length >= 2, `${codexRoots.length} recorded Codex sessions`);
    const bytes = codexRecorded.reduce((n, i) => n + fs.statSync(i.file).size, 0);
    assert.ok(bytes < 500 * 1024, `${bytes} bytes of Codex rollouts`);
    assert.ok(
      codexRecorded.every((i) => !/baton-demo-codex-/.test(fs.readFileSync(i.file, 'utf8'))),
      'temp paths were scrubbed',
    );
    const { sessions } = json<{ sessions: SessionRow[] }>(['sessions', '--data-dir', dataDir, '--limit', '500']);
    for (const item of codexRecorded) {
      const stored = sessions.find((s) => s.key === item.key);
      assert.ok(stored, `${item.key} stored`);
      assert.equal(stored.harness, 'codex');
      assert.equal(stored.parentSessionKey, item.parentKey ?? null, `${item.key}'s parent`);
      assert.ok(stored.turnCount > 0, `${item.key} has turns`);
    }
    // The story's first session spawns two sub-agents at once; one of them spawns its own.
    const spawner = codexRoots.find((r) => codexRecorded.filter((i) => i.parentKey === r.key).length >= 2);
    assert.ok(spawner, 'a Codex session with parallel sub-agents');
    const nested = codexRecorded.filter((i) => i.depth === 2);
    assert.equal(nested.length, 1, 'one nested Codex sub-agent');
    assert.ok(nested[0].key.startsWith(`${spawner.key}/agent-`), 'keyed under its root thread, as the live hooks key it');
    assert.ok(
      codexRecorded.some((i) => i.key === nested[0].parentKey && i.parentKey === spawner.key),
      'its parent is the sub-agent that spawned it',
    );
  });

  it('search finds the billing-staging rule in sessions of both harnesses', () => {
    const { sessions } = json<{ sessions: SessionRow[] }>(['sessions', '--data-dir', dataDir, '--limit', '500']);
    const harnessOf = new Map(sessions.map((s) => [s.key, s.harness]));
    const { hits } = json<{ hits: Array<{ sessionKey: string }> }>(['search', 'billing-staging', '--data-dir', dataDir, '--limit', '100']);
    const harnesses = new Set(hits.map((h) => harnessOf.get(h.sessionKey)));
    assert.ok(harnesses.has('claude-code') && harnesses.has('codex'), `hits from ${[...harnesses].join(', ')}`);
  });

  it("imports the OpenCode story: its sessions, their task sub-agents under them, and the staging rule's search finds both harnesses", () => {
    assert.ok(openCode.size >= 3 && openCodeChildren >= 1, `${openCode.size} OpenCode sessions, ${openCodeChildren} sub-agents recorded`);
    const { sessions } = json<{ sessions: SessionRow[] }>(['sessions', '--data-dir', dataDir, '--limit', '500']);
    for (const [key, parent] of openCode) {
      const row = sessions.find((s) => s.key === key);
      assert.ok(row, `${key} stored`);
      assert.equal(row.harness, 'opencode');
      assert.equal(row.parentSessionKey, parent, `${key}'s parent`);
      assert.ok(row.turnCount > 0);
    }
    const { hits } = json<{ hits: Array<{ sessionKey: string }> }>(['search', 'production database', '--data-dir', dataDir]);
    const harnesses = new Set(hits.map((h) => sessions.find((s) => s.key === h.sessionKey)?.harness));
    assert.ok(harnesses.has('claude-code') && harnesses.has('opencode'), `hits from both harnesses: ${JSON.stringify(hits)}`);
  });

  it('imports the GitHub Copilot CLI story: its sessions, two parallel task sub-agents and a nested one, keyed and placed as the live hooks key them', () => {
    assert.ok(copilotCliRoots.length >= 2, `${copilotCliRoots.length} recorded Copilot CLI sessions`);
    const logs = copilotCliRoots.map((r) => fs.readFileSync(r.file, 'utf8'));
    const bytes = logs.reduce((n, text) => n + Buffer.byteLength(text), 0);
    assert.ok(bytes < 400 * 1024, `${bytes} bytes of Copilot CLI logs`);
    assert.ok(
      logs.every((text) => !/baton-demo-cpcli-|\/tmp\//.test(text)),
      'temp paths were scrubbed',
    );
    assert.ok(
      logs.every((text) => !text.includes('"type":"system.message"')),
      "Copilot CLI's system prompts are left out",
    );
    const { sessions } = json<{ sessions: Array<SessionRow & { project?: string }> }>(['sessions', '--data-dir', dataDir, '--limit', '500']);
    for (const item of copilotCliRecorded) {
      const stored = sessions.find((s) => s.key === item.key);
      assert.ok(stored, `${item.key} stored`);
      assert.equal(stored.harness, 'copilot-cli');
      assert.equal(stored.parentSessionKey, item.parentKey ?? null, `${item.key}'s parent`);
      assert.ok(stored.turnCount > 0, `${item.key} has turns`);
    }
    // The first session starts two sub-agents in one step; one of them starts its own.
    const spawner = copilotCliRoots.find((r) => copilotCliRecorded.filter((i) => i.parentKey === r.key).length >= 2);
    assert.ok(spawner, 'a Copilot CLI session with parallel sub-agents');
    const nested = copilotCliRecorded.filter((i) => i.depth === 2);
    assert.equal(nested.length, 1, 'one nested Copilot CLI sub-agent');
    assert.ok(
      copilotCliRecorded.some((i) => i.key === nested[0].parentKey && i.parentKey === spawner.key),
      'its parent is the sub-agent that started it',
    );
    const claudeProjects = new Set(sessions.filter((s) => s.harness === 'claude-code').map((s) => s.project));
    const cliProjects = new Set(sessions.filter((s) => s.harness === 'copilot-cli').map((s) => s.project));
    assert.deepEqual([...cliProjects], [...claudeProjects], 'the same project as the Claude Code sessions');
    const { hits } = json<{ hits: Array<{ harness: string }> }>(['search', 'billing-staging', '--data-dir', dataDir, '--limit', '100']);
    assert.ok(
      hits.some((h) => h.harness === 'copilot-cli'),
      `the billing-staging rule is found in Copilot CLI sessions too: ${[...new Set(hits.map((h) => h.harness))].join(', ')}`,
    );
  });

  it("the user's constraint is a constraint of its session and searchable", () => {
    const featured = readDemoMarker(dataDir)!.featured!;
    const { constraints } = json<{ constraints: Array<{ sessionKey: string; content: string; active: boolean }> }>([
      'constraints',
      'list',
      '--data-dir',
      dataDir,
      '--session',
      featured,
    ]);
    assert.ok(
      constraints.some((c) => c.active && c.content.startsWith(CONSTRAINT)),
      JSON.stringify(constraints),
    );
    const { hits } = json<{ hits: Array<{ sessionKey: string; excerpt: string }> }>(['search', 'production database', '--data-dir', dataDir]);
    assert.equal(hits[0]?.sessionKey, featured, JSON.stringify(hits));
  });

  it("records the compaction: the summary is in the session's transcript after the compaction boundary", () => {
    const featured = readDemoMarker(dataDir)!.featured!;
    const { content } = json<{ content: string }>(['transcript', featured, '--data-dir', dataDir]);
    const boundary = content.indexOf('System: Conversation compacted');
    assert.ok(boundary > 0, 'the compaction boundary is a system turn');
    const summary = content.indexOf('Summary of the session so far', boundary);
    assert.ok(summary > boundary, 'the compaction summary follows it');
    assert.ok(content.indexOf('What is left before we can ship', summary) > summary, 'and the session goes on after it');
  });

  it('imports the VS Code agent mode chats: harness copilot, titled after their first prompt, runSubagent children under them, on the same project', () => {
    assert.ok(copilotChats.length >= 2, `${copilotChats.length} recorded Copilot chats`);
    assert.ok(copilotSubagents.length >= 2, `${copilotSubagents.length} recorded Copilot sub-agents`);
    const files = chatSessionFiles(RECORDED_COPILOT);
    const bytes = files.reduce((n, f) => n + fs.statSync(f).size, 0);
    assert.ok(bytes < 500 * 1024, `${bytes} bytes recorded`);
    assert.ok(
      files.every((f) => !/baton-chatview-|\/tmp\//.test(fs.readFileSync(f, 'utf8'))),
      'temp paths were scrubbed',
    );
    const { sessions } = json<{ sessions: Array<SessionRow & { title?: string; project?: string }> }>(['sessions', '--data-dir', dataDir, '--limit', '500']);
    const copilot = sessions.filter((s) => s.harness === 'copilot');
    assert.equal(copilot.length, copilotChats.length + copilotSubagents.length);
    for (const chat of copilotChats) {
      const root = copilot.find((s) => s.key === chat.sessionId);
      assert.ok(root, `chat ${chat.sessionId} stored`);
      assert.equal(root.parentSessionKey, null);
      assert.equal(root.title, chat.messages[0].content.split('\n')[0]);
      const children = copilot.filter((s) => s.parentSessionKey === chat.sessionId);
      assert.deepEqual(children.map((c) => c.title).sort(), chat.subagents.map((a) => a.description).sort());
      for (const child of children) assert.ok(child.key.startsWith(`${chat.sessionId}/agent-call_`), child.key);
    }
    assert.ok(
      copilot.some((s) => s.title?.startsWith('Review the double-charge fix')),
      copilot.map((s) => s.title).join(', '),
    );
    // Parallel sub-agents: one chat started two in one step.
    assert.ok(copilotChats.some((c) => c.subagents.length >= 2));
    const claudeProjects = new Set(sessions.filter((s) => s.harness === 'claude-code').map((s) => s.project));
    assert.deepEqual([...new Set(copilot.map((s) => s.project))], [...claudeProjects], 'the same project as the Claude Code sessions');
    // The team's billing-staging rule is found in both harnesses' sessions.
    const { hits } = json<{ hits: Array<{ harness: string }> }>(['search', 'billing-staging', '--data-dir', dataDir, '--limit', '20']);
    const found = new Set(hits.map((h) => h.harness));
    assert.ok(found.has('copilot') && found.has('claude-code'), `hits in ${[...found].join(', ')}`);
  });

  it('goes into $XDG_DATA_HOME/baton-demo by default, and --remove deletes it', () => {
    const made = json<{ dataDir: string }>(['demo']);
    assert.equal(made.dataDir, path.join(env.XDG_DATA_HOME!, 'baton-demo'));
    assert.ok(readDemoMarker(made.dataDir));
    assert.deepEqual(json<{ removed: boolean }>(['demo', '--remove']), { dataDir: made.dataDir, removed: true });
    assert.ok(!fs.existsSync(made.dataDir));
    assert.deepEqual(json<{ removed: boolean }>(['demo', '--remove']), { dataDir: made.dataDir, removed: false });
  });

  it('npm start: prepareStartDemo fills a demo directory and names it, with the focus flag, for the VS Code host', () => {
    const dir = path.join(home, 'host-demo');
    const start = prepareStartDemo(ROOT, dir);
    assert.equal(start.dataDir, dir);
    assert.deepEqual(start.env, { BATON_DATA_DIR: dir, BATON_DEMO_FOCUS: '1' });
    assert.deepEqual(start.hostFlags, ['--disable-workspace-trust']);
    assert.equal(start.featured, readDemoMarker(dir)?.featured);
    assert.ok(start.featured);
    // A directory with other data is refused, with the CLI's reason.
    assert.throws(() => prepareStartDemo(ROOT, home), /not Baton's demo/);
  });

  it("refuses the user's data directory and any directory that holds other data, and removes only demo directories", () => {
    const real = env.BATON_DATA_DIR!;
    const intoReal = cli(['demo', '--data-dir', real]);
    assert.equal(intoReal.status, 1);
    assert.match(intoReal.stderr, /your Baton data directory/);
    assert.ok(!fs.existsSync(real));

    const other = path.join(home, 'other');
    fs.mkdirSync(other);
    fs.writeFileSync(path.join(other, 'keep.txt'), 'mine');
    const into = cli(['demo', '--data-dir', other]);
    assert.equal(into.status, 1);
    assert.match(into.stderr, /not Baton's demo/);
    const remove = cli(['demo', '--remove', '--data-dir', other]);
    assert.equal(remove.status, 1);
    assert.match(remove.stderr, /not a Baton demo directory/);
    assert.equal(fs.readFileSync(path.join(other, 'keep.txt'), 'utf8'), 'mine');
  });
});
