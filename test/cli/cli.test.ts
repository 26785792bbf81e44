// The built `baton` CLI (dist/cli.js) as a user runs it, against a real data directory.

import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import { Store } from '../../src/store/store';
import { runCli } from '../helpers/child';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';

describe('baton CLI', function () {
  this.timeout(60_000);
  let dir: string;

  before(async () => {
    dir = tempDir();
    const store = await Store.open({ dataDir: dir });
    await store.write('recordTranscript', {
      key: 'parent-1',
      harness: 'claude-code',
      project: '/repo',
      turns: [
        { role: 'user', text: 'set up the Juniper trunk ports' },
        { role: 'assistant', text: 'done: VLAN 20 on ge-0/0/1' },
      ],
    });
    await store.write('recordTranscript', { key: 'child-1', harness: 'claude-code', project: '/repo', turns: [{ role: 'user', text: 'audit the VLANs' }] });
    await store.write('updateSession', { key: 'child-1', set: { parentSessionKey: 'parent-1', harnessAgentType: 'Explore' } });
    await store.close();
  });
  after(cleanupTempDirs);

  it('prints help for the program and every command, with exit code 0', () => {
    for (const args of [['--help'], ['sessions', '--help'], ['transcript', '--help'], ['search', '--help'], ['export', '--help'], ['doctor', '--help']]) {
      const result = runCli(args);
      assert.equal(result.status, 0, args.join(' '));
      assert.match(result.stdout, /Usage: baton/);
      if (args[0] !== '--help') assert.match(result.stdout, /--data-dir/);
    }
  });

  it('exits 2 on usage errors and 1 on failures', () => {
    assert.equal(runCli(['nonsense']).status, 2);
    assert.equal(runCli(['sessions', '--limit', 'zero', '--data-dir', dir]).status, 2);
    assert.equal(runCli(['export', '--format', 'pdf', '--data-dir', dir]).status, 2);
    assert.equal(runCli(['transcript']).status, 2);
    const missing = runCli(['transcript', 'no-such-session', '--data-dir', dir]);
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /session no-such-session not found/);
  });

  it('lists sessions as JSON and as a lineage tree', () => {
    const listed = runCli(['sessions', '--json', '--data-dir', dir]);
    assert.equal(listed.status, 0, listed.stderr);
    const body = JSON.parse(listed.stdout) as { sessions: Array<{ key: string; parentSessionKey: string | null }>; count: number };
    assert.equal(body.count, 2);
    assert.equal(body.sessions.find((s) => s.key === 'child-1')!.parentSessionKey, 'parent-1');
    const tree = runCli(['sessions', '--tree', '--data-dir', dir]);
    assert.equal(tree.status, 0);
    const lines = tree.stdout.trim().split('\n');
    assert.match(lines[0], /^parent-1 {2}claude-code/);
    assert.match(lines[1], /^└─ child-1 {2}claude-code Explore/);
  });

  it('prints a transcript, searches, and honours BATON_DATA_DIR', () => {
    const transcript = runCli(['transcript', 'session:parent-1', '--data-dir', dir]);
    assert.equal(transcript.stdout, 'User: set up the Juniper trunk ports\nAssistant: done: VLAN 20 on ge-0/0/1\n');
    const search = runCli(['search', 'juniper', '--json'], { env: { BATON_DATA_DIR: dir } });
    const hits = JSON.parse(search.stdout).hits as Array<{ sessionKey: string; excerpt: string }>;
    assert.deepEqual(
      hits.map((h) => h.sessionKey),
      ['parent-1'],
    );
    assert.match(hits[0].excerpt, /\[\[Juniper\]\]/);
    const none = runCli(['search', '"no such phrase"', '--data-dir', dir]);
    assert.equal(none.status, 0);
    assert.match(none.stdout, /No matches/);
  });

  it('exports JSONL and Markdown', () => {
    const jsonl = runCli(['export', '--data-dir', dir])
      .stdout.trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.equal(jsonl.length, 2);
    const parent = jsonl.find((e) => e.session.key === 'parent-1');
    assert.deepEqual(
      parent.turns.map((t: { role: string }) => t.role),
      ['user', 'assistant'],
    );
    const md = runCli(['export', '--format', 'md', '--session', 'child-1', '--data-dir', dir]).stdout;
    assert.match(md, /^# Session child-1/);
    assert.match(md, /- Parent: parent-1/);
    assert.match(md, /## User\n\naudit the VLANs/);
  });

  it('runs doctor on a missing path (a report, exit 0, nothing created) and on a populated directory', () => {
    const missing = tempDir() + '/x';
    const empty = runCli(['doctor', '--data-dir', missing]);
    assert.equal(empty.status, 0, empty.stdout + empty.stderr);
    assert.match(empty.stdout, /^data dir {3}\S+ \(does not exist yet/);
    assert.equal(empty.stderr, '');
    assert.equal(fs.existsSync(missing), false);
    const report = JSON.parse(runCli(['doctor', '--json', '--data-dir', dir]).stdout);
    assert.deepEqual(report.integrity, ['ok']);
    assert.equal(report.lock.state, 'free');
    assert.equal(report.store.sessions, 2);
    assert.ok(report.snapshots.length >= 1 && report.snapshots.every((s: { valid: boolean }) => s.valid));
    assert.deepEqual(report.problems, []);
  });
});
