// `baton demo` with the built CLI (dist/cli.js: `npm run build` first), real processes, real files:
// the recorded Claude Code transcripts in demo/sessions/ go through `baton import`'s code into a
// marked demo data directory; lineage (parallel and nested sub-agents), the stated constraint,
// search and the compaction come out of the store; it never writes into the user's data.

import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { scanClaudeProjects } from '../../src/harnesses/claudeCode/import';
import { parseChatSession } from '../../src/harnesses/copilot/chatSessions';
import { chatSessionFiles } from '../../src/harnesses/copilot/import';
import { DEMO_MARKER, readDemoMarker } from '../../src/node/demoData';
import { prepareStartDemo } from '../../scripts/startDemo';
import { CLI, ROOT, runCli } from '../helpers/child';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';

const RECORDED = path.join(ROOT, 'demo', 'sessions', 'claude-code');
const RECORDED_COPILOT = path.join(ROOT, 'demo', 'sessions', 'copilot');
const CONSTRAINT = 'Never touch the production database';

interface SessionRow {
  key: string;
  parentSessionKey: string | null;
  harness: string;
  status: string;
  turnCount: number;
}

describe('baton demo (built CLI, recorded Claude Code sessions and VS Code agent mode chats)', function () {
  this.timeout(120_000);

  let home: string;
  let env: NodeJS.ProcessEnv;
  let dataDir: string;
  const recorded = scanClaudeProjects(RECORDED);
  const roots = recorded.filter((i) => i.depth === 0);
  const subagents = recorded.filter((i) => i.depth > 0);
  // VS Code agent mode's chats (demo/sessions/copilot), each with its runSubagent children.
  const copilotChats = chatSessionFiles(RECORDED_COPILOT).map((f) => parseChatSession(fs.readFileSync(f, 'utf8'), path.basename(f, '.jsonl'))!);
  const copilotSubagents = copilotChats.flatMap((c) => c.subagents);
  /** Every recorded session of every harness. */
  const allSessions = recorded.length + copilotChats.length + copilotSubagents.length;

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
    assert.equal(first.subagents, subagents.length + copilotSubagents.length);
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
    assert.equal(sessions.filter((s) => s.parentSessionKey === null).length, roots.length + copilotChats.length);
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
