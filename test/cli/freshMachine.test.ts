// The built `baton` CLI (dist/cli.js) as a newcomer meets it: nothing recorded yet, where the
// reading commands answer as an empty store and doctor reports fully, all without creating
// anything; and data directories Baton cannot use (a file, a folder this user may not read, a
// read-only file system), where every command names that cause (docs/storage.md, "Where the data
// directory is").

import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { layout } from '../../src/node/paths';
import { Store } from '../../src/store/store';
import { CLI, ROOT, runCli, type CliResult } from '../helpers/child';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';

/** The commands that only read: each answers an empty store with exit code 0. */
const READ_COMMANDS: string[][] = [
  ['sessions'],
  ['sessions', '--json'],
  ['sessions', '--tree'],
  ['search', 'heron'],
  ['search', 'heron', '--json'],
  ['recall', 'heron'],
  ['recall', 'heron', '--json'],
  ['export'],
  ['export', '--format', 'md'],
  ['constraints', 'list', '--session', 's1'],
  ['entities', 'list', '--session', 's1'],
];
const WRITE_COMMANDS: string[][] = [
  ['token', 'create', '--agent', 'a', '--permissions', 'recall'],
  ['serve', '--port', '0', '--quiet'],
];

/** A home folder with no Baton data, and the environment that makes it the default data directory's home. */
function freshHome(): { home: string; env: NodeJS.ProcessEnv; dataDir: string } {
  const home = tempDir('baton-fresh-home-');
  return { home, env: { HOME: home, BATON_DATA_DIR: '', XDG_DATA_HOME: '' }, dataDir: path.join(home, '.local', 'share', 'baton') };
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Exit 1 and one error line naming `cause`; never the old "no Baton data" nor a bare errno of a mkdir. */
function assertRefused(result: CliResult, cause: RegExp, what: string): void {
  assert.equal(result.status, 1, `${what}: ${result.stdout}${result.stderr}`);
  const lines = result.stderr.split('\n').filter((l) => l !== '' && !l.startsWith('warning: '));
  assert.equal(lines.length, 1, `${what}: one error line, got:\n${result.stderr}`);
  assert.match(lines[0], /^error: cannot use the data directory /, what);
  assert.match(lines[0], cause, what);
  assert.doesNotMatch(result.stderr, /no Baton data|ENOENT|\n\s+at /, what);
}

describe('baton CLI on a fresh machine', function () {
  this.timeout(120_000);
  after(cleanupTempDirs);

  it('reading commands answer as an empty store, say how to record, exit 0 and create nothing', () => {
    const { home, env } = freshHome();
    const results = new Map<string, CliResult>();
    for (const args of READ_COMMANDS) {
      const result = runCli(args, { env });
      assert.equal(result.status, 0, `${args.join(' ')}: ${result.stderr}`);
      assert.equal(result.stderr, '', args.join(' '));
      results.set(args.join(' '), result);
    }
    const listed = results.get('sessions')!;
    assert.match(listed.stdout, /^No sessions yet\.\n/);
    assert.match(listed.stdout, /baton install claude-code/);
    assert.match(listed.stdout, /baton demo/);
    assert.equal(results.get('sessions --tree')!.stdout, listed.stdout);
    assert.deepEqual(JSON.parse(results.get('sessions --json')!.stdout).sessions, []);
    assert.equal(results.get('search heron')!.stdout, 'No matches for "heron".\n');
    assert.deepEqual(JSON.parse(results.get('search heron --json')!.stdout).hits, []);
    assert.equal(results.get('recall heron')!.stdout, 'No memories match "heron".\n');
    assert.deepEqual(JSON.parse(results.get('recall heron --json')!.stdout).memories, []);
    assert.equal(results.get('export')!.stdout, '');
    // A session that is not there is still not found.
    const missing = runCli(['transcript', 's1'], { env });
    assert.equal(missing.status, 1);
    assert.equal(missing.stderr, 'error: session s1 not found\n');
    assert.deepEqual(fs.readdirSync(home), [], 'no data directory, no lock, nothing');
  });

  it('the same through --data-dir and $BATON_DATA_DIR, on a missing path or an empty folder', () => {
    const parent = tempDir();
    const missing = path.join(parent, 'nested', 'baton');
    const empty = tempDir();
    for (const [what, run] of [
      ['--data-dir (missing)', (args: string[]) => runCli([...args, '--data-dir', missing])],
      ['$BATON_DATA_DIR (missing)', (args: string[]) => runCli(args, { env: { BATON_DATA_DIR: missing } })],
      ['--data-dir (empty folder)', (args: string[]) => runCli([...args, '--data-dir', empty])],
    ] as const) {
      const listed = run(['sessions', '--json']);
      assert.equal(listed.status, 0, `${what}: ${listed.stderr}`);
      assert.deepEqual(JSON.parse(listed.stdout).sessions, [], what);
      const found = run(['search', 'heron', '--json']);
      assert.equal(found.status, 0, `${what}: ${found.stderr}`);
      assert.deepEqual(JSON.parse(found.stdout).hits, [], what);
    }
    assert.deepEqual(fs.readdirSync(parent), []);
    assert.deepEqual(fs.readdirSync(empty), []);
  });

  it('doctor reports fully (no data dir yet, no server, each harness with its fix), exits 0 and creates nothing', () => {
    const { home, env, dataDir } = freshHome();
    const run = runCli(['doctor'], { env });
    assert.equal(run.status, 0, run.stdout + run.stderr);
    assert.equal(run.stderr, '');
    assert.match(run.stdout, new RegExp(`^data dir {3}${escape(dataDir)} \\(does not exist yet`));
    assert.match(run.stdout, /\nserver {5}not running/);
    assert.match(run.stdout, /\nstore {6}nothing recorded yet\n.*baton install claude-code/);
    assert.doesNotMatch(run.stdout, /problem/);
    for (const harness of ['claude-code', 'codex', 'opencode', 'copilot']) {
      assert.match(run.stdout, new RegExp(`\\(${harness}\\): never fired\\n {4}fix: `), harness);
    }
    const json = JSON.parse(runCli(['doctor', '--json'], { env }).stdout) as {
      dataDir: string;
      exists: boolean;
      server: { running: boolean };
      problems: string[];
      hooks: { harnesses: Array<{ id: string; fixes: unknown[] }> };
    };
    assert.equal(json.dataDir, dataDir);
    assert.equal(json.exists, false);
    assert.deepEqual(json.server, { running: false });
    assert.deepEqual(json.problems, []);
    assert.ok(json.hooks.harnesses.length >= 4 && json.hooks.harnesses.every((h) => h.fixes.length > 0));
    assert.deepEqual(fs.readdirSync(home), []);
  });

  it('doctor: a stale lock alone is a note, not a problem (exit 0)', async () => {
    const dir = tempDir();
    const store = await Store.open({ dataDir: dir });
    await store.write('recordTranscript', { key: 's1', harness: 'claude-code', turns: [{ role: 'user', text: 'hello' }] });
    await store.close();
    // What a holder that died leaves behind: its lock, naming a pid that runs no more.
    fs.writeFileSync(layout(dir).lock, JSON.stringify({ pid: 2 ** 22 + 17, port: null, startedAt: '2026-01-01T00:00:00.000Z', holder: 'baton serve' }));
    const run = runCli(['doctor', '--data-dir', dir]);
    assert.equal(run.status, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /\nlock {7}stale \(baton serve, pid \d+, not running\)/);
    assert.match(run.stdout, /\nnote {7}stale lock left by baton serve \(pid \d+, not running\); the next open takes it over/);
    assert.doesNotMatch(run.stdout, /\nproblem/);
    const json = JSON.parse(runCli(['doctor', '--json', '--data-dir', dir]).stdout) as { notes: string[]; problems: string[] };
    assert.deepEqual(json.problems, []);
    assert.equal(json.notes.length, 1);
  });
});

describe('baton CLI on a data directory it cannot use', function () {
  this.timeout(120_000);
  after(cleanupTempDirs);

  it('a file: every command names it (exit 1), doctor reports it as its problem', () => {
    const parent = tempDir();
    const file = path.join(parent, 'baton');
    fs.writeFileSync(file, 'not a folder');
    for (const dataDir of [file, path.join(file, 'inside')]) {
      for (const args of [...READ_COMMANDS, ...WRITE_COMMANDS]) {
        assertRefused(runCli([...args, '--data-dir', dataDir]), new RegExp(`${escape(file)} is a file, not a folder`), `${args.join(' ')} on ${dataDir}`);
      }
      const doctor = runCli(['doctor', '--data-dir', dataDir]);
      assert.equal(doctor.status, 1);
      assert.match(doctor.stdout, new RegExp(`\\nproblem {4}Baton cannot use this data directory: ${escape(file)} is a file, not a folder`));
      assert.match(doctor.stdout, /\nhooks\n/);
      assert.deepEqual(JSON.parse(runCli(['doctor', '--json', '--data-dir', dataDir]).stdout).problems.length, 1);
    }
    assert.equal(fs.readFileSync(file, 'utf8'), 'not a folder');
    assert.deepEqual(fs.readdirSync(parent), ['baton']);
  });

  it('a folder this user may not read: "permission denied" (run as uid 65534)', function () {
    if (process.getuid?.() !== 0) this.skip(); // needs root to run the CLI as another user
    const parent = tempDir();
    fs.chmodSync(parent, 0o755);
    const dataDir = path.join(parent, 'baton');
    fs.mkdirSync(dataDir, { mode: 0o700 }); // root's, closed to others
    fs.mkdirSync(path.join(dataDir, 'journal'));
    const asNobody = (args: string[]): CliResult => {
      const r = spawnSync(process.execPath, [CLI, ...args, '--data-dir', dataDir], { cwd: ROOT, encoding: 'utf8', timeout: 30_000, uid: 65534, gid: 65534 });
      return { status: r.status, stdout: r.stdout, stderr: r.stderr };
    };
    for (const args of [...READ_COMMANDS, ...WRITE_COMMANDS]) {
      assertRefused(asNobody(args), new RegExp(`permission denied reading ${escape(dataDir)} \\(uid 65534\\)`), args.join(' '));
    }
    const doctor = asNobody(['doctor']);
    assert.equal(doctor.status, 1);
    assert.match(doctor.stdout, /\nproblem {4}Baton cannot use this data directory: permission denied reading /);
  });

  describe('a read-only file system', () => {
    let mount: string;
    before(function () {
      // A private mount namespace (unprivileged where user namespaces are allowed) with a
      // read-only bind mount of a temp folder: skipped where that is not available.
      mount = tempDir('baton-readonly-');
      const probe = inReadOnlyMount(mount, ['true']);
      if (probe.status !== 0) this.skip();
    });

    /** Runs `node dist/cli.js args` where `mount` is mounted read-only. */
    function inReadOnlyMount(dir: string, command: string[]): CliResult {
      const quoted = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
      const script = `mount --bind ${quoted(dir)} ${quoted(dir)} && mount -o remount,bind,ro ${quoted(dir)} && exec ${command.map(quoted).join(' ')}`;
      const r = spawnSync('unshare', ['-rm', 'sh', '-c', script], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });
      return { status: r.error ? null : r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
    }
    const cli = (args: string[]) => inReadOnlyMount(mount, [process.execPath, CLI, ...args]);

    it('with nothing recorded there: every command says "read-only file system" (not ENOENT), doctor exits 1', () => {
      const dataDir = path.join(mount, 'baton');
      for (const args of [...READ_COMMANDS, ...WRITE_COMMANDS, ['import', 'claude-code', tempDir()]]) {
        assertRefused(cli([...args, '--data-dir', dataDir]), /is on a read-only file system/, args.join(' '));
      }
      const doctor = cli(['doctor', '--data-dir', dataDir]);
      assert.equal(doctor.status, 1, doctor.stdout + doctor.stderr);
      assert.match(doctor.stdout, /\nproblem {4}Baton cannot record here: .* is on a read-only file system/);
      assert.deepEqual(fs.readdirSync(mount), []);
    });

    it('control: a store on a read-only file system is still read, and doctor checks it', async () => {
      const dataDir = path.join(mount, 'store');
      const store = await Store.open({ dataDir });
      await store.write('recordTranscript', { key: 's1', harness: 'claude-code', turns: [{ role: 'user', text: 'a heron on a read-only disk' }] });
      await store.close();
      const listed = cli(['sessions', '--json', '--data-dir', dataDir]);
      assert.equal(listed.status, 0, listed.stderr);
      assert.deepEqual(
        JSON.parse(listed.stdout).sessions.map((s: { key: string }) => s.key),
        ['s1'],
      );
      const doctor = cli(['doctor', '--data-dir', dataDir]);
      assert.equal(doctor.status, 0, doctor.stdout + doctor.stderr);
      assertRefused(
        cli(['token', 'create', '--agent', 'a', '--permissions', 'recall', '--data-dir', dataDir]),
        /is on a read-only file system/,
        'token create',
      );
    });
  });
});
