// The built `baton` CLI (dist/cli.js) where things go wrong around it: standard output that fails
// (a full device, a reader that went away), data directories that are missing, held by another
// process, owned by another user or open to other users. Real processes, real files.

import { strict as assert } from 'node:assert';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { listJournalFiles } from '../../src/store/engine/journal';
import { layout } from '../../src/node/paths';
import { Store } from '../../src/store/store';
import { CLI, ROOT, runCli, startFixture } from '../helpers/child';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';

const READ_COMMANDS: string[][] = [['sessions'], ['sessions', '--tree'], ['search', 'heron'], ['transcript', 's1'], ['export'], ['export', '--format', 'md']];

/** Names, kinds, sizes, modes, owners and mtimes of everything under `dir` (and `dir` itself). */
function treeState(dir: string): Record<string, string> {
  const state: Record<string, string> = {};
  const visit = (p: string) => {
    const st = fs.lstatSync(p);
    state[path.relative(dir, p) || '.'] = `${st.isDirectory() ? 'd' : 'f'} ${st.size} ${(st.mode & 0o7777).toString(8)} ${st.uid}:${st.gid} ${st.mtimeMs}`;
    if (st.isDirectory()) for (const name of fs.readdirSync(p)) visit(path.join(p, name));
  };
  visit(dir);
  return state;
}

function owners(dir: string): Array<{ path: string; uid: number; gid: number }> {
  const out: Array<{ path: string; uid: number; gid: number }> = [];
  const visit = (p: string) => {
    const st = fs.lstatSync(p);
    out.push({ path: p, uid: st.uid, gid: st.gid });
    if (st.isDirectory()) for (const name of fs.readdirSync(p)) visit(path.join(p, name));
  };
  visit(dir);
  return out;
}

/** One line, "error: …", and nothing that looks like a stack trace or an unhandled event. */
function assertOneErrorLine(stderr: string, pattern: RegExp, what: string): void {
  const lines = stderr.split('\n').filter((l) => l !== '' && !l.startsWith('warning: '));
  assert.equal(lines.length, 1, `${what}: exactly one error line, got:\n${stderr}`);
  assert.match(lines[0], /^error: /, what);
  assert.match(lines[0], pattern, what);
  assert.doesNotMatch(stderr, /\n\s+at |Unhandled|node:events|throw er/, `${what}: no stack trace`);
}

async function seed(dir: string, sessions = 1, textRepeat = 1): Promise<void> {
  const store = await Store.open({ dataDir: dir });
  try {
    for (let i = 1; i <= sessions; i++) {
      await store.write('recordTranscript', {
        key: `s${i}`,
        harness: 'claude-code',
        project: '/repo',
        turns: [{ role: 'user', text: `watching the heron ${i} ` + 'x'.repeat(textRepeat) }],
      });
    }
  } finally {
    await store.close();
  }
}

describe('baton CLI: output failures and data directory safety', function () {
  this.timeout(60_000);
  after(cleanupTempDirs);

  let big: string;
  before(async () => {
    big = tempDir();
    await seed(big, 40, 20_000); // about 800 KB of export: far more than a pipe buffer
  });

  describe('standard output that fails', () => {
    it('`baton export > /dev/full` ends with one error line and exit code 1', function () {
      if (!fs.existsSync('/dev/full')) this.skip();
      for (const args of [['export'], ['export', '--format', 'md'], ['sessions'], ['--help']]) {
        const full = fs.openSync('/dev/full', 'w');
        try {
          const result = spawnSync(process.execPath, [CLI, ...args, ...(args[0] === '--help' ? [] : ['--data-dir', big])], {
            cwd: ROOT,
            stdio: ['ignore', full, 'pipe'],
            encoding: 'utf8',
            timeout: 30_000,
          });
          assert.equal(result.status, 1, `${args.join(' ')}: ${result.stderr}`);
          assertOneErrorLine(result.stderr, /cannot write to standard output: .*ENOSPC/, args.join(' '));
        } finally {
          fs.closeSync(full);
        }
      }
    });

    for (const when of ['before the first byte', 'after the first chunk']) {
      it(`a reader that closes the pipe ${when} (EPIPE): one error line and exit code 1`, async () => {
        const child = spawn(process.execPath, [CLI, 'export', '--data-dir', big], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
        let stderr = '';
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        if (when === 'before the first byte') child.stdout.destroy();
        else child.stdout.once('data', () => child.stdout.destroy());
        const code = await new Promise<number | null>((resolve, reject) => {
          const timer = setTimeout(() => {
            child.kill('SIGKILL');
            reject(new Error('the CLI did not exit within 30 s'));
          }, 30_000);
          child.on('exit', (c) => {
            clearTimeout(timer);
            resolve(c);
          });
        });
        assert.equal(code, 1, stderr);
        assertOneErrorLine(stderr, /cannot write to standard output: the reading end was closed \(EPIPE\)/, when);
      });
    }

    it('control: with a working stdout the same export succeeds', () => {
      const result = runCli(['export', '--data-dir', big]);
      assert.equal(result.status, 0, result.stderr);
      assert.equal(result.stdout.trim().split('\n').length, 40);
    });
  });

  describe('read-only commands', () => {
    it('on a missing path answer as an empty store, exit 0 and create nothing', () => {
      const parent = tempDir();
      const missing = path.join(parent, 'nested', 'baton');
      for (const args of [...READ_COMMANDS.filter((a) => a[0] !== 'transcript'), ['doctor'], ['doctor', '--json']]) {
        const result = runCli([...args, '--data-dir', missing]);
        assert.equal(result.status, 0, `${args.join(' ')}: ${result.stderr}`);
        assert.equal(result.stderr, '', args.join(' '));
        assert.deepEqual(fs.readdirSync(parent), [], `${args.join(' ')} created nothing`);
      }
      const notFound = runCli(['transcript', 's1', '--data-dir', missing]);
      assert.equal(notFound.status, 1);
      assert.equal(notFound.stderr, 'error: session s1 not found\n');
      const viaEnv = runCli(['sessions', '--json'], { env: { BATON_DATA_DIR: missing } });
      assert.equal(viaEnv.status, 0);
      assert.deepEqual(JSON.parse(viaEnv.stdout).sessions, []);
      assert.deepEqual(fs.readdirSync(parent), []);
    });

    it('on an existing folder without a store answer the same and leave it empty (no lock file, no journal)', () => {
      const empty = tempDir();
      for (const args of [...READ_COMMANDS.filter((a) => a[0] !== 'transcript'), ['doctor']]) {
        const result = runCli([...args, '--data-dir', empty]);
        assert.equal(result.status, 0, `${args.join(' ')}: ${result.stderr}`);
        assert.deepEqual(fs.readdirSync(empty), [], `${args.join(' ')} left the folder empty`);
      }
    });

    it('read while another process holds the lock, and see its acknowledged writes', async () => {
      const dir = tempDir();
      await seed(dir);
      const holder = await Store.open({ dataDir: dir, holder: 'a writer in the test process' });
      try {
        const lockBefore = fs.readFileSync(layout(dir).lock, 'utf8');
        await holder.write('recordTranscript', {
          key: 's2',
          harness: 'claude-code',
          project: '/repo',
          turns: [{ role: 'user', text: 'a heron written while the lock is held' }],
        });
        const listed = runCli(['sessions', '--json', '--data-dir', dir]);
        assert.equal(listed.status, 0, listed.stderr);
        assert.deepEqual(
          JSON.parse(listed.stdout)
            .sessions.map((s: { key: string }) => s.key)
            .sort(),
          ['s1', 's2'],
        );
        const transcript = runCli(['transcript', 's2', '--data-dir', dir]);
        assert.equal(transcript.status, 0, transcript.stderr);
        assert.match(transcript.stdout, /a heron written while the lock is held/);
        const search = runCli(['search', 'heron', '--json', '--data-dir', dir]);
        assert.equal(search.status, 0, search.stderr);
        assert.equal(JSON.parse(search.stdout).count, 2);
        const exported = runCli(['export', '--data-dir', dir]);
        assert.equal(exported.status, 0, exported.stderr);
        assert.equal(exported.stdout.trim().split('\n').length, 2);
        assert.equal(fs.readFileSync(layout(dir).lock, 'utf8'), lockBefore, 'the holder keeps its lock');
      } finally {
        await holder.close();
      }
    });

    it('read a store whose writer keeps snapshotting and pruning: every read succeeds and sees a growing prefix', async () => {
      const dir = tempDir();
      await seed(dir);
      // A writer in its own process, four lanes writing back to back, a snapshot every 16 KB of journal.
      const writer = startFixture('storeChild.ts', ['loop', dir], { COMPACT_BYTES: String(16 * 1024) });
      try {
        await new Promise<void>((resolve, reject) => {
          let seen = '';
          const timer = setTimeout(() => reject(new Error(`the writer did not start: ${seen}`)), 30_000);
          writer.stdout!.on('data', (d: Buffer) => {
            seen += d.toString();
            if ((seen.match(/^ack /gm) ?? []).length >= 20) {
              clearTimeout(timer);
              writer.stdout!.removeAllListeners('data');
              writer.stdout!.resume();
              resolve();
            }
          });
        });
        let previous = 0;
        const snapshotsSeen = new Set<string>();
        const seedSnapshots = new Set(fs.readdirSync(layout(dir).snapshotDir));
        // At least 5 reads, and on until the writer has written 2 snapshots (at most 10 reads).
        for (let i = 0; i < 10 && (i < 5 || [...snapshotsSeen].filter((n) => !seedSnapshots.has(n)).length < 2); i++) {
          const result = runCli(['sessions', '--json', '--limit', '1000', '--data-dir', dir]);
          assert.equal(result.status, 0, `read ${i}: ${result.stderr}`);
          const turns = (JSON.parse(result.stdout).sessions as Array<{ turnCount: number }>).reduce((n, s) => n + s.turnCount, 0);
          assert.ok(turns >= previous, `read ${i}: ${turns} turns, fewer than the ${previous} an earlier read saw`);
          previous = turns;
          for (const name of fs.readdirSync(layout(dir).snapshotDir)) snapshotsSeen.add(name);
        }
        assert.ok(
          [...snapshotsSeen].some((n) => !seedSnapshots.has(n)),
          `the writer snapshotted meanwhile (${[...snapshotsSeen].join(', ')})`,
        );
      } finally {
        writer.kill('SIGKILL');
        await new Promise((resolve) => writer.once('exit', resolve));
      }
    });

    it('change nothing in the data dir after a crash: journal frames past the snapshot, a torn tail, a stale lock', async () => {
      const dir = tempDir();
      await seed(dir, 3);
      // A writer in its own process acknowledges 5 writes and is killed: no final snapshot, its lock left behind.
      const child = startFixture('storeChild.ts', ['write', dir, '5']);
      await new Promise<void>((resolve, reject) => {
        let seen = '';
        const timer = setTimeout(() => reject(new Error(`the writer did not finish: ${seen}`)), 30_000);
        child.stdout!.on('data', (d: Buffer) => {
          seen += d.toString();
          if (/^done$/m.test(seen)) {
            clearTimeout(timer);
            resolve();
          }
        });
      });
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
      const journal = listJournalFiles(layout(dir).journalDir).at(-1)!.path;
      fs.appendFileSync(journal, Buffer.from([0x40, 0, 0, 0, 1, 2, 3])); // a frame header promising 64 bytes, then 3
      assert.ok(fs.existsSync(layout(dir).lock), 'the dead writer left its lock');
      const before = treeState(dir);
      for (const args of READ_COMMANDS) {
        const result = runCli([...args, '--data-dir', dir]);
        assert.equal(result.status, 0, `${args.join(' ')}: ${result.stderr}`);
      }
      const listed = JSON.parse(runCli(['sessions', '--json', '--data-dir', dir]).stdout);
      assert.ok(
        listed.sessions.some((s: { project: string }) => s.project === '/crash'),
        'the writes past the snapshot were replayed',
      );
      assert.deepEqual(treeState(dir), before, 'read-only commands left every file as it was');
    });
  });

  describe('ownership (root on a data dir owned by another user: refused)', () => {
    const NOBODY = 65534;
    beforeEach(function () {
      if (typeof process.geteuid !== 'function' || process.geteuid() !== 0) this.skip(); // needs root to chown
    });

    it('write commands refuse a data dir owned by uid 65534, say so, and create nothing in it', async () => {
      const dir = tempDir();
      fs.chownSync(dir, NOBODY, NOBODY);
      const projects = tempDir();
      for (const args of [
        ['token', 'create', '--agent', 'a', '--permissions', 'recall'],
        ['token', 'revoke', 'some-id'],
        ['import', 'claude-code', projects],
        ['serve', '--port', '0', '--quiet'],
      ]) {
        const result = runCli([...args, '--data-dir', dir], { timeout: 20_000 });
        assert.equal(result.status, 1, `${args.join(' ')}: ${result.stderr}`);
        assertOneErrorLine(
          result.stderr,
          new RegExp(`${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} belongs to uid ${NOBODY}, not to this user \\(uid 0\\)`),
          args.join(' '),
        );
        assert.deepEqual(owners(dir), [{ path: dir, uid: NOBODY, gid: NOBODY }], `${args.join(' ')}: nothing created, the dir keeps its owner`);
      }
    });

    it('root does not create a data dir inside a folder owned by uid 65534', () => {
      const home = tempDir();
      fs.chownSync(home, NOBODY, NOBODY);
      const dir = path.join(home, '.local', 'share', 'baton');
      const result = runCli(['token', 'create', '--agent', 'a', '--permissions', 'recall', '--data-dir', dir]);
      assert.equal(result.status, 1, result.stderr);
      assertOneErrorLine(result.stderr, /would be created as root inside .* which belongs to uid 65534/, 'create under another user');
      assert.deepEqual(fs.readdirSync(home), []);
    });

    it('read-only commands still read such a dir, and create nothing in it', async () => {
      const dir = tempDir();
      await seed(dir, 2);
      for (const entry of owners(dir)) fs.lchownSync(entry.path, NOBODY, NOBODY);
      const before = treeState(dir);
      for (const args of READ_COMMANDS) {
        const result = runCli([...args, '--data-dir', dir]);
        assert.equal(result.status, 0, `${args.join(' ')}: ${result.stderr}`);
      }
      assert.deepEqual(treeState(dir), before);
      assert.ok(owners(dir).every((o) => o.uid === NOBODY && o.gid === NOBODY));
    });

    it('control: the same write command works on a dir root owns', () => {
      const dir = tempDir();
      const result = runCli(['token', 'create', '--agent', 'a', '--permissions', 'recall', '--json', '--data-dir', dir]);
      assert.equal(result.status, 0, result.stderr);
      assert.equal(JSON.parse(result.stdout).agentId, 'a');
      assert.ok(fs.readdirSync(dir).length > 0);
    });
  });

  describe('permissions of the data dir', () => {
    it('a data dir open to other users (0755) gets a warning and keeps its mode; 0700 gets none', async function () {
      if (process.platform === 'win32') this.skip();
      const dir = tempDir();
      await seed(dir);
      fs.chmodSync(dir, 0o755);
      for (const args of [['sessions'], ['export'], ['doctor'], ['token', 'create', '--agent', 'a', '--permissions', 'recall']]) {
        const result = runCli([...args, '--data-dir', dir]);
        assert.equal(result.status, 0, `${args.join(' ')}: ${result.stderr}`);
        assert.equal(
          result.stderr,
          `warning: the data directory ${dir} is open to other users (mode 0755); it holds transcripts and token hashes: run chmod 700 ${JSON.stringify(dir)}\n`,
          args.join(' '),
        );
        assert.equal(fs.statSync(dir).mode & 0o777, 0o755, 'the mode is left as it is');
      }
      fs.chmodSync(dir, 0o700);
      const quiet = runCli(['sessions', '--data-dir', dir]);
      assert.equal(quiet.status, 0);
      assert.equal(quiet.stderr, '');
    });
  });
});
