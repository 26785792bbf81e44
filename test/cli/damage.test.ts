// The built CLI on damaged data directories: `baton serve` prints what recovery did and refuses to
// serve with acknowledged writes missing unless --accept-loss; `baton doctor` is read-only, exits
// non-zero on damage, works on a read-only directory, and repairs only with --repair.

import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { listJournalFiles } from '../../src/store/engine/journal';
import { layout } from '../../src/node/paths';
import { listSnapshots } from '../../src/store/engine/snapshot';
import { CLI, ROOT, runCli } from '../helpers/child';
import { copyStore, fingerprint, flipBytes, makeWritable, readOnlyFor, runCliAs, seeded, stageStore, type StagedStore } from '../helpers/damage';
import { cleanupTempDirs } from '../helpers/tmp';
import { bearer, rawRequest } from '../helpers/server';
import { startDaemon } from '../../src/server/daemon';

/** Runs `baton serve` until it listens (then SIGTERM) or exits; resolves with its output and exit code. */
function serve(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--quiet', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      if (stdout.includes('Baton listening')) child.kill('SIGTERM');
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('exit', (status, signal) => {
      if (status === null) stderr += `\n(killed by ${signal})`;
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

function damageNewestSnapshot(dir: string, seed: number): string {
  const newest = listSnapshots(layout(dir).snapshotDir)[0].path;
  flipBytes(newest, 0, fs.statSync(newest).size, 2, seeded(seed));
  return newest;
}

function damageBothSnapshots(dir: string, seed: number): void {
  const random = seeded(seed);
  for (const snap of listSnapshots(layout(dir).snapshotDir)) flipBytes(snap.path, 0, fs.statSync(snap.path).size, 2, random);
}

describe('baton CLI on damaged data', function () {
  this.timeout(120_000);
  let template: StagedStore;

  before(async () => {
    assert.ok(fs.existsSync(CLI), `${CLI} is missing: run \`npm run build\` first`);
    template = await stageStore(20);
  });
  after(cleanupTempDirs);

  it('serve prints each recovery event on stderr at startup, one line each, without transcript text', async () => {
    const staged = copyStore(template);
    const newest = damageNewestSnapshot(staged.dir, 1);
    const run = await serve(['--data-dir', staged.dir]);
    assert.equal(run.status, 0, run.stdout + run.stderr);
    const lines = run.stderr.split('\n').filter((l) => l.startsWith('recovery: '));
    assert.equal(lines.length, 3, run.stderr);
    assert.match(lines[0], new RegExp(`recovery: snapshot ${newest} skipped: checksum mismatch|recovery: snapshot ${newest} skipped`));
    assert.match(lines[1], /recovery: damaged snapshot .* moved to .*quarantine/);
    assert.match(lines[2], /recovery: snapshot .* written from the recovered state \(seq 60\)/);
    assert.doesNotMatch(run.stderr, /marker|lorem/, 'stored text on stderr');
    // Recovered once: the next start has nothing to report.
    const again = await serve(['--data-dir', staged.dir]);
    assert.equal(again.status, 0, again.stdout + again.stderr);
    assert.doesNotMatch(again.stderr, /recovery:/);
  });

  it('the running server tells its recovery events to the admin (GET /api/store/recovery), as a VS Code window joining it shows them', async () => {
    const staged = copyStore(template);
    damageNewestSnapshot(staged.dir, 12);
    const daemon = await startDaemon({ dataDir: staged.dir, port: 0 });
    try {
      const admin = await rawRequest({ port: daemon.server.port, path: '/api/store/recovery', headers: bearer(daemon.token) });
      assert.equal(admin.status, 200, admin.text);
      const messages = (admin.json.events as Array<{ message: string }>).map((e) => e.message).join('\n');
      assert.match(messages, /snapshot .*snapshot-0+40\.db skipped/);
      assert.doesNotMatch(messages, /marker|lorem/, 'stored text in the events');
      const agent = await rawRequest({
        port: daemon.server.port,
        method: 'POST',
        path: '/api/tokens',
        headers: bearer(daemon.token),
        body: { agentId: 'a', permissions: ['recall', 'remember'] },
      });
      const refused = await rawRequest({ port: daemon.server.port, path: '/api/store/recovery', headers: bearer(agent.json.token) });
      assert.equal(refused.status, 403, 'only the admin reads file names of the data directory');
    } finally {
      await daemon.stop();
    }
  });

  it('a command that opens the store itself prints the recovery events too, and refuses on missing writes', () => {
    const staged = copyStore(template);
    damageNewestSnapshot(staged.dir, 10);
    const listed = runCli(['sessions', '--json', '--data-dir', staged.dir]);
    assert.equal(listed.status, 0, listed.stderr);
    assert.equal((JSON.parse(listed.stdout) as { count: number }).count, 7);
    assert.match(listed.stderr, /^recovery: snapshot .*snapshot-0+40\.db skipped/m);
    const lost = copyStore(template);
    damageBothSnapshots(lost.dir, 11);
    const refused = runCli(['sessions', '--data-dir', lost.dir]);
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /writes seq 1-20/);
  });

  it('serve refuses when acknowledged writes are missing, names them, changes nothing; --accept-loss starts and says what is gone', async () => {
    const staged = copyStore(template);
    damageBothSnapshots(staged.dir, 2);
    fs.rmSync(layout(staged.dir).lock, { force: true }); // the crashed writer's lock: taken over by any start
    const before = fingerprint(staged.dir);
    const refused = await serve(['--data-dir', staged.dir]);
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /refusing to open .*acknowledged data would be missing/);
    assert.match(refused.stderr, /writes seq 1-20: snapshot snapshot-0+40\.db and snapshot-0+20\.db could not be used/);
    assert.match(refused.stderr, /baton serve --accept-loss/);
    assert.doesNotMatch(refused.stdout, /Baton listening/);
    assert.deepEqual(fingerprint(staged.dir), before, 'the refused start changed files');

    const accepted = await serve(['--data-dir', staged.dir, '--accept-loss']);
    assert.equal(accepted.status, 0, accepted.stdout + accepted.stderr);
    assert.match(accepted.stdout, /Baton listening/);
    assert.match(accepted.stderr, /recovery: opened without writes seq 1-20/);
  });

  it('doctor exits non-zero on each kind of damage and leaves every file byte-identical', () => {
    const cases: Array<[string, (dir: string) => void, RegExp]> = [
      [
        'newest snapshot',
        (dir) => damageNewestSnapshot(dir, 3),
        /snapshot .*snapshot-0+40\.db is damaged .*the older snapshot snapshot-0+20\.db \(seq 20\) and the journal after it are used instead/,
      ],
      ['both snapshots', (dir) => damageBothSnapshots(dir, 4), /writes seq 1-20 missing/],
      [
        'journal tail',
        (dir) => fs.appendFileSync(listJournalFiles(layout(dir).journalDir)[1].path, Buffer.from([7, 0, 0, 0, 1, 2])),
        /bytes of an interrupted append/,
      ],
      [
        'journal middle',
        (dir) => {
          const file = listJournalFiles(layout(dir).journalDir)[1].path;
          flipBytes(file, 600, 700, 1, seeded(5));
        },
        /journal .*journal-0+41\.log has \d+ damaged bytes/,
      ],
    ];
    for (const [name, damage, expected] of cases) {
      const staged = copyStore(template);
      damage(staged.dir);
      const before = fingerprint(staged.dir);
      const run = runCli(['doctor', '--data-dir', staged.dir]);
      assert.equal(run.status, 1, `${name}: ${run.stdout}${run.stderr}`);
      assert.match(run.stdout, expected, name);
      assert.deepEqual(fingerprint(staged.dir), before, `${name}: doctor changed files`);
      const json = JSON.parse(runCli(['doctor', '--json', '--data-dir', staged.dir]).stdout) as { problems: string[] };
      assert.ok(json.problems.length > 0, name);
      assert.deepEqual(fingerprint(staged.dir), before, `${name}: doctor --json changed files`);
    }
  });

  it('doctor reports the damage that a valid newest snapshot hides: a damaged older snapshot has no usable fallback role', () => {
    const staged = copyStore(template);
    const older = listSnapshots(layout(staged.dir).snapshotDir)[1].path;
    flipBytes(older, 0, fs.statSync(older).size, 2, seeded(6));
    const run = runCli(['doctor', '--data-dir', staged.dir]);
    assert.equal(run.status, 1);
    assert.match(run.stdout, /snapshot-0+20\.db is damaged .*the newer snapshot snapshot-0+40\.db is used; this one no longer backs it up/);
    assert.match(run.stdout, /state {6}reaches seq 60 of 60 written/);
    assert.doesNotMatch(run.stdout, /an older one will be used/);
  });

  it("doctor works on a read-only data directory and calls a dead holder's lock stale", () => {
    const staged = copyStore(template);
    damageNewestSnapshot(staged.dir, 7);
    const lock = JSON.parse(fs.readFileSync(layout(staged.dir).lock, 'utf8')) as { pid: number };
    const before = fingerprint(staged.dir);
    const user = readOnlyFor(staged.dir);
    try {
      const run = runCliAs(['doctor', '--data-dir', staged.dir], user);
      assert.equal(run.status, 1, run.stdout + run.stderr);
      assert.match(run.stdout, new RegExp(`lock {7}stale \\(crash-test child, pid ${lock.pid}, not running\\)`));
      assert.match(run.stdout, /note {7}stale lock left by crash-test child/); // a note: the next open takes it over
      assert.doesNotMatch(run.stdout + run.stderr, /in use by/);
      assert.match(run.stdout, /state {6}reaches seq 60 of 60 written/);
      assert.match(run.stdout, /integrity {2}ok/);
      // A reading command needs no lock at all (docs/storage.md): the stale one does not stop it.
      const listed = runCliAs(['sessions', '--data-dir', staged.dir], user);
      assert.equal(listed.status, 0, listed.stderr);
      assert.doesNotMatch(listed.stderr, /in use by/);
    } finally {
      makeWritable(staged.dir);
    }
    const after = fingerprint(staged.dir);
    assert.deepEqual(Object.keys(after).sort(), Object.keys(before).sort());
    for (const file of Object.keys(before)) assert.equal(after[file].split(' ')[0], before[file].split(' ')[0], `${file} changed`);
  });

  it('doctor --repair says what it will do, moves damaged files to quarantine, and the next doctor is clean', () => {
    const staged = copyStore(template);
    const newest = damageNewestSnapshot(staged.dir, 8);
    const journal = listJournalFiles(layout(staged.dir).journalDir)[1].path;
    fs.appendFileSync(journal, Buffer.from([9, 0, 0, 0, 1, 2, 3]));
    const damagedBytes = fs.readFileSync(newest);
    const run = runCli(['doctor', '--repair', '--data-dir', staged.dir]);
    assert.match(run.stderr, /will move the damaged snapshot .*snapshot-0+40\.db to quarantine/);
    assert.match(run.stderr, /will replace .*journal-0+41\.log by a copy holding its 20 valid frame\(s\)/);
    assert.equal(run.status, 0, run.stdout + run.stderr);
    const kept = fs.readdirSync(path.join(staged.dir, 'quarantine'));
    assert.equal(kept.length, 2);
    const snapshotCopy = kept.find((name) => name.endsWith(path.basename(newest)))!;
    assert.ok(fs.readFileSync(path.join(staged.dir, 'quarantine', snapshotCopy)).equals(damagedBytes), 'quarantine keeps the damaged bytes');
    const check = runCli(['doctor', '--json', '--data-dir', staged.dir]);
    assert.equal(check.status, 0, check.stdout);
    const report = JSON.parse(check.stdout) as { problems: string[]; store: { appliedSeq: number }; quarantine: string[] };
    assert.deepEqual(report.problems, []);
    assert.equal(report.store.appliedSeq, 60);
    assert.equal(report.quarantine.length, 2);
  });

  it('doctor --repair refuses when writes are missing unless --accept-loss is given', () => {
    const staged = copyStore(template);
    damageBothSnapshots(staged.dir, 9);
    const before = fingerprint(staged.dir);
    const refused = runCli(['doctor', '--repair', '--data-dir', staged.dir]);
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /not repairing: acknowledged writes are missing/);
    assert.deepEqual(fingerprint(staged.dir), before);
    const repaired = runCli(['doctor', '--repair', '--accept-loss', '--data-dir', staged.dir]);
    assert.equal(repaired.status, 0, repaired.stdout + repaired.stderr);
    assert.match(repaired.stderr, /done {7}opened without writes seq 1-20/);
  });
});
