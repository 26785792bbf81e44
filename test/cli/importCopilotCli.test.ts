// `baton import copilot-cli`'s importer, called directly (the harness joins the registry in its own
// change), into a real data directory: through the store opened in-process and through a running
// server on 127.0.0.1. The source is a log the real Copilot CLI 1.0.102 wrote
// (test/fixtures/copilotCli/session-state: a session that starts two sub-agents in parallel, one of
// which starts its own; its system prompts left out), plus logs that are not Copilot CLI's, empty,
// torn, a FIFO and symlinks to outside the folder.

import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Obj } from '../../src/core/normalize';
import { cliTurns, copilotCliTranscript } from '../../src/harnesses/copilotCli/events';
import {
  COPILOT_CLI_IMPORTER,
  featuredCopilotCliSession,
  importCopilotCli,
  scanCopilotCliSessions,
  sessionOwnText,
  type CopilotCliImportResult,
} from '../../src/harnesses/copilotCli/import';
import { startDaemon } from '../../src/server/daemon';
import { openApi } from '../../src/server/localApi';
import type { TreeNode } from '../../src/store/queries';
import { Store } from '../../src/store/store';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';

const FIXTURE = path.join(__dirname, '..', 'fixtures', 'copilotCli', 'session-state');
const SESSION = 'b3695a2b-6c2e-4447-825a-c18dfbbd8099';
/** The sub-agents the session started (alpha starts grand). */
const ALPHA = '70acc7aa-5de9-403c-af7c-16d07cc478ac';
const BETA = '4e7b3cc7-a266-4603-ad03-2fc49774121f';
const GRAND = '543936b3-e117-40a5-aa83-8bee8c1de357';
const PROJECT = '/tmp/cpl/proj';

/** A copy of the recorded session-state folder. */
function sessionStateCopy(): string {
  const dir = path.join(tempDir('baton-import-copilot-cli-'), 'session-state');
  fs.cpSync(FIXTURE, dir, { recursive: true });
  return dir;
}

function recordsOf(file: string): Obj[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Obj);
}

const fixtureLog = path.join(FIXTURE, SESSION, 'events.jsonl');

/** Imports `source` into `dataDir` (through the server when one holds it, else the store), collecting the warnings. */
async function importInto(source: string, dataDir: string): Promise<{ result: CopilotCliImportResult; warnings: string[] }> {
  const warnings: string[] = [];
  const result = await importCopilotCli({ source, open: () => openApi(dataDir, { holder: 'test import' }), onWarning: (m) => warnings.push(m) });
  return { result, warnings };
}

function find(roots: TreeNode[], key: string): TreeNode | undefined {
  for (const node of roots) {
    if (node.key === key) return node;
    const below = find(node.children, key);
    if (below) return below;
  }
  return undefined;
}

async function withStore<T>(dataDir: string, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = await Store.open({ dataDir });
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

const turnsOf = async (store: Store, key: string) => (await store.read('turns', { scope: 'all', key, from: 1, limit: 500 })).turns.map((t) => [t.role, t.text]);

/** What the live reading of the log gives for `owner` (undefined: the session's own turns). */
const liveTurns = (owner?: string) => cliTurns(recordsOf(fixtureLog), owner).map((t) => [t.role, t.text]);

/** The recorded session, its three sub-agents and their turns are stored as the live hooks store them. */
async function assertRecordedStory(store: Store): Promise<void> {
  const get = async (key: string) => (await store.read('getSession', { scope: 'all', key }))!;
  const main = await get(SESSION);
  assert.equal(main.harness, 'copilot-cli');
  assert.equal(main.project, PROJECT);
  assert.equal(main.parentSessionKey, null);
  assert.equal(main.endReason, 'import');
  assert.equal(main.title, 'Remember codename PARENTMARK. Delegate.', 'named after its first prompt');
  const expected = [
    [ALPHA, SESSION, 'general-purpose', 'alpha work'],
    [BETA, SESSION, 'explore', 'beta work'],
    [GRAND, ALPHA, 'general-purpose', 'grandchild'],
  ];
  for (const [key, parent, type, title] of expected) {
    const sub = await get(key);
    assert.equal(sub.harness, 'copilot-cli');
    assert.equal(sub.parentSessionKey, parent, `${key}'s parent`);
    assert.equal(sub.harnessAgentId, key);
    assert.equal(sub.harnessAgentType, type);
    assert.equal(sub.title, title, 'its task description');
    assert.equal(sub.status, 'completed', 'the log says it completed');
    assert.equal(sub.project, PROJECT);
  }
  const tree = await store.read('tree', { scope: 'all' });
  assert.deepEqual(
    find(tree, SESSION)!
      .children.map((c) => c.key)
      .sort(),
    [ALPHA, BETA].sort(),
  );
  assert.deepEqual(
    find(tree, ALPHA)!.children.map((c) => c.key),
    [GRAND],
  );
  assert.deepEqual(find(tree, BETA)!.children, []);

  // The session's own turns only: its sub-agents' events in the same file are theirs.
  const mainTurns = await turnsOf(store, SESSION);
  assert.deepEqual(mainTurns, liveTurns());
  assert.deepEqual(mainTurns[0], ['user', 'Remember codename PARENTMARK. Delegate.']);
  assert.deepEqual(mainTurns.at(-1), ['assistant', 'PARENT-FINAL']);
  assert.ok(!mainTurns.some((t) => /ALPHA task NESTME/.test(t[1]) && t[0] === 'user'), "a sub-agent's task is not the session's prompt");
  // Each sub-agent: its task as its first user turn, then its own work and its reply.
  assert.deepEqual(await turnsOf(store, ALPHA), liveTurns(ALPHA));
  assert.deepEqual((await turnsOf(store, ALPHA))[0], ['user', 'ALPHA task NESTME']);
  assert.match((await turnsOf(store, ALPHA))[1][1], /^task\(\{"agent_type":"general-purpose","name":"grand"/);
  assert.deepEqual((await turnsOf(store, ALPHA)).at(-1), ['assistant', 'SUB-DONE']);
  assert.deepEqual(await turnsOf(store, BETA), [
    ['user', 'BETA task'],
    ['assistant', 'SUB-REPLY done HASCTX'],
  ]);
  assert.deepEqual(await turnsOf(store, GRAND), [
    ['user', 'GRANDCHILD task do it'],
    ['assistant', 'SUB-REPLY done HASCTX'],
  ]);
}

describe('baton import copilot-cli (a log the real Copilot CLI wrote)', function () {
  this.timeout(60_000);
  after(cleanupTempDirs);

  it('scans the session and its three sub-agents, the nested one under its spawner, parents first', () => {
    const items = scanCopilotCliSessions(FIXTURE);
    assert.deepEqual(
      items.map((i) => [i.key, i.parentKey ?? null, i.agentId ?? null, i.agentType ?? null, i.depth, i.title ?? null, i.status ?? null]),
      [
        [SESSION, null, null, null, 0, null, null],
        [ALPHA, SESSION, ALPHA, 'general-purpose', 1, 'alpha work', 'completed'],
        [BETA, SESSION, BETA, 'explore', 1, 'beta work', 'completed'],
        [GRAND, ALPHA, GRAND, 'general-purpose', 2, 'grandchild', 'completed'],
      ],
    );
    assert.equal(items[0].project, PROJECT);
    assert.equal(featuredCopilotCliSession(FIXTURE), SESSION);
    // The same from one session's folder or its log.
    for (const source of [path.join(FIXTURE, SESSION), fixtureLog])
      assert.deepEqual(
        scanCopilotCliSessions(source).map((i) => [i.key, i.parentKey ?? null, i.depth]),
        items.map((i) => [i.key, i.parentKey ?? null, i.depth]),
      );
    assert.equal(COPILOT_CLI_IMPORTER.label, 'GitHub Copilot CLI');
    assert.equal(COPILOT_CLI_IMPORTER.source.as, 'argument');
    assert.match(COPILOT_CLI_IMPORTER.source.help, /\$COPILOT_HOME\/session-state or ~\/\.copilot\/session-state/);
  });

  it("sends the session as its own lines of the log: the same turns, none of its sub-agents' events", () => {
    const raw = fs.readFileSync(fixtureLog, 'utf8');
    const own = sessionOwnText(raw + '{"type":"assistant.message","data":{"content":"to');
    const records = own
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Obj);
    assert.ok(records.length > 10 && records.every((r) => r.agentId === undefined), 'no sub-agent event, no torn line');
    assert.equal(records[0].type, 'session.start', 'its first line still says whose log it is');
    assert.ok(own.length < raw.length / 2, `${own.length} of ${raw.length} characters`);
    assert.ok(raw.includes(own.split('\n')[5]), 'lines as Copilot CLI wrote them');
    assert.deepEqual(
      copilotCliTranscript.parse(records).map((t) => [t.role, t.text]),
      liveTurns(),
    );
  });

  it('imports into the store (no server): lineage, turns, titles; twice adds nothing', async () => {
    const source = sessionStateCopy();
    const dataDir = path.join(tempDir('baton-import-copilot-cli-data-'), 'data');
    const { result, warnings } = await importInto(source, dataDir);
    assert.deepEqual(warnings, []);
    assert.equal(result.via, 'store');
    assert.equal(result.files, 1);
    assert.equal(result.sessions, 4);
    assert.equal(result.subagents, 3);
    assert.equal(result.created, 4);
    assert.equal(result.skipped, 0);
    await withStore(dataDir, async (store) => {
      await assertRecordedStory(store);
      assert.equal(result.turnsAdded, (await store.read('stats', {})).turns);
    });

    const again = await importInto(source, dataDir);
    assert.deepEqual(again.warnings, []);
    assert.equal(again.result.sessions, 4);
    assert.equal(again.result.created, 0);
    assert.equal(again.result.turnsAdded, 0);
    await withStore(dataDir, assertRecordedStory);
  });

  it('writes through the running server; the folder imported afterwards in-process adds nothing', async () => {
    const source = sessionStateCopy();
    const dataDir = path.join(tempDir('baton-import-copilot-cli-data-'), 'data');
    fs.mkdirSync(dataDir, { recursive: true });
    const daemon = await startDaemon({ dataDir, port: 0 });
    try {
      assert.match(daemon.server.url, /^http:\/\/127\.0\.0\.1:/);
      const { result, warnings } = await importInto(path.join(source, SESSION, 'events.jsonl'), dataDir);
      assert.deepEqual(warnings, []);
      assert.equal(result.via, 'server');
      assert.equal(result.created, 4);
      assert.equal(result.subagents, 3);
    } finally {
      await daemon.stop();
    }
    const after = await importInto(path.join(source, SESSION), dataDir);
    assert.equal(after.result.via, 'store');
    assert.equal(after.result.created, 0);
    assert.equal(after.result.turnsAdded, 0);
    await withStore(dataDir, assertRecordedStory);
  });

  it("skips another harness's log, VS Code agent mode's and an empty one with warnings; a torn last line is left for the next import", async () => {
    const source = sessionStateCopy();
    const log = path.join(source, SESSION, 'events.jsonl');
    const full = fs.readFileSync(log, 'utf8');
    // Copilot CLI was writing the parent's final reply: the log ends in the middle of its line.
    const cut = full.indexOf('"content":"PARENT-FINAL"');
    fs.writeFileSync(log, full.slice(0, cut));
    const claude = path.join(source, 'claude', 'events.jsonl');
    fs.mkdirSync(path.dirname(claude));
    fs.writeFileSync(claude, '{"type":"user","sessionId":"c1","message":{"role":"user","content":"not Copilot CLI"}}\n');
    const vscode = path.join(source, 'vscode', 'events.jsonl');
    fs.mkdirSync(path.dirname(vscode));
    const [start, ...rest] = full.split('\n');
    const vscodeStart = JSON.parse(start) as { data: Record<string, unknown> };
    vscodeStart.data.vscodeVersion = '1.107.0';
    vscodeStart.data.sessionId = 'vscode-session';
    fs.writeFileSync(vscode, [JSON.stringify(vscodeStart), ...rest].join('\n'));
    const empty = path.join(source, 'empty', 'events.jsonl');
    fs.mkdirSync(path.dirname(empty));
    fs.writeFileSync(empty, '\n');
    fs.mkdirSync(path.join(source, 'no-log')); // a folder without a log is no session
    fs.writeFileSync(path.join(source, 'stray.lock'), ''); // nor is a file beside the folders
    // A session opened and left before any prompt: nothing to show, skipped without a warning.
    const quitStart = JSON.parse(start) as { data: Record<string, unknown> };
    quitStart.data.sessionId = 'quit-session';
    fs.mkdirSync(path.join(source, 'quit-session'));
    fs.writeFileSync(path.join(source, 'quit-session', 'events.jsonl'), JSON.stringify(quitStart) + '\n');
    const dataDir = path.join(tempDir('baton-import-copilot-cli-data-'), 'data');

    const { result, warnings } = await importInto(source, dataDir);
    assert.equal(result.files, 5);
    assert.equal(result.sessions, 4);
    assert.equal(result.skipped, 4);
    assert.deepEqual(warnings, [
      `${claude}: skipped, not a GitHub Copilot CLI session log`,
      `${empty}: skipped, empty (no event in it)`,
      `${vscode}: skipped, not a GitHub Copilot CLI session log`,
    ]);
    assert.deepEqual(result.warnings, warnings);
    await withStore(dataDir, async (store) => {
      assert.deepEqual(await turnsOf(store, SESSION), liveTurns().slice(0, -1), 'every complete line, the torn one left out');
      assert.equal(await store.read('getSession', { scope: 'all', key: 'vscode-session' }), null);
      assert.equal(await store.read('getSession', { scope: 'all', key: 'c1' }), null);
      assert.equal(await store.read('getSession', { scope: 'all', key: 'quit-session' }), null);
    });

    // Copilot CLI finished the line: the next import adds just that reply.
    fs.writeFileSync(log, full);
    const next = await importInto(source, dataDir);
    assert.equal(next.result.created, 0);
    assert.equal(next.result.turnsAdded, 1);
    await withStore(dataDir, assertRecordedStory);
  });

  it('skips a FIFO log, a symlinked log and a symlinked session folder outside the source with warnings naming them, and finishes', async function () {
    if (process.platform === 'win32') this.skip();
    const source = sessionStateCopy();
    const fifo = path.join(source, 'fifo-session', 'events.jsonl');
    fs.mkdirSync(path.dirname(fifo));
    assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
    const outside = tempDir('baton-import-copilot-cli-outside-');
    fs.cpSync(path.join(FIXTURE, SESSION), path.join(outside, 'elsewhere'), { recursive: true });
    const link = path.join(source, 'linked-log', 'events.jsonl');
    fs.mkdirSync(path.dirname(link));
    fs.symlinkSync(path.join(outside, 'elsewhere', 'events.jsonl'), link);
    const linkedFolder = path.join(source, 'linked-folder');
    fs.symlinkSync(path.join(outside, 'elsewhere'), linkedFolder);
    const dataDir = path.join(tempDir('baton-import-copilot-cli-data-'), 'data');

    // A blocking read of the FIFO would hang the import until the test's timeout.
    const { result, warnings } = await importInto(source, dataDir);
    assert.equal(result.files, 4);
    assert.equal(result.sessions, 4, 'the recorded session and its sub-agents');
    assert.equal(result.skipped, 3);
    const root = fs.realpathSync(source);
    assert.deepEqual(warnings, [
      `${fifo}: skipped, cannot be read (not a regular file but a FIFO)`,
      `${path.join(linkedFolder, 'events.jsonl')}: skipped, cannot be read (not a file under ${root})`,
      `${link}: skipped, cannot be read (a symlink to outside ${root})`,
    ]);
  });

  it('fails with a clear message when the source does not exist', async () => {
    const base = tempDir('baton-import-copilot-cli-missing-');
    let opened = false;
    await assert.rejects(
      importCopilotCli({
        source: path.join(base, 'nope'),
        open: async () => {
          opened = true;
          throw new Error('never opened');
        },
      }),
      /does not exist \(expected Copilot CLI's session-state folder/,
    );
    assert.equal(opened, false, 'the API is not opened for a source that is not there');
  });
});
