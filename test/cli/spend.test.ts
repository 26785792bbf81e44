// Spend through the built CLI (dist/cli.js: `npm run build` first), real processes and files: the
// demo's recorded Claude Code, Codex and OpenCode sessions and the Claude Code fixtures are
// imported, then `baton sessions --json` and `baton spend --json` are checked against the usage in
// the transcripts, summed here independently of Baton's parsers: every session of those harnesses
// shows its models and tokens, and every parent carries its children's totals.

import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { scanClaudeProjects } from '../../src/harnesses/claudeCode/import';
import { scanCodexSessions } from '../../src/harnesses/codex/import';
import { CLI, ROOT, runCli } from '../helpers/child';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';

type Obj = Record<string, unknown>;
/** [requests, input, output, cache read, cache write] */
type Sum = [number, number, number, number, number];

interface SpendView {
  models: string[];
  requests: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  costUsd: number | null;
  costBasis: string | null;
}
interface SessionRow {
  key: string;
  agentId: string;
  harness: string;
  parentSessionKey: string | null;
  spend: { own: SpendView | null; total: SpendView | null };
}

const DEMO = path.join(ROOT, 'demo', 'sessions');
const FIXTURE_PROJECTS = path.join(ROOT, 'test', 'fixtures', 'claude-projects');
/** The JSON records of a JSONL file; a torn or garbage line (some fixtures have one) is no record. */
const lines = (file: string) =>
  fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .flatMap((l) => {
      try {
        const r = JSON.parse(l) as unknown;
        return r && typeof r === 'object' ? [r as Obj] : [];
      } catch {
        return [];
      }
    });
const sumOf = (s: SpendView | null): Sum | null => (s ? [s.requests, s.inputTokens, s.outputTokens, s.cacheReadTokens, s.cacheWriteTokens] : null);
const plus = (a: Sum | null, b: Sum | null): Sum | null => (!a ? b : !b ? a : (a.map((v, i) => v + b[i]) as Sum));

/** A Claude Code transcript's requests: each message id once, its thread's own lines, no made-up (synthetic) message. */
function claudeSum(file: string): { sum: Sum | null; models: Set<string> } {
  const records = lines(file);
  const mainThread = records.some((r) => (r.type === 'user' || r.type === 'assistant') && r.isSidechain !== true);
  const seen = new Set<string>();
  const models = new Set<string>();
  let sum: Sum | null = null;
  for (const r of records) {
    const m = r.message as Obj | undefined;
    if (r.type !== 'assistant' || !m?.usage || (mainThread && r.isSidechain === true) || m.model === '<synthetic>' || seen.has(m.id as string)) continue;
    seen.add(m.id as string);
    models.add(m.model as string);
    const u = m.usage as Record<string, number>;
    sum = plus(sum, [1, u.input_tokens, u.output_tokens, u.cache_read_input_tokens ?? 0, u.cache_creation_input_tokens ?? 0]);
  }
  return { sum, models };
}

/** A Codex rollout's requests: the last request of each token_count with a new running total. */
function codexSum(file: string): { sum: Sum | null; models: Set<string> } {
  const totals = new Set<number>();
  const models = new Set<string>();
  let model = '';
  let sum: Sum | null = null;
  for (const r of lines(file)) {
    const p = r.payload as Obj;
    if (r.type === 'turn_context') model = p.model as string;
    if (r.type !== 'event_msg' || p.type !== 'token_count' || !p.info) continue;
    const info = p.info as Record<string, Record<string, number>>;
    if (totals.has(info.total_token_usage.total_tokens)) continue;
    totals.add(info.total_token_usage.total_tokens);
    models.add(model);
    const last = info.last_token_usage;
    sum = plus(sum, [1, last.input_tokens - last.cached_input_tokens, last.output_tokens, last.cached_input_tokens, last.cache_write_input_tokens ?? 0]);
  }
  return { sum, models };
}

/** An OpenCode export's requests: each finished assistant message's tokens (reasoning is output). */
function openCodeSum(file: string): { key: string; sum: Sum | null; models: Set<string> } {
  const doc = JSON.parse(fs.readFileSync(file, 'utf8')) as { info: { id: string }; messages: Array<{ info: Obj }> };
  const models = new Set<string>();
  let sum: Sum | null = null;
  for (const { info } of doc.messages) {
    const t = info.tokens as { input: number; output: number; reasoning?: number; cache?: { read?: number; write?: number } } | undefined;
    if (info.role !== 'assistant' || !t || (info.time as Obj | undefined)?.completed === undefined) continue;
    models.add(info.modelID as string);
    sum = plus(sum, [1, t.input, t.output + (t.reasoning ?? 0), t.cache?.read ?? 0, t.cache?.write ?? 0]);
  }
  return { key: doc.info.id, sum, models };
}

describe('spend through the built CLI (demo and fixture transcripts imported, sums checked against the transcripts)', function () {
  this.timeout(180_000);
  let env: NodeJS.ProcessEnv;
  let dataDir: string;
  const json = <T>(args: string[]): T => {
    const r = runCli([...args, '--json'], { env, timeout: 120_000 });
    assert.equal(r.status, 0, `baton ${args.join(' ')}: ${r.stderr}`);
    return JSON.parse(r.stdout) as T;
  };

  /** Session key → what its transcript says it spent, for every Claude Code, Codex and OpenCode session imported. */
  const expected = new Map<string, { harness: string; sum: Sum | null; models: Set<string> }>();

  before(() => {
    assert.ok(fs.existsSync(CLI), `${CLI} is missing: run \`npm run build\` first`);
    const home = tempDir('baton-spend-home-');
    env = { HOME: home, XDG_DATA_HOME: path.join(home, 'share'), PATH: process.env.PATH };
    dataDir = path.join(home, 'data');
    for (const item of scanClaudeProjects(path.join(DEMO, 'claude-code'))) expected.set(item.key, { harness: 'claude-code', ...claudeSum(item.file) });
    for (const item of scanClaudeProjects(FIXTURE_PROJECTS)) expected.set(item.key, { harness: 'claude-code', ...claudeSum(item.file) });
    for (const item of scanCodexSessions(path.join(DEMO, 'codex'))) expected.set(item.key, { harness: 'codex', ...codexSum(item.file) });
    for (const name of fs.readdirSync(path.join(DEMO, 'opencode')).filter((n) => n.endsWith('.json'))) {
      const { key, ...rest } = openCodeSum(path.join(DEMO, 'opencode', name));
      expected.set(key, { harness: 'opencode', ...rest });
    }
  });
  after(() => cleanupTempDirs());

  it('stores each session its own spend as its transcript reports it, and every parent the sum of its own and its children', () => {
    json(['demo', '--data-dir', dataDir]);
    json(['import', 'claude-code', FIXTURE_PROJECTS, '--data-dir', dataDir]);
    const { sessions } = json<{ sessions: SessionRow[] }>(['sessions', '--data-dir', dataDir, '--limit', '1000']);

    let checked = 0;
    for (const [key, want] of expected) {
      const row = sessions.find((s) => s.key === key && s.harness === want.harness);
      // A file with no turns (empty, or no transcript at all: the fixtures have both) is skipped by the import.
      if (!row && want.sum === null) continue;
      assert.ok(row, `${want.harness} session ${key} imported`);
      assert.deepEqual(sumOf(row.spend.own), want.sum, `${key}: own spend`);
      if (want.sum) assert.deepEqual(new Set(row.spend.own!.models), want.models, `${key}: models`);
      checked++;
    }
    // The demo shows models and spend on every Claude Code, Codex and OpenCode node.
    for (const row of sessions.filter((s) => ['claude-code', 'codex', 'opencode'].includes(s.harness) && !FIXTURE_KEYS.has(s.key))) {
      assert.ok(row.spend.own && row.spend.own.models.length > 0 && row.spend.own.requests > 0, `${row.harness} ${row.key} shows models and spend`);
    }
    assert.ok(checked >= 25, `${checked} sessions checked`);

    // Rolled up: a session's total is its own plus each child's total, at every depth, every harness.
    let parents = 0;
    for (const row of sessions) {
      const children = sessions.filter((c) => c.parentSessionKey === row.key && c.agentId === row.agentId);
      const sum = children.reduce((acc, c) => plus(acc, sumOf(c.spend.total)), sumOf(row.spend.own));
      assert.deepEqual(sumOf(row.spend.total), sum, `${row.harness} ${row.key}: total = own + children`);
      if (children.length > 0 && sum) parents++;
    }
    assert.ok(parents >= 5, `${parents} parents carry their children's spend`);
  });

  it('`baton spend --json` adds up the same requests by harness, day, project, model and session', () => {
    const report = json<{
      total: SpendView;
      byHarness: Array<{ harness: string; spend: SpendView }>;
      byDay: Array<{ day: string; spend: SpendView }>;
      byProject: Array<{ project: string | null; spend: SpendView }>;
      byModel: Array<SpendView & { model: string | null }>;
      topSessions: Array<{ key: string; spend: SpendView }>;
    }>(['spend', '--data-dir', dataDir, '--top', '1000']);
    const { sessions } = json<{ sessions: SessionRow[] }>(['sessions', '--data-dir', dataDir, '--limit', '1000']);

    for (const harness of ['claude-code', 'codex', 'opencode']) {
      const want = [...expected.values()].filter((e) => e.harness === harness).reduce<Sum | null>((acc, e) => plus(acc, e.sum), null);
      assert.deepEqual(sumOf(report.byHarness.find((h) => h.harness === harness)!.spend), want, harness);
    }
    const everyOwn = sessions.reduce<Sum | null>((acc, s) => plus(acc, sumOf(s.spend.own)), null);
    assert.deepEqual(sumOf(report.total), everyOwn);
    for (const grouping of [report.byDay, report.byProject, report.byHarness, report.topSessions])
      assert.deepEqual(
        grouping.reduce<Sum | null>((acc, g) => plus(acc, sumOf(g.spend)), null),
        everyOwn,
      );
    assert.deepEqual(
      report.byModel.reduce<Sum | null>((acc, m) => plus(acc, sumOf(m)), null),
      everyOwn,
    );
    for (const top of report.topSessions) assert.deepEqual(sumOf(top.spend), sumOf(sessions.find((s) => s.key === top.key)!.spend.own));

    // A window from tomorrow on holds nothing; the table says so.
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    assert.equal(json<{ total: SpendView | null }>(['spend', '--data-dir', dataDir, '--since', tomorrow]).total, null);
    const table = runCli(['spend', '--data-dir', dataDir], { env });
    assert.equal(table.status, 0, table.stderr);
    assert.match(table.stdout, /By model[\s\S]*claude-opus-5-5/);
    const bad = runCli(['spend', '--data-dir', dataDir, '--since', 'yesterday-ish'], { env });
    assert.notEqual(bad.status, 0);
    assert.match(bad.stderr, /ISO 8601/);
  });
});

/** The fixture sessions (not demo ones): some of them record no usage at all. */
const FIXTURE_KEYS = new Set(scanClaudeProjects(FIXTURE_PROJECTS).map((i) => i.key));
