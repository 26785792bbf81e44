// `baton import opencode` with the built CLI (dist/cli.js: `npm run build` first), real processes
// and the real store. The data is what the real OpenCode wrote: the recorded `opencode export`
// files of the demo (demo/sessions/opencode), and a database the real OpenCode CLI fills in this
// test (opencode.db with its write-ahead log), run with Baton's plugin feeding a running Baton
// server, after which the import must add nothing.

import { strict as assert } from 'node:assert';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sqliteImage } from '../../src/harnesses/openCode/sqliteImage';
import { startDaemon, type Daemon } from '../../src/server/daemon';
import { loadSqlJs } from '../../src/store/engine/sqljs';
import { CLI, ROOT, runCli } from '../helpers/child';
import { baton, run, type RunResult } from '../shared/claudeCli';
import { startFakeChatCompletions, type FakeChatCompletions } from '../shared/fakeChatCompletions';
import { requireHarnessCli } from '../shared/harnessClis';
import { makeOpenCodeHome, type OpenCodeHome } from '../shared/openCodeHome';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';

const RECORDED = path.join(ROOT, 'demo', 'sessions', 'opencode');

interface ImportJson {
  source: string;
  format: 'database' | 'exports';
  via: 'server' | 'store';
  sessions: number;
  subagents: number;
  created: number;
  turnsAdded: number;
  skipped: number;
  warnings: string[];
}
interface SessionRow {
  key: string;
  parentSessionKey: string | null;
  harness: string;
  title: string | null;
  turnCount: number;
}

/** The recorded exports: session id -> parent id (null for a root). */
function recordedLineage(): Map<string, string | null> {
  const lineage = new Map<string, string | null>();
  for (const name of fs.readdirSync(RECORDED).filter((n) => n.endsWith('.json'))) {
    const { info } = JSON.parse(fs.readFileSync(path.join(RECORDED, name), 'utf8')) as { info: { id: string; parentID?: string } };
    lineage.set(info.id, info.parentID ?? null);
  }
  return lineage;
}

/** A small OpenCode database (its tables as OpenCode has them, pages of 1 KB) holding one session with one prompt. */
async function smallOpenCodeDb(): Promise<Uint8Array> {
  const SQL = await loadSqlJs();
  const db = new SQL.Database();
  try {
    db.run('PRAGMA page_size = 1024; VACUUM;');
    db.run(
      'CREATE TABLE session (id TEXT, parent_id TEXT, title TEXT, directory TEXT, agent TEXT, time_created INTEGER);' +
        'CREATE TABLE message (id TEXT, session_id TEXT, data TEXT, time_created INTEGER);' +
        'CREATE TABLE part (id TEXT, message_id TEXT, data TEXT);',
    );
    db.run("INSERT INTO session VALUES ('ses_small', NULL, 'Small', '/work/small', NULL, 1)");
    db.run(`INSERT INTO message VALUES ('msg_1', 'ses_small', '${JSON.stringify({ role: 'user', time: { created: 1 } })}', 1)`);
    db.run(`INSERT INTO part VALUES ('prt_1', 'msg_1', '${JSON.stringify({ type: 'text', text: 'SMALL-DB-PROMPT' })}')`);
    return db.export();
  } finally {
    db.close();
  }
}

/** SQLite's WAL checksum (little-endian words), continuing from `sums`. */
function walSums(data: Buffer, sums: [number, number]): [number, number] {
  let [s0, s1] = sums;
  for (let i = 0; i + 8 <= data.length; i += 8) {
    s0 = (s0 + data.readUInt32LE(i) + s1) >>> 0;
    s1 = (s1 + data.readUInt32LE(i + 4) + s0) >>> 0;
  }
  return [s0, s1];
}

/** A write-ahead log of one valid, committed frame: `page` written as page number `pageNo`, the database `dbPages` pages long after it. */
function walOfOneFrame(page: Uint8Array, pageNo: number, dbPages: number): Buffer {
  const pageSize = page.length;
  const wal = Buffer.alloc(32 + 24 + pageSize);
  wal.writeUInt32BE(0x377f0682, 0); // checksums over little-endian words
  wal.writeUInt32BE(3007000, 4);
  wal.writeUInt32BE(pageSize, 8);
  wal.writeUInt32BE(0x1234, 16); // salts
  wal.writeUInt32BE(0x5678, 20);
  let sums = walSums(wal.subarray(0, 24), [0, 0]);
  wal.writeUInt32BE(sums[0], 24);
  wal.writeUInt32BE(sums[1], 28);
  wal.writeUInt32BE(pageNo, 32);
  wal.writeUInt32BE(dbPages, 36);
  wal.writeUInt32BE(0x1234, 40);
  wal.writeUInt32BE(0x5678, 44);
  Buffer.from(page).copy(wal, 56);
  sums = walSums(wal.subarray(32, 40), sums);
  sums = walSums(wal.subarray(56), sums);
  wal.writeUInt32BE(sums[0], 48);
  wal.writeUInt32BE(sums[1], 52);
  return wal;
}

/**
 * Runs the built CLI and follows its peak resident memory (VmHWM, Linux) while it runs; a child
 * past `limitKb` is killed at once (the old code would go on to gigabytes).
 */
function runWithMemoryWatch(args: string[], env: NodeJS.ProcessEnv, limitKb: number): Promise<{ code: number | null; stderr: string; peakKb: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    let peakKb = 0;
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const sample = () => {
      try {
        const hwm = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        if (hwm) peakKb = Math.max(peakKb, Number(hwm[1]));
      } catch {
        return; // exited meanwhile
      }
      if (peakKb > limitKb) child.kill('SIGKILL');
    };
    const timer = setInterval(sample, 10);
    const deadline = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('exit', () => sample());
    child.on('close', (code) => {
      clearInterval(timer);
      clearTimeout(deadline);
      resolve({ code, stderr, peakKb });
    });
  });
}

describe('baton import opencode (built CLI, real store, data the real OpenCode wrote)', function () {
  this.timeout(120_000);

  let env: NodeJS.ProcessEnv;
  let home: string;
  const lineage = recordedLineage();

  const importJson = (args: string[], extraEnv: NodeJS.ProcessEnv = {}): { result: ImportJson; stderr: string } => {
    const r = runCli(['import', 'opencode', ...args, '--json'], { env: { ...env, ...extraEnv }, timeout: 90_000 });
    assert.equal(r.status, 0, `baton import opencode ${args.join(' ')}: ${r.stderr}`);
    return { result: JSON.parse(r.stdout) as ImportJson, stderr: r.stderr };
  };
  const sessionsOf = (dataDir: string): SessionRow[] => {
    const r = runCli(['sessions', '--json', '--limit', '500', '--data-dir', dataDir], { env });
    assert.equal(r.status, 0, r.stderr);
    return (JSON.parse(r.stdout) as { sessions: SessionRow[] }).sessions;
  };

  before(() => {
    assert.ok(fs.existsSync(CLI), `${CLI} is missing: run \`npm run build\` first`);
    home = tempDir('baton-import-opencode-');
    env = { HOME: home, XDG_DATA_HOME: path.join(home, 'share'), PATH: process.env.PATH };
  });
  after(() => cleanupTempDirs());

  it('imports the exported sessions with their task sub-agents under their parents, titled as in OpenCode', () => {
    const dataDir = path.join(home, 'exports');
    const { result } = importJson(['--path', RECORDED, '--data-dir', dataDir]);
    const children = [...lineage.values()].filter((p) => p !== null).length;
    assert.ok(lineage.size >= 4 && children >= 2, `the recording holds sessions and sub-agents: ${[...lineage.entries()].join(' ')}`);
    assert.equal(result.format, 'exports');
    assert.equal(result.via, 'store');
    assert.equal(result.sessions, lineage.size);
    assert.equal(result.subagents, children);
    assert.equal(result.created, lineage.size);
    assert.equal(result.skipped, 0);
    assert.ok(result.turnsAdded >= 40, `${result.turnsAdded} turns`);

    const stored = sessionsOf(dataDir);
    assert.equal(stored.length, lineage.size);
    for (const [id, parent] of lineage) {
      const row = stored.find((s) => s.key === id);
      assert.ok(row, `${id} stored`);
      assert.equal(row.harness, 'opencode');
      assert.equal(row.parentSessionKey, parent, `${id}'s parent`);
    }
    assert.ok(
      stored.some((s) => s.title === 'Invoice PDF export'),
      stored.map((s) => s.title).join(', '),
    );
    // The transcript is OpenCode's: the prompt, the tool calls it ran, and the task's result.
    const root = [...lineage].find(([id, parent]) => parent === null && stored.find((s) => s.key === id)?.title === 'Invoice PDF export')![0];
    const r = runCli(['transcript', root, '--json', '--data-dir', dataDir], { env });
    const { content } = JSON.parse(r.stdout) as { content: string };
    for (const expected of ['User: EU customers want their invoices as PDF', 'Tool: task(', 'Tool: bash(', '# pass 2'])
      assert.ok(content.includes(expected), `the transcript has ${expected}`);
  });

  it('importing again adds nothing', () => {
    const dataDir = path.join(home, 'exports');
    const before = sessionsOf(dataDir);
    const { result } = importJson(['--path', RECORDED, '--data-dir', dataDir]);
    assert.equal(result.sessions, lineage.size);
    assert.equal(result.created, 0);
    assert.equal(result.turnsAdded, 0);
    const after = sessionsOf(dataDir);
    assert.deepEqual(after.map((s) => [s.key, s.turnCount]).sort(), before.map((s) => [s.key, s.turnCount]).sort());
  });

  it('skips a broken or foreign file with a warning and imports the rest', () => {
    const folder = path.join(home, 'mixed');
    fs.mkdirSync(folder);
    for (const name of fs.readdirSync(RECORDED)) fs.copyFileSync(path.join(RECORDED, name), path.join(folder, name));
    fs.writeFileSync(path.join(folder, 'torn.json'), '{"info": {"id": "ses_torn"}, "messages": [');
    fs.writeFileSync(path.join(folder, 'other.json'), JSON.stringify({ name: 'not an export' }));
    const dataDir = path.join(home, 'mixed-data');
    const { result, stderr } = importJson(['--path', folder, '--data-dir', dataDir]);
    assert.equal(result.sessions, lineage.size);
    assert.equal(result.skipped, 2);
    assert.match(stderr, /warning: .*torn\.json: skipped/);
    assert.match(stderr, /warning: .*other\.json: skipped/);
    assert.equal(sessionsOf(dataDir).length, lineage.size);
  });

  it('refuses a database file that is not one, and a folder with nothing of OpenCode', () => {
    const bogus = path.join(home, 'bogus');
    fs.mkdirSync(bogus);
    fs.writeFileSync(path.join(bogus, 'opencode.db'), 'not a database at all, just text');
    const bad = runCli(['import', 'opencode', '--path', bogus, '--data-dir', path.join(home, 'bogus-data')], { env });
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /cannot be read as OpenCode's database/);
    const empty = path.join(home, 'empty');
    fs.mkdirSync(empty);
    const none = runCli(['import', 'opencode', '--path', empty, '--data-dir', path.join(home, 'bogus-data')], { env });
    assert.equal(none.status, 1);
    assert.match(none.stderr, /neither opencode\.db nor/);
  });

  it('refuses a small crafted database whose write-ahead log claims gigabytes, as damaged, within a memory bound', async function () {
    if (process.platform !== 'linux') this.skip(); // the peak is read from /proc
    const db = await smallOpenCodeDb();
    const pageSize = 1024;
    const claimed = 4_000_000; // pages of 1 KB: about 4 GB
    const crafted = {
      // The commit frame says the database is 4,000,000 pages long.
      'a commit claiming 4,000,000 pages': walOfOneFrame(db.subarray(0, pageSize), 1, claimed),
      // One frame far past the end: as page 4,000,000.
      'a frame for page 4,000,000': walOfOneFrame(db.subarray(0, pageSize), claimed, claimed),
    };
    const LIMIT_KB = 512 * 1024;
    for (const [what, wal] of Object.entries(crafted)) {
      const folder = tempDir('baton-import-opencode-crafted-');
      fs.writeFileSync(path.join(folder, 'opencode.db'), db);
      fs.writeFileSync(path.join(folder, 'opencode.db-wal'), wal);
      assert.ok(db.length + wal.length < 32 * 1024, 'a few KB in all');
      const r = await runWithMemoryWatch(['import', 'opencode', '--path', folder, '--data-dir', path.join(folder, 'data'), '--json'], env, LIMIT_KB);
      assert.ok(r.peakKb > 0, 'the peak was read');
      assert.ok(r.peakKb <= LIMIT_KB, `${what}: peak ${Math.round(r.peakKb / 1024)} MB, the bound is ${LIMIT_KB / 1024} MB`);
      assert.equal(r.code, 1, `${what}: ${r.stderr}`);
      assert.match(r.stderr, /opencode\.db: cannot be read as OpenCode's database \(damaged: its write-ahead log gives the database 4000000 pages/);
    }
  });

  it('skips a FIFO as the write-ahead log and among export files with a warning naming it, and finishes', async function () {
    if (process.platform === 'win32') this.skip();
    // The database folder: opencode.db, and a FIFO where its log would be.
    const folder = tempDir('baton-import-opencode-fifo-');
    fs.writeFileSync(path.join(folder, 'opencode.db'), await smallOpenCodeDb());
    const wal = path.join(folder, 'opencode.db-wal');
    assert.equal(spawnSync('mkfifo', [wal]).status, 0);
    // A blocking read of a FIFO would hang until the timeout kills the import (status null).
    const fromDb = runCli(['import', 'opencode', '--path', folder, '--data-dir', path.join(folder, 'data'), '--json'], { env, timeout: 30_000 });
    assert.equal(fromDb.status, 0, `the import finishes within its 30 s: ${fromDb.stderr}`);
    assert.ok(
      fromDb.stderr.includes(`warning: ${wal}: skipped, not a regular file but a FIFO; the database is read without its write-ahead log`),
      fromDb.stderr,
    );
    assert.equal((JSON.parse(fromDb.stdout) as ImportJson).sessions, 1);

    // A folder of export files with a FIFO among them.
    const exports = tempDir('baton-import-opencode-fifo-exports-');
    for (const name of fs.readdirSync(RECORDED)) fs.copyFileSync(path.join(RECORDED, name), path.join(exports, name));
    const fifo = path.join(exports, 'zz-fifo.json');
    assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
    const fromExports = runCli(['import', 'opencode', '--path', exports, '--data-dir', path.join(exports, 'data'), '--json'], { env, timeout: 30_000 });
    assert.equal(fromExports.status, 0, `the import finishes within its 30 s: ${fromExports.stderr}`);
    assert.ok(fromExports.stderr.includes(`warning: ${fifo}: skipped, cannot be read (not a regular file but a FIFO)`), fromExports.stderr);
    const result = JSON.parse(fromExports.stdout) as ImportJson;
    assert.deepEqual([result.sessions, result.skipped], [lineage.size, 1]);
  });

  describe('from the database of a real OpenCode run, after the live plugin', function () {
    this.timeout(300_000);
    const parentPrompt = 'Audit the refunds module for rounding problems and delegate the currency check.';
    const agentPrompt = 'Check every currency conversion in src for two-decimal assumptions';

    let oc: OpenCodeHome;
    let fake: FakeChatCompletions | undefined;
    let daemon: Daemon | undefined;
    let dataDir: string;
    let opencode: RunResult;

    before(async function () {
      const bin = requireHarnessCli(this, 'opencode');
      fake = await startFakeChatCompletions({
        parentPromptIncludes: 'Audit the refunds module',
        agentPrompt,
        agentDescription: 'currency check',
        subagentType: 'general',
        subagentReply: 'Only src/refunds.ts assumes cents.',
        parentFinal: 'The sub-agent found one two-decimal assumption.',
      });
      oc = makeOpenCodeHome(tempDir('baton-import-opencode-run-'), 'shop', { 'README.md': '# shop\n' }, fake.url);
      dataDir = path.join(oc.home, 'baton-data');
      daemon = await startDaemon({ dataDir, port: 0 });
      const installed = await baton(['install', 'opencode', '--project', oc.project, '--data-dir', dataDir], oc.env);
      assert.equal(installed.code, 0, installed.stderr);
      opencode = await run(bin, ['run', ...parentPrompt.split(' ')], { cwd: oc.project, env: oc.env, timeoutMs: 150_000 });
      assert.equal(opencode.code, 0, `opencode run: ${opencode.stdout.slice(-2000)}\n${opencode.stderr.slice(-2000)}`);
    });
    after(async () => {
      await daemon?.stop();
      await fake?.close();
    });

    it("reads opencode.db (the history sits in its write-ahead log) from OpenCode's default folder, through the running server, and adds nothing the plugin stored", async () => {
      assert.ok(fs.existsSync(path.join(oc.openCodeData, 'opencode.db-wal')), 'OpenCode left a write-ahead log');
      const listed = async () => {
        const r = await baton(['sessions', '--json', '--data-dir', dataDir], oc.env);
        assert.equal(r.code, 0, r.stderr);
        return (JSON.parse(r.stdout) as { sessions: SessionRow[] }).sessions;
      };
      const live = await listed();
      assert.equal(live.length, 2, `the plugin stored the parent and its task child: ${JSON.stringify(live)}`);

      // No --path: $XDG_DATA_HOME/opencode, where this OpenCode keeps its database.
      const imported = await baton(['import', 'opencode', '--json', '--data-dir', dataDir], oc.env);
      assert.equal(imported.code, 0, imported.stderr);
      const result = JSON.parse(imported.stdout) as ImportJson;
      assert.equal(result.format, 'database');
      assert.equal(result.source, oc.openCodeData);
      assert.equal(result.via, 'server');
      assert.equal(result.sessions, 2);
      assert.equal(result.subagents, 1);
      assert.equal(result.created, 0, 'both sessions were known from the plugin');
      assert.equal(result.turnsAdded, 0, 'the plugin already stored every turn');
      const after = await listed();
      assert.deepEqual(after.map((s) => [s.key, s.parentSessionKey, s.turnCount]).sort(), live.map((s) => [s.key, s.parentSessionKey, s.turnCount]).sort());

      // The same database into an empty data directory: the same sessions, lineage and turns.
      const fresh = path.join(oc.home, 'fresh-data');
      const again = await baton(['import', 'opencode', '--json', '--data-dir', fresh], oc.env);
      assert.equal(again.code, 0, again.stderr);
      assert.equal((JSON.parse(again.stdout) as ImportJson).created, 2);
      const freshRows = (JSON.parse((await baton(['sessions', '--json', '--data-dir', fresh], oc.env)).stdout) as { sessions: SessionRow[] }).sessions;
      assert.deepEqual(freshRows.map((s) => [s.key, s.parentSessionKey, s.turnCount]).sort(), live.map((s) => [s.key, s.parentSessionKey, s.turnCount]).sort());
    });

    it('reads the write-ahead log only up to its last intact commit: a frame with a bad checksum ends it, as a torn one does', async () => {
      const db = fs.readFileSync(path.join(oc.openCodeData, 'opencode.db'));
      const wal = fs.readFileSync(path.join(oc.openCodeData, 'opencode.db-wal'));
      const pageSize = wal.readUInt32BE(8);
      const lastFrame = wal.length - (24 + pageSize);
      assert.equal((wal.length - 32) % (24 + pageSize), 0, 'the log is whole frames');
      const SQL = await loadSqlJs();
      const dump = (log: Buffer): string => {
        const image = new SQL.Database(sqliteImage(db, log));
        try {
          const tables = image.exec("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")[0].values.map((v) => String(v[0]));
          return JSON.stringify(tables.map((t) => image.exec(`SELECT * FROM "${t}"`)));
        } finally {
          image.close();
        }
      };
      const whole = dump(wal);
      const torn = dump(wal.subarray(0, wal.length - 100));
      const badChecksum = Buffer.from(wal);
      badChecksum.writeUInt32BE((badChecksum.readUInt32BE(lastFrame + 16) + 1) >>> 0, lastFrame + 16);
      assert.notEqual(torn, whole, 'the last transaction is left out of a torn log');
      assert.equal(dump(badChecksum), torn, 'a frame whose checksum does not match ends the log there');
      assert.match(whole, /Audit the refunds module/);
    });
  });

  describe('the live plugin after an import, on the same OpenCode session', function () {
    this.timeout(300_000);
    const parentPrompt = 'Review the invoice rounding and delegate the tax check.';
    const agentPrompt = 'Check the tax rounding per rate in src';

    let oc: OpenCodeHome;
    let fake: FakeChatCompletions | undefined;
    let daemon: Daemon | undefined;
    let dataDir: string;
    let bin: string;

    const transcriptOf = async (key: string, dir: string): Promise<string> => {
      const r = await baton(['transcript', key, '--json', '--data-dir', dir], oc.env);
      assert.equal(r.code, 0, r.stderr);
      return (JSON.parse(r.stdout) as { content: string }).content;
    };
    const opencodeRun = async (args: string[]) => {
      const r = await run(bin, ['run', ...args], { cwd: oc.project, env: oc.env, timeoutMs: 150_000 });
      assert.equal(r.code, 0, `opencode run: ${r.stdout.slice(-2000)}\n${r.stderr.slice(-2000)}`);
      return r;
    };

    before(async function () {
      bin = requireHarnessCli(this, 'opencode');
      fake = await startFakeChatCompletions({
        parentPromptIncludes: 'Review the invoice rounding',
        agentPrompt,
        agentDescription: 'tax check',
        subagentType: 'general',
        subagentReply: 'Tax is rounded per line, not per rate.',
        parentFinal: 'The sub-agent found per-line rounding.',
      });
      oc = makeOpenCodeHome(tempDir('baton-import-opencode-then-plugin-'), 'shop', { 'README.md': '# shop\n' }, fake.url);
      dataDir = path.join(oc.home, 'baton-data');
      daemon = await startDaemon({ dataDir, port: 0 });
    });
    after(async () => {
      await daemon?.stop();
      await fake?.close();
    });

    it('a session imported first and then continued under the plugin holds every turn once', async () => {
      // OpenCode without Baton: its history is only in opencode.db.
      await opencodeRun(parentPrompt.split(' '));
      const first = await baton(['import', 'opencode', '--json', '--data-dir', dataDir], oc.env);
      assert.equal(first.code, 0, first.stderr);
      assert.equal((JSON.parse(first.stdout) as ImportJson).created, 2);
      const rows = (JSON.parse((await baton(['sessions', '--json', '--data-dir', dataDir], oc.env)).stdout) as { sessions: SessionRow[] }).sessions;
      const root = rows.find((r) => r.parentSessionKey === null);
      assert.ok(root, JSON.stringify(rows));

      // Now with Baton's plugin: the same session goes on with another prompt.
      const installed = await baton(['install', 'opencode', '--project', oc.project, '--data-dir', dataDir], oc.env);
      assert.equal(installed.code, 0, installed.stderr);
      await opencodeRun(['--session', root.key, ...'Review the invoice rounding once more, please.'.split(' ')]);

      // What the plugin left is exactly what an import of OpenCode's database gives from scratch.
      const fresh = path.join(oc.home, 'fresh-data');
      const scratch = await baton(['import', 'opencode', '--json', '--data-dir', fresh], oc.env);
      assert.equal(scratch.code, 0, scratch.stderr);
      const live = await transcriptOf(root.key, dataDir);
      assert.equal(live, await transcriptOf(root.key, fresh));
      assert.equal(live.split('User: Review the invoice rounding once more').length, 2, 'the new prompt once');
      assert.equal(live.split(`User: ${parentPrompt}`).length, 2, 'the first prompt once');
      const again = await baton(['import', 'opencode', '--json', '--data-dir', dataDir], oc.env);
      assert.equal((JSON.parse(again.stdout) as ImportJson).turnsAdded, 0);
    });
  });
});
