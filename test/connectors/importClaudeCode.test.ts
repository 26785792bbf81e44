// `baton import claude-code`: a fake but realistic ~/.claude/projects tree (fixtures: a main session
// with a sub-agent and a nested sub-agent whose meta names its spawner, a second project, a corrupt
// file, an empty file) imported into a real data directory, both with the store opened directly and
// through a running server. Runs the built CLI (dist/cli.js) when it has the command, else the same
// commander command in-process.

import { strict as assert } from 'node:assert';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Command, Option } from 'commander';
import { importSummary, registerImportCommands } from '../../src/cli/importCommands';
import { importClaudeCode, parseClaudeTranscript, scanClaudeProjects, type ImportResult } from '../../src/harnesses/claudeCode/import';
import { normalizeTranscript } from '../../src/harnesses/registry';
import { startDaemon, type Daemon } from '../../src/server/daemon';
import { openApi } from '../../src/server/localApi';
import type { TreeNode } from '../../src/store/queries';
import { Store } from '../../src/store/store';
import { CLI, ROOT } from '../helpers/child';
import { run as runProcess } from '../shared/claudeCli';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'claude-projects');
const S1 = '5f0c2a9e-8d1b-4c3e-9a7f-2b6d1e4c8a01';
const S2 = '9b3e7d12-4a5f-4e8c-b1d6-7c2a9f0e3b54';
const CORRUPT = '0d4c6b2a-1e3f-4a5b-8c7d-9e0f1a2b3c4d.jsonl';
const EXPLORE = `${S1}/agent-a3f9c21`;
const NESTED = `${S1}/agent-b7d4e88`;

function projectsCopy(): string {
  const dir = path.join(tempDir('baton-import-src-'), 'projects');
  fs.cpSync(FIXTURES, dir, { recursive: true });
  return dir;
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Whether dist/cli.js has the command (it does once src/cli.ts registers it and `npm run build` ran). */
const builtCliHasImport = (() => {
  if (!fs.existsSync(CLI)) return false;
  const help = spawnSync(process.execPath, [CLI, 'import', 'claude-code', '--help'], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });
  return help.status === 0 && /Usage: baton import claude-code/.test(help.stdout);
})();

/** `baton import claude-code …`: the built CLI as a child process (async: a server may run in this process), or the command in-process. */
async function batonImport(args: string[]): Promise<Run> {
  if (builtCliHasImport) {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [CLI, 'import', 'claude-code', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
  }
  const program = new Command('baton').exitOverride();
  let stdout = '';
  let stderr = '';
  registerImportCommands(program, {
    dataDirOption: () => new Option('--data-dir <dir>', 'data directory'),
    out: (text) => (stdout += text.endsWith('\n') ? text : text + '\n'),
  });
  const write = process.stderr.write;
  process.stderr.write = ((chunk: string | Uint8Array) => ((stderr += String(chunk)), true)) as typeof process.stderr.write;
  try {
    await program.parseAsync(['import', 'claude-code', ...args], { from: 'user' });
    return { code: 0, stdout, stderr };
  } catch (err) {
    return { code: 1, stdout, stderr: stderr + `error: ${(err as Error).message}\n` };
  } finally {
    process.stderr.write = write;
  }
}

function find(roots: TreeNode[], key: string): TreeNode | undefined {
  for (const node of roots) {
    if (node.key === key) return node;
    const below = find(node.children, key);
    if (below) return below;
  }
  return undefined;
}

/** What the live connector would store from the untouched file. */
function liveTurns(file: string) {
  return normalizeTranscript(fs.readFileSync(file, 'utf8'), { harness: 'claude-code' }).map((t) => [t.role, t.text]);
}

describe('baton import claude-code', function () {
  this.timeout(60_000);
  after(cleanupTempDirs);

  it(`scans main sessions, sub-agents and nested sub-agents, parents first (CLI: ${builtCliHasImport ? 'dist/cli.js' : 'in-process command'})`, () => {
    const items = scanClaudeProjects(FIXTURES);
    assert.deepEqual(
      items.map((i) => [i.key, i.parentKey ?? null, i.agentType ?? null, i.depth]),
      [
        [CORRUPT.replace('.jsonl', ''), null, null, 0],
        [S2, null, null, 0],
        ['e7a1c3d5-2b4f-4c6e-8a0b-1d3f5a7c9e2b', null, null, 0],
        [S1, null, null, 0],
        [EXPLORE, S1, 'Explore', 1],
        [NESTED, EXPLORE, 'general-purpose', 2],
      ],
    );
    const parsed = parseClaudeTranscript(fs.readFileSync(path.join(FIXTURES, '-home-dev-shop', `${S1}.jsonl`), 'utf8'))!;
    assert.equal(parsed.cwd, '/home/dev/shop');
    assert.equal(parsed.startedAt, '2026-03-02T09:14:03.120Z');
    assert.ok(!parsed.text.includes('thinking'), 'private reasoning is not sent');
    assert.equal(parseClaudeTranscript('\u0000PK garbage\n<<<x>>>\n'), null);
  });

  it('imports into the store (no server), with lineage, transcripts and a warning for the corrupt file; twice adds nothing', async () => {
    const projects = projectsCopy();
    const dataDir = tempDir('baton-import-data-');
    const first = await batonImport([projects, '--data-dir', dataDir, '--json']);
    assert.equal(first.code, 0, first.stderr);
    const result = JSON.parse(first.stdout) as ImportResult;
    assert.equal(result.via, 'store');
    assert.equal(result.sessions, 4);
    assert.equal(result.subagents, 2);
    assert.equal(result.created, 4);
    assert.equal(result.skipped, 2, 'the corrupt file and the empty one');
    assert.equal(result.warnings.length, 1);
    assert.ok(result.warnings[0].includes(CORRUPT) && /not a Claude Code transcript/.test(result.warnings[0]));
    assert.match(first.stderr, new RegExp(`warning: .*${CORRUPT}: skipped, not a Claude Code transcript`));
    assert.ok(!first.stderr.includes('\r'), 'no progress line when stderr is not a terminal');

    const store = await Store.open({ dataDir });
    try {
      const get = (key: string) => store.read('getSession', { scope: 'all', key });
      const turns = async (key: string) => (await store.read('turns', { scope: 'all', key, from: 1, limit: 500 })).turns.map((t) => [t.role, t.text]);
      const main = (await get(S1))!;
      assert.equal(main.harness, 'claude-code');
      assert.equal(main.project, '/home/dev/shop');
      assert.equal(main.status, 'ended');
      assert.equal(main.endReason, 'import');
      assert.equal(main.parentSessionKey, null);
      const explore = (await get(EXPLORE))!;
      assert.equal(explore.parentSessionKey, S1);
      assert.equal(explore.lineageSource, 'explicit');
      assert.equal(explore.harnessAgentId, 'a3f9c21');
      assert.equal(explore.harnessAgentType, 'Explore');
      assert.equal(explore.project, '/home/dev/shop');
      const nested = (await get(NESTED))!;
      assert.equal(nested.parentSessionKey, EXPLORE, "the meta file's parentAgentId names the spawner");
      assert.equal(nested.harnessAgentType, 'general-purpose');
      assert.equal((await get(S2))!.project, '/home/dev/blog');
      assert.equal(await get(CORRUPT.replace('.jsonl', '')), null);

      const tree = await store.read('tree', { scope: 'all' });
      assert.deepEqual(
        find(tree, S1)!.children.map((c) => c.key),
        [EXPLORE],
      );
      assert.deepEqual(
        find(tree, EXPLORE)!.children.map((c) => c.key),
        [NESTED],
      );

      // Exactly what the live connector reads from the same files (thinking, images and snapshots dropped).
      const mainTurns = await turns(S1);
      assert.deepEqual(mainTurns, liveTurns(path.join(projects, '-home-dev-shop', `${S1}.jsonl`)));
      assert.deepEqual(
        mainTurns.map((t) => t[0]),
        ['user', 'assistant', 'tool', 'tool', 'assistant'],
      );
      assert.match(mainTurns[0][1], /CHECKOUT-7731/);
      assert.match(mainTurns[2][1], /^Agent\(\{"description":"Map payment call sites"/);
      assert.deepEqual(await turns(EXPLORE), liveTurns(path.join(projects, '-home-dev-shop', S1, 'subagents', 'agent-a3f9c21.jsonl')));
      assert.match((await turns(NESTED)).at(-1)![1], /REFUND-5520/);
      assert.deepEqual(await turns(S2), [
        ['system', 'Draft the release notes for 2.0'],
        ['user', 'Draft the release notes for 2.0 from CHANGELOG.md'],
        ['assistant', 'Here is a draft: 2.0 adds offline mode and drops Node 18.'],
      ]);
      const turnsStored = (await store.read('stats', {})).turns;
      assert.equal(result.turnsAdded, turnsStored);
    } finally {
      await store.close();
    }

    const second = await batonImport([projects, '--data-dir', dataDir, '--json']);
    assert.equal(second.code, 0, second.stderr);
    const again = JSON.parse(second.stdout) as ImportResult;
    assert.equal(again.turnsAdded, 0);
    assert.equal(again.created, 0);
    assert.equal(again.sessions, 4);
    const text = await batonImport([projects, '--data-dir', dataDir]);
    assert.equal(text.stdout.trim(), 'imported 4 sessions (2 sub-agents), 0 turns added; 4 already stored, 2 files skipped');
  });

  it('writes through the running server, adds only what the live hooks missed, and sends large files reduced', async () => {
    const projects = projectsCopy();
    // A pasted 9 MB screenshot: over the server's 8 MB body cap as a file, small once images are dropped.
    const shotSession = 'a0b1c2d3-e4f5-4a6b-8c7d-9e8f7a6b5c4d';
    const shotLines = [
      {
        parentUuid: null,
        isSidechain: false,
        userType: 'external',
        cwd: '/home/dev/shop',
        sessionId: shotSession,
        version: '2.1.328',
        type: 'user',
        uuid: 'aa000000-0000-4000-8000-000000000001',
        timestamp: '2026-03-04T08:00:00.000Z',
        message: {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo'.padEnd(9 * 1024 * 1024, 'A') } },
            { type: 'text', text: 'Why is the checkout button misaligned? (marker SCREENSHOT-3310)' },
          ],
        },
      },
      {
        parentUuid: 'aa000000-0000-4000-8000-000000000001',
        isSidechain: false,
        userType: 'external',
        cwd: '/home/dev/shop',
        sessionId: shotSession,
        version: '2.1.328',
        type: 'assistant',
        uuid: 'aa000000-0000-4000-8000-000000000002',
        timestamp: '2026-03-04T08:00:04.000Z',
        message: {
          id: 'msg_01Shot',
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-4-5-20250929',
          content: [{ type: 'text', text: 'The flex container lacks align-items: center.' }],
        },
      },
    ];
    fs.writeFileSync(path.join(projects, '-home-dev-shop', `${shotSession}.jsonl`), shotLines.map((l) => JSON.stringify(l)).join('\n') + '\n');

    const dataDir = tempDir('baton-import-live-');
    let daemon: Daemon | null = await startDaemon({ dataDir, port: 0 });
    try {
      const api = async (method: string, route: string, body?: unknown) => {
        const res = await fetch(daemon!.server.url + route, {
          method,
          headers: { authorization: `Bearer ${daemon!.token}`, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return (await res.json()) as any;
      };
      // The live hook saw S2 start and its first prompt (status active, one turn).
      await api('POST', '/api/hooks/session-start', { harness: 'claude-code', sessionKey: S2, project: '/home/dev/blog', source: 'startup' });
      await api('POST', '/api/hooks/user-prompt-submit', {
        harness: 'claude-code',
        sessionKey: S2,
        project: '/home/dev/blog',
        userPrompt: 'Draft the release notes for 2.0 from CHANGELOG.md',
      });

      const first = await batonImport([projects, '--data-dir', dataDir, '--json']);
      assert.equal(first.code, 0, first.stderr);
      const result = JSON.parse(first.stdout) as ImportResult;
      assert.equal(result.via, 'server');
      assert.equal(result.sessions, 5);
      assert.equal(result.subagents, 2);
      assert.equal(result.created, 4, 'S2 was already there');
      assert.equal(result.warnings.length, 1);

      const { roots } = (await api('GET', '/api/sessions/tree')) as { roots: TreeNode[] };
      assert.equal(find(roots, NESTED)!.parentSessionKey, EXPLORE);
      assert.equal(find(roots, EXPLORE)!.parentSessionKey, S1);
      assert.equal(find(roots, EXPLORE)!.harnessAgentType, 'Explore');
      const s2 = await api('GET', `/api/sessions/${S2}`);
      assert.equal(s2.status, 'active', 'a session the live hooks know keeps its state');
      const s2Turns = (await api('GET', `/api/sessions/${S2}/turns`)).turns as Array<{ role: string; text: string }>;
      assert.deepEqual(
        s2Turns.map((t) => t.role),
        ['user', 'system', 'assistant'],
        'the prompt is not stored twice',
      );
      const shot = (await api('GET', `/api/sessions/${shotSession}/transcript`)).content as string;
      assert.equal(shot, 'User: Why is the checkout button misaligned? (marker SCREENSHOT-3310)\nAssistant: The flex container lacks align-items: center.');
      const nestedTranscript = (await api('GET', `/api/sessions/${encodeURIComponent(NESTED)}/transcript`)).content as string;
      assert.match(nestedTranscript, /REFUND-5520/);
      const search = (await api('POST', '/api/sessions/search', { query: 'CHECKOUT-7731', limit: 5 })).hits as Array<{ sessionKey: string }>;
      assert.deepEqual(
        search.map((h) => h.sessionKey),
        [S1],
      );

      const second = await batonImport([projects, '--data-dir', dataDir, '--json']);
      assert.equal(second.code, 0, second.stderr);
      const again = JSON.parse(second.stdout) as ImportResult;
      assert.equal(again.via, 'server');
      assert.equal(again.turnsAdded, 0);
      assert.equal(again.created, 0);
      assert.equal(importSummary(again), 'imported 5 sessions (2 sub-agents), 0 turns added; 5 already stored, 2 files skipped');
    } finally {
      await daemon?.stop();
      daemon = null;
    }
  });

  it('skips a FIFO transcript, a FIFO sub-agent meta file and a symlink to outside the folder with warnings naming them, and finishes', async function () {
    if (process.platform === 'win32') this.skip();
    const projects = projectsCopy();
    const shop = path.join(projects, '-home-dev-shop');
    const subagents = path.join(shop, S1, 'subagents');
    const fifo = path.join(shop, 'f1f0f1f0-0000-4000-8000-000000000001.jsonl');
    const fifoMeta = path.join(subagents, 'agent-c0ffee1.meta.json');
    fs.copyFileSync(path.join(subagents, 'agent-a3f9c21.jsonl'), path.join(subagents, 'agent-c0ffee1.jsonl'));
    assert.equal(spawnSync('mkfifo', [fifo, fifoMeta]).status, 0);
    // A valid transcript outside the projects folder, linked in under a session's name.
    const outside = path.join(tempDir('baton-import-outside-'), 'secret.jsonl');
    fs.copyFileSync(path.join(shop, `${S1}.jsonl`), outside);
    const link = path.join(projects, '-home-dev-blog', 'a11a11a1-0000-4000-8000-000000000002.jsonl');
    fs.symlinkSync(outside, link);

    // A blocking read of a FIFO would hang until the timeout kills the import.
    const r = await runProcess(process.execPath, [CLI, 'import', 'claude-code', projects, '--data-dir', tempDir('baton-import-data-'), '--json'], {
      cwd: ROOT,
      env: process.env,
      timeoutMs: 30_000,
    });
    assert.equal(r.timedOut, false, 'the import finishes within its 30 s');
    assert.equal(r.code, 0, r.stderr);
    const result = JSON.parse(r.stdout) as ImportResult;
    assert.match(r.stderr, new RegExp(`warning: ${fifo}: skipped, cannot be read \\(not a regular file but a FIFO\\)`));
    assert.match(r.stderr, new RegExp(`warning: ${fifoMeta}: unreadable sub-agent metadata \\(not a regular file but a FIFO\\)`));
    assert.match(r.stderr, new RegExp(`warning: ${link}: skipped, cannot be read \\(a symlink to outside `));
    assert.equal(result.sessions, 5, 'the four sessions and the sub-agent whose meta file is a FIFO (under the main session)');
    assert.equal(result.skipped, 4, 'the corrupt and the empty file, the FIFO and the symlink');
  });

  it('fails with a clear message when the folder does not exist', async () => {
    const missing = path.join(tempDir('baton-import-none-'), 'no-projects');
    const run = await batonImport([missing, '--data-dir', tempDir('baton-import-data-'), '--json']);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /no-projects is not a directory/);
    await assert.rejects(importClaudeCode({ projectsDir: missing, open: () => openApi(tempDir(), { holder: 'test' }) }), /not a directory/);
  });
});
