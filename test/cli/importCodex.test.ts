// `baton import codex` with the built CLI (dist/cli.js: `npm run build` first), real processes and
// the real store, on rollouts the real Codex wrote: the recorded demo story (demo/sessions/codex:
// parallel sub-agents and a nested one), plus a garbage file and a foreign JSONL file. Then a live
// run: the real `codex exec` (scripts/dev/install-harness-clis.sh caches it; skipped without it) plays
// the same story with Baton's hooks installed, and the import afterwards must find every thread
// already stored, under the same keys and parents, without a duplicated turn.

import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { reduceRollout, scanCodexSessions, type CodexImportItem } from '../../src/harnesses/codex/import';
import { normalizeTranscript } from '../../src/harnesses/registry';
import { startDaemon, type Daemon } from '../../src/server/daemon';
import { CODEX_DEMO_SESSIONS, respondForCodex } from '../../scripts/demo/demoScriptCodex';
import { DEMO_PROJECT_FILES } from '../../scripts/demo/demoScript';
import { CLI, ROOT } from '../helpers/child';
import { baton, run, cleanEnv } from '../shared/claudeCli';
import { startFakeResponses, type FakeResponses } from '../shared/fakeResponses';
import { harnessCliBin } from '../shared/harnessClis';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';

const RECORDED = path.join(ROOT, 'demo', 'sessions', 'codex');

interface SessionRow {
  key: string;
  parentSessionKey: string | null;
  harness: string;
  harnessAgentId: string | null;
  turnCount: number;
}

interface Summary {
  via: string;
  sessions: number;
  subagents: number;
  created: number;
  turnsAdded: number;
  skipped: number;
  warnings: string[];
}

/** The turns Baton reads from a rollout. */
function turnsOf(file: string): number {
  const reduced = reduceRollout(fs.readFileSync(file, 'utf8'));
  return reduced ? normalizeTranscript(reduced.text, { harness: 'codex' }).length : 0;
}

const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, LANG: 'C.UTF-8', ...extra });

async function importJson(dir: string, dataDir: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<{ summary: Summary; stderr: string }> {
  const r = await baton(['import', 'codex', dir, '--data-dir', dataDir, '--json'], env({ HOME: path.dirname(dataDir), ...extraEnv }));
  assert.equal(r.code, 0, `baton import codex: ${r.stderr}`);
  return { summary: JSON.parse(r.stdout) as Summary, stderr: r.stderr };
}

async function sessionsOf(dataDir: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<SessionRow[]> {
  const r = await baton(['sessions', '--json', '--limit', '500', '--data-dir', dataDir], env({ HOME: path.dirname(dataDir), ...extraEnv }));
  assert.equal(r.code, 0, r.stderr);
  return (JSON.parse(r.stdout) as { sessions: SessionRow[] }).sessions;
}

/** Every scanned thread is stored once, as a codex session under the expected parent, with exactly its rollout's turns. */
function assertStoredAsScanned(items: CodexImportItem[], sessions: SessionRow[]): void {
  assert.equal(sessions.length, items.length, `sessions: ${sessions.map((s) => s.key).join(', ')}`);
  for (const item of items) {
    const stored = sessions.find((s) => s.key === item.key);
    assert.ok(stored, `${item.key} stored`);
    assert.equal(stored.harness, 'codex');
    assert.equal(stored.parentSessionKey, item.parentKey ?? null, `${item.key}'s parent`);
    if (item.parentKey) assert.equal(stored.harnessAgentId, item.threadId);
    assert.equal(stored.turnCount, turnsOf(item.file), `${item.key}: the rollout's turns, none twice`);
  }
}

describe('baton import codex (built CLI, rollouts the real Codex wrote)', function () {
  this.timeout(240_000);

  before(() => assert.ok(fs.existsSync(CLI), `${CLI} is missing: run \`npm run build\` first`));
  after(() => cleanupTempDirs());

  it('scans roots, parallel and nested sub-agents, parents first, keyed as the live hooks key them', () => {
    const items = scanCodexSessions(RECORDED);
    const roots = items.filter((i) => i.depth === 0);
    assert.ok(roots.length >= 2, `${roots.length} roots`);
    for (const r of roots) assert.equal(r.key, r.threadId);
    const depths = items.map((i) => i.depth);
    assert.deepEqual(
      depths,
      [...depths].sort((a, b) => a - b),
      'parents before children',
    );
    const spawner = roots.find((r) => items.filter((i) => i.parentKey === r.key).length >= 2);
    assert.ok(spawner, 'a root with parallel sub-agents');
    const nested = items.find((i) => i.depth === 2);
    assert.ok(nested, 'a nested sub-agent');
    assert.equal(nested.key, `${spawner.key}/agent-${nested.threadId}`, 'keyed under the root thread');
    const middle = items.find((i) => i.key === nested.parentKey);
    assert.ok(middle && middle.parentKey === spawner.key, 'its parent is the sub-agent that spawned it');
    assert.ok(
      items.filter((i) => i.parentKey).every((i) => i.agentType),
      'every sub-agent has the name Codex gave it (its role, or else its nickname)',
    );
  });

  it('derives the same keys from rollouts without session_id (the root found along parent_thread_id)', () => {
    const dir = path.join(tempDir('baton-import-codex-old-'), 'sessions');
    fs.cpSync(RECORDED, dir, { recursive: true });
    const withId = scanCodexSessions(dir);
    for (const item of withId) {
      const [first, ...rest] = fs.readFileSync(item.file, 'utf8').split('\n');
      const meta = JSON.parse(first) as { payload: Record<string, unknown> };
      delete meta.payload.session_id;
      fs.writeFileSync(item.file, [JSON.stringify(meta), ...rest].join('\n'));
    }
    const without = scanCodexSessions(dir);
    assert.deepEqual(
      without.map((i) => [i.key, i.parentKey, i.depth]),
      withId.map((i) => [i.key, i.parentKey, i.depth]),
    );
  });

  it("a sub-agent's completion notice Codex writes into its spawner's thread is a system turn, not the user's", () => {
    const spawner = scanCodexSessions(RECORDED).find((i) => /<subagent_notification>/.test(fs.readFileSync(i.file, 'utf8')));
    assert.ok(spawner, 'a recorded rollout holds a notification');
    const turns = normalizeTranscript(reduceRollout(fs.readFileSync(spawner.file, 'utf8'))!.text, { harness: 'codex' });
    const notices = turns.filter((t) => t.text.startsWith('<subagent_notification>'));
    assert.ok(notices.length > 0);
    for (const t of notices) assert.equal(t.role, 'system');
    assert.ok(
      turns.some((t) => t.role === 'user' && /one cent short/.test(t.text)),
      "the user's own prompt stays a user turn",
    );
  });

  it('imports into the store (no server): lineage and transcripts; a garbage and a foreign file are skipped with a warning; twice adds nothing', async () => {
    const dir = path.join(tempDir('baton-import-codex-'), 'sessions');
    fs.cpSync(RECORDED, dir, { recursive: true });
    const day = path.dirname(scanCodexSessions(dir)[0].file);
    const garbage = path.join(day, 'rollout-2026-11-27T11-00-00-garbage.jsonl');
    fs.writeFileSync(garbage, 'this is not JSON\n{"torn": \n');
    const foreign = path.join(dir, 'notes.jsonl');
    fs.writeFileSync(foreign, '{"type":"user","message":{"role":"user","content":"not a rollout"}}\n');
    const items = scanCodexSessions(dir);
    const dataDir = path.join(tempDir('baton-import-codex-data-'), 'data');

    const { summary, stderr } = await importJson(dir, dataDir);
    assert.equal(summary.via, 'store');
    assert.equal(summary.sessions, items.length);
    assert.equal(summary.subagents, items.filter((i) => i.parentKey).length);
    assert.equal(summary.created, items.length);
    assert.equal(summary.skipped, 2);
    assert.ok(summary.turnsAdded > 0);
    for (const file of [garbage, foreign]) {
      assert.ok(
        summary.warnings.some((w) => w.startsWith(file) && /not a Codex rollout/.test(w)),
        `warned about ${file}: ${summary.warnings.join(' | ')}`,
      );
      assert.ok(stderr.includes(`warning: ${file}`), stderr);
    }
    assertStoredAsScanned(items, await sessionsOf(dataDir));

    const again = (await importJson(dir, dataDir)).summary;
    assert.equal(again.sessions, items.length);
    assert.equal(again.created, 0);
    assert.equal(again.turnsAdded, 0);
    assertStoredAsScanned(items, await sessionsOf(dataDir));
  });

  it('skips a FIFO rollout and a symlink to a rollout outside the folder with warnings naming them, and finishes', async function () {
    if (process.platform === 'win32') this.skip();
    const dir = path.join(tempDir('baton-import-codex-'), 'sessions');
    fs.cpSync(RECORDED, dir, { recursive: true });
    const items = scanCodexSessions(dir);
    const day = path.dirname(items[0].file);
    const fifo = path.join(day, 'rollout-2026-11-27T12-00-00-fifo.jsonl');
    assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
    const outside = path.join(tempDir('baton-import-codex-outside-'), 'rollout.jsonl');
    fs.copyFileSync(items[0].file, outside);
    const link = path.join(day, 'rollout-2026-11-27T12-00-01-link.jsonl');
    fs.symlinkSync(outside, link);
    const dataDir = path.join(tempDir('baton-import-codex-data-'), 'data');
    // A blocking read of the FIFO would hang until the timeout kills the import.
    const r = await run(process.execPath, [CLI, 'import', 'codex', dir, '--data-dir', dataDir, '--json'], {
      cwd: ROOT,
      env: env({ HOME: path.dirname(dataDir) }),
      timeoutMs: 30_000,
    });
    assert.equal(r.timedOut, false, 'the import finishes within its 30 s');
    assert.equal(r.code, 0, r.stderr);
    const summary = JSON.parse(r.stdout) as Summary;
    assert.ok(r.stderr.includes(`warning: ${fifo}: skipped, cannot be read (not a regular file but a FIFO)`), r.stderr);
    assert.ok(r.stderr.includes(`warning: ${link}: skipped, cannot be read (a symlink to outside `), r.stderr);
    assert.equal(summary.sessions, items.length);
    assert.equal(summary.skipped, 2);
  });

  it('fails with a clear message when the folder does not exist', async () => {
    const base = tempDir('baton-import-codex-missing-');
    const r = await baton(['import', 'codex', path.join(base, 'nope'), '--data-dir', path.join(base, 'data')], env({ HOME: base }));
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /is not a directory \(expected Codex's sessions folder\)/);
  });

  describe('after live hooks (real codex exec, Baton hooks from `baton install codex`)', () => {
    let fake: FakeResponses | undefined;
    let daemon: Daemon | undefined;
    let sessionsDir: string;
    let dataDir: string;
    let cliEnv: NodeJS.ProcessEnv;

    before(async function () {
      const bin = harnessCliBin('codex');
      if (!fs.existsSync(bin)) {
        if (process.env.CI === 'true') throw new Error(`the codex CLI is not installed at ${bin}`);
        console.log(`      (skipped: the codex CLI is not installed at ${bin}: run \`bash scripts/dev/install-harness-clis.sh\`)`);
        this.skip();
      }
      const base = fs.realpathSync(tempDir('baton-import-codex-live-'));
      const home = path.join(base, 'home');
      const codexHome = path.join(home, '.codex');
      const project = path.join(home, 'acme-billing');
      dataDir = path.join(base, 'baton-data');
      sessionsDir = path.join(codexHome, 'sessions');
      for (const d of [codexHome, project, dataDir, path.join(base, 'tmp')]) fs.mkdirSync(d, { recursive: true, mode: 0o700 });
      for (const [rel, text] of Object.entries(DEMO_PROJECT_FILES)) {
        fs.mkdirSync(path.dirname(path.join(project, rel)), { recursive: true });
        fs.writeFileSync(path.join(project, rel), text);
      }
      fake = await startFakeResponses({
        parentPromptIncludes: '\u0000unused',
        agentPrompt: '\u0000unused',
        subagentReply: 'OK.',
        parentFinal: 'OK.',
        respond: (body) => respondForCodex(body),
      });
      fs.writeFileSync(
        path.join(codexHome, 'config.toml'),
        `model = "gpt-demo"\nmodel_provider = "scripted"\n\n[agents]\nmax_depth = 2\n\n[model_providers.scripted]\nname = "scripted"\nbase_url = "${fake.url}"\nwire_api = "responses"\nenv_key = "BATON_TEST_KEY"\n`,
      );
      daemon = await startDaemon({ dataDir, port: 0, config: { transcriptRoots: [sessionsDir] } });
      cliEnv = cleanEnv(home, path.join(base, 'tmp'), { PATH: `${path.dirname(bin)}:${process.env.PATH}`, CODEX_HOME: codexHome, BATON_TEST_KEY: 'sk-test' });
      const installed = await baton(['install', 'codex', '--data-dir', dataDir], cliEnv);
      assert.equal(installed.code, 0, installed.stdout + installed.stderr);
      // The story's first session: two sub-agents in parallel, one of which starts its own.
      const prompt = CODEX_DEMO_SESSIONS[0].prompts[0];
      const codex = await run('bash', ['-c', 'exec "$0" exec --skip-git-repo-check --dangerously-bypass-approvals-and-sandbox "$1" </dev/null', bin, prompt], {
        cwd: project,
        env: cliEnv,
        timeoutMs: 120_000,
      });
      assert.equal(codex.code, 0, `codex exited ${codex.code} (timed out ${codex.timedOut})\n${codex.stdout.slice(-2000)}\n${codex.stderr.slice(-2000)}`);
    });

    after(async () => {
      await daemon?.stop();
      await fake?.close();
    });

    it('the live hooks stored the threads under the keys and parents the import derives; the import adds no session and no duplicate turn', async () => {
      const items = scanCodexSessions(sessionsDir);
      assert.equal(items.length, 4, `a root, two parallel sub-agents and a nested one: ${items.map((i) => i.key).join(', ')}`);
      assert.ok(items.some((i) => i.depth === 2));
      const live = await sessionsOf(dataDir, cliEnv);
      for (const item of items) {
        const stored = live.find((s) => s.key === item.key);
        assert.ok(stored, `the live hooks stored ${item.key}: ${live.map((s) => s.key).join(', ')}`);
        assert.equal(stored.parentSessionKey, item.parentKey ?? null, `${item.key}'s parent from the live hooks`);
      }

      const { summary } = await importJson(sessionsDir, dataDir, cliEnv);
      assert.equal(summary.via, 'server');
      assert.equal(summary.sessions, items.length);
      assert.equal(summary.created, 0, 'every thread was already stored');
      assertStoredAsScanned(items, await sessionsOf(dataDir, cliEnv));
    });
  });
});
