// Session artifacts and background jobs over real HTTP on 127.0.0.1, with the real store and the
// real files on disk: transcript.jsonl and manifest.json at session end, the compaction markdown,
// the --summary.md written by a job, checkpoint jobs that can be polled, and jobs that survive a
// restart (docs/memory.md, "Session artifacts" and "Background jobs").

import { strict as assert } from 'node:assert';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startDaemon, type Daemon } from '../../src/server/daemon';
import { Store } from '../../src/store/store';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';
import { lineLogger } from '../../src/core/logger';
import { jsonClient as client } from '../helpers/jsonClient';

type Api = ReturnType<typeof client>;

/** Every file and folder under `dir`, relative, with `/` separators. */
function walk(dir: string, base = dir): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    out.push(path.relative(base, full).split(path.sep).join('/') + (entry.isDirectory() ? '/' : ''));
    if (entry.isDirectory()) out.push(...walk(full, base));
  }
  return out;
}

function mode(file: string): number {
  return fs.statSync(file).mode & 0o777;
}

/** Polls GET /api/jobs/:id until the job is finished (bounded: 10 s). */
async function finished(api: Api, id: string): Promise<any> {
  for (let i = 0; i < 200; i++) {
    const job = await api.get(`/api/jobs/${encodeURIComponent(id)}`);
    assert.equal(job.status, 200, JSON.stringify(job.body));
    if (job.body.status === 'completed' || job.body.status === 'failed') return job.body;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`job ${id} did not finish within 10 s`);
}

async function converse(api: Api, sessionKey: string, exchanges: Array<[string, string]>, extra: Record<string, unknown> = {}): Promise<void> {
  for (const [prompt, answer] of exchanges) {
    const r = await api.post('/api/hooks/user-prompt-submit', { harness: 'claude-code', sessionKey, userPrompt: prompt, ...extra });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    // The next prompt carries this answer as the last assistant message.
    const a = await api.post('/api/hooks/user-prompt-submit', { harness: 'claude-code', sessionKey, lastAssistantMessage: answer, ...extra });
    assert.equal(a.status, 200);
  }
}

describe('session artifacts and background jobs (real HTTP, real store, real files)', function () {
  this.timeout(60_000);
  let dataDir: string;
  let daemon: Daemon;
  let api: Api;

  beforeEach(async () => {
    dataDir = tempDir('baton-artifacts-');
    daemon = await startDaemon({ dataDir, port: 0 });
    api = client(daemon);
  });
  afterEach(async () => daemon.stop());
  after(cleanupTempDirs);

  describe('transcript.jsonl and manifest.json at session end', () => {
    it('writes one JSON line per turn and a manifest whose hash and size match the file, 0600 files in 0700 folders', async () => {
      await api.post('/api/hooks/session-start', { harness: 'claude-code', sessionKey: 'parent-1', project: '/repo' });
      await api.post('/api/hooks/session-start', { harness: 'claude-code', sessionKey: 'child-1', project: '/repo', parentSessionKey: 'parent-1' });
      await converse(api, 'child-1', [
        ['find the heron colonies', 'they nest by the estuary'],
        ['and the "quoted" one?\nsecond line', 'ok'],
      ]);
      const end = await api.post('/api/hooks/session-end', { harness: 'claude-code', sessionKey: 'child-1', reason: 'done' });
      assert.equal(end.status, 200, JSON.stringify(end.body));
      assert.equal(end.body.transcript_path, 'memory/default/claude-code/transcripts/child-1/transcript.jsonl');
      assert.equal(end.body.manifest_path, 'memory/default/claude-code/transcripts/child-1/manifest.json');
      assert.equal(end.body.turn_count, 4);

      const file = path.join(dataDir, end.body.transcript_path);
      const bytes = fs.readFileSync(file);
      const lines = bytes.toString('utf8').split('\n');
      assert.equal(lines.pop(), '', 'the file ends with a newline');
      const turns = lines.map((l) => JSON.parse(l));
      assert.deepEqual(
        turns.map((t) => [t.session_key, t.seq, t.role, t.text]),
        [
          ['child-1', 1, 'user', 'find the heron colonies'],
          ['child-1', 2, 'assistant', 'they nest by the estuary'],
          ['child-1', 3, 'user', 'and the "quoted" one?\nsecond line'],
          ['child-1', 4, 'assistant', 'ok'],
        ],
      );

      const manifest = JSON.parse(fs.readFileSync(path.join(dataDir, end.body.manifest_path), 'utf8'));
      assert.equal(manifest.session_key, 'child-1');
      assert.equal(manifest.agent_id, 'default');
      assert.equal(manifest.harness, 'claude-code');
      assert.equal(manifest.project, '/repo');
      assert.equal(manifest.lineage.parent_session_key, 'parent-1');
      assert.equal(manifest.status, 'ended');
      assert.equal(manifest.end_reason, 'done');
      assert.equal(manifest.turn_count, 4);
      assert.equal(manifest.transcript_path, end.body.transcript_path);
      assert.equal(manifest.transcript_bytes, bytes.length);
      assert.equal(manifest.transcript_sha256, crypto.createHash('sha256').update(bytes).digest('hex'));
      assert.equal(manifest.compaction_path, null);

      for (const f of [file, path.join(dataDir, end.body.manifest_path)]) assert.equal(mode(f), 0o600, f);
      for (let d = path.dirname(file); d !== dataDir; d = path.dirname(d)) assert.equal(mode(d), 0o700, d);
      // The session end queued a summary job that links itself in the manifest (an atomic rewrite
      // of its own): a temp file may exist while that write runs, never after it.
      const temps = () => walk(path.dirname(file)).filter((n) => n.endsWith('.tmp'));
      for (let i = 0; i < 100 && temps().length > 0; i++) await new Promise((r) => setTimeout(r, 50));
      assert.deepEqual(temps(), [], 'no temp file is left behind');
    });

    it('a second session end rewrites the transcript with every turn and updates the manifest consistently', async () => {
      await converse(api, 'resumed', [['first question', 'first answer']]);
      const first = await api.post('/api/hooks/session-end', { harness: 'claude-code', sessionKey: 'resumed' });
      const manifestFile = path.join(dataDir, first.body.manifest_path);
      const before = JSON.parse(fs.readFileSync(manifestFile, 'utf8'));
      assert.equal(before.turn_count, 2);

      await converse(api, 'resumed', [['second question', 'second answer']]);
      const second = await api.post('/api/hooks/session-end', { harness: 'claude-code', sessionKey: 'resumed' });
      assert.equal(second.body.transcript_path, first.body.transcript_path, 'the same file, rewritten');
      const bytes = fs.readFileSync(path.join(dataDir, second.body.transcript_path));
      const turns = bytes
        .toString('utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      assert.deepEqual(
        turns.map((t) => t.seq),
        [1, 2, 3, 4],
      );
      assert.equal(turns[2].text, 'second question');
      const after = JSON.parse(fs.readFileSync(manifestFile, 'utf8'));
      assert.equal(after.turn_count, 4);
      assert.equal(after.transcript_bytes, bytes.length);
      assert.equal(after.transcript_sha256, crypto.createHash('sha256').update(bytes).digest('hex'));
      assert.equal(after.created_at, before.created_at, 'the manifest keeps its creation time');
      assert.ok(after.captured_at > before.captured_at);
      assert.notEqual(second.body.summaryJobId, first.body.summaryJobId, 'each capture gets its own summary job');

      // An end with no new turn changes no transcript and queues no second summary.
      const inode = fs.statSync(path.join(dataDir, second.body.transcript_path)).ino;
      const third = await api.post('/api/hooks/session-end', { harness: 'claude-code', sessionKey: 'resumed', reason: 'closed again' });
      assert.equal(third.body.summaryJobId, second.body.summaryJobId);
      assert.equal(third.body.turn_count, 4);
      assert.equal(fs.statSync(path.join(dataDir, second.body.transcript_path)).ino, inode, 'the transcript was not rewritten');
      const last = JSON.parse(fs.readFileSync(manifestFile, 'utf8'));
      assert.equal(last.end_reason, 'closed again', 'the status fields follow the session');
      assert.equal(last.captured_at, after.captured_at);
    });

    it('concurrent session ends leave a transcript and a manifest that agree', async () => {
      await converse(api, 'twice', [['one', 'two']]);
      const ends = await Promise.all(
        Array.from({ length: 5 }, (_, i) =>
          api.post('/api/hooks/session-end', { harness: 'claude-code', sessionKey: 'twice', lastAssistantMessage: `closing words ${i}` }),
        ),
      );
      for (const end of ends) assert.equal(end.status, 200, JSON.stringify(end.body));
      // The summary jobs update the manifest too: let them finish before looking at the folder.
      for (const id of new Set(ends.map((e) => e.body.summaryJobId))) assert.equal((await finished(api, id)).status, 'completed');
      const bytes = fs.readFileSync(path.join(dataDir, ends[0].body.transcript_path));
      const manifest = JSON.parse(fs.readFileSync(path.join(dataDir, ends[0].body.manifest_path), 'utf8'));
      const stored = await api.get('/api/sessions/twice/turns');
      assert.equal(manifest.turn_count, stored.body.total, 'the manifest counts every stored turn');
      assert.equal(bytes.toString('utf8').trim().split('\n').length, stored.body.total);
      assert.equal(manifest.transcript_sha256, crypto.createHash('sha256').update(bytes).digest('hex'));
      assert.deepEqual(
        walk(path.dirname(path.join(dataDir, ends[0].body.transcript_path))).sort(),
        ['manifest.json', 'transcript.jsonl'],
        'no temp file is left behind',
      );
    });

    it('writes nothing for a session without turns, and nothing for a bypassed session', async () => {
      await api.post('/api/hooks/session-start', { harness: 'codex', sessionKey: 'empty' });
      const end = await api.post('/api/hooks/session-end', { harness: 'codex', sessionKey: 'empty' });
      assert.equal(end.status, 200);
      assert.equal(end.body.transcript_path, undefined);
      await converse(api, 'quiet', [['secret plans', 'noted']]);
      await api.post('/api/sessions/quiet/bypass', { enabled: true });
      const bypassed = await api.post('/api/hooks/session-end', { harness: 'claude-code', sessionKey: 'quiet' });
      assert.equal(bypassed.body.bypassed, true);
      assert.equal(fs.existsSync(path.join(dataDir, 'memory')), false, JSON.stringify(fs.existsSync(path.join(dataDir, 'memory')) && walk(dataDir)));
    });

    it('when the artifacts cannot be written, the session still ends: its rules and memories are kept and the failure is logged by class', async () => {
      await daemon.stop();
      const lines: string[] = [];
      daemon = await startDaemon({ dataDir, port: 0, logger: lineLogger((l) => lines.push(l)) });
      api = client(daemon);
      // A file where the artifacts folder goes: no folder can be made there, for root either.
      fs.writeFileSync(path.join(dataDir, 'memory'), 'in the way');
      await converse(api, 'blocked', [['Never deploy on Fridays. We decided to ship on Tuesdays.', 'Noted.']]);
      const end = await api.post('/api/hooks/session-end', { harness: 'claude-code', sessionKey: 'blocked', reason: 'done' });
      assert.equal(end.status, 200, JSON.stringify(end.body));
      assert.equal(end.body.success, true);
      assert.equal(end.body.transcript_path, undefined, 'no artifacts were written');
      assert.equal((await api.get('/api/sessions/blocked')).body.status, 'ended');
      const rules = await api.get('/api/constraints?sessionKey=blocked');
      assert.ok(
        rules.body.constraints.some((c: { content: string }) => /Never deploy on Fridays/.test(c.content)),
        JSON.stringify(rules.body),
      );
      const recalled = await api.post('/api/hooks/recall', { harness: 'claude-code', query: 'ship on Tuesdays', includeRecalled: true });
      assert.equal(recalled.status, 200, JSON.stringify(recalled.body));
      assert.ok(recalled.body.results.length > 0, JSON.stringify(recalled.body));
      assert.ok(
        lines.some((l) => /session-end artifacts failed: \w+/.test(l)),
        lines.join('\n'),
      );
      assert.ok(!lines.some((l) => l.includes('in the way') || l.includes(dataDir)), 'the log names the error class only');
    });

    it('never leaves the artifacts folder, whatever the session key or agent id, and keeps different keys apart', async () => {
      const keys = ['../../escape', 'a/b/../../../c', 'session:../x', '..\\..\\win', 'a/b', 'a_b', '.hidden', 'x--y', '-dash', 'é é'];
      const paths = new Set<string>();
      for (const [i, key] of keys.entries()) {
        await converse(api, key, [[`prompt ${i}`, `answer ${i}`]], { agentId: i % 2 ? '../agent' : 'default' });
        const end = await api.post('/api/hooks/session-end', { harness: 'claude-code', sessionKey: key, agentId: i % 2 ? '../agent' : 'default' });
        assert.equal(end.status, 200, `${key}: ${JSON.stringify(end.body)}`);
        const resolved = path.resolve(dataDir, end.body.transcript_path);
        assert.ok(resolved.startsWith(path.join(dataDir, 'memory') + path.sep), `${key} -> ${resolved}`);
        assert.ok(!end.body.transcript_path.split('/').some((part: string) => part === '..' || part === '.' || part === ''), end.body.transcript_path);
        const line = JSON.parse(fs.readFileSync(resolved, 'utf8').split('\n')[0]);
        assert.equal(line.session_key, key.replace(/^session:/, ''), 'the key reads back exactly');
        paths.add(end.body.transcript_path);
      }
      assert.equal(paths.size, keys.length, 'every key has its own folder');
      const top = fs.readdirSync(dataDir).filter((n) => !['baton.lock', 'journal', 'snapshots', 'endpoint.json', 'memory', 'staging'].includes(n));
      assert.deepEqual(top, [], 'nothing was written beside the known entries of the data directory');
      assert.ok(!fs.existsSync(path.join(path.dirname(dataDir), 'escape')));
    });
  });

  describe('compaction markdown', () => {
    it('writes the summary as markdown, answers compaction_path and records it on the summary node and in the manifest', async () => {
      // Compaction before any session end: the manifest is started with the link, then kept by the end.
      await converse(api, 'compacted', [['plan the migration', 'step one: back up']]);
      const summary = 'Goal: migrate the store.\n\nDecided: keep journal frames.';
      const done = await api.post('/api/hooks/compaction-complete', { harness: 'claude-code', sessionKey: 'compacted', summary, project: '/repo' });
      assert.equal(done.status, 200, JSON.stringify(done.body));
      assert.match(done.body.compaction_path, /^memory\/default\/\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z--compacted--compaction\.md$/);
      const file = path.join(dataDir, done.body.compaction_path);
      const text = fs.readFileSync(file, 'utf8');
      assert.match(text, /^---\nkind: "compaction"\nsession_key: "compacted"\n/);
      assert.ok(text.includes(summary), text);
      assert.equal(mode(file), 0o600);

      const nodes = await api.get('/api/sessions/summaries?sessionKey=compacted');
      const node = nodes.body.summaries.find((n: any) => n.id === done.body.summaryId);
      assert.equal(JSON.parse(node.meta_json).compaction_path, done.body.compaction_path);

      const manifestFile = path.join(dataDir, 'memory/default/claude-code/transcripts/compacted/manifest.json');
      assert.equal(JSON.parse(fs.readFileSync(manifestFile, 'utf8')).compaction_path, done.body.compaction_path);
      await api.post('/api/hooks/session-end', { harness: 'claude-code', sessionKey: 'compacted' });
      const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8'));
      assert.equal(manifest.compaction_path, done.body.compaction_path, 'the session end keeps the link');
      assert.equal(manifest.turn_count, 2);

      const again = await api.post('/api/hooks/compaction-complete', { harness: 'claude-code', sessionKey: 'compacted', summary: 'second compaction' });
      assert.notEqual(again.body.compaction_path, done.body.compaction_path, 'each compaction is its own immutable file');
      assert.equal(fs.readFileSync(file, 'utf8'), text, 'the first file is unchanged');
      const latest = JSON.parse(fs.readFileSync(manifestFile, 'utf8'));
      assert.equal(latest.compaction_path, again.body.compaction_path);
      assert.deepEqual(latest.compaction_paths, [done.body.compaction_path, again.body.compaction_path]);
    });

    it('concurrent compactions of one session each get their own file and all are linked', async () => {
      await converse(api, 'busy', [['go', 'going']]);
      const replies = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          api.post('/api/hooks/compaction-complete', { harness: 'claude-code', sessionKey: 'busy', summary: `summary number ${i}` }),
        ),
      );
      const paths = replies.map((r) => r.body.compaction_path as string);
      assert.equal(new Set(paths).size, 6, paths.join(' '));
      paths.forEach((p, i) => assert.ok(fs.readFileSync(path.join(dataDir, p), 'utf8').includes(`summary number ${i}`), p));
      const manifest = JSON.parse(fs.readFileSync(path.join(dataDir, 'memory/default/claude-code/transcripts/busy/manifest.json'), 'utf8'));
      assert.deepEqual([...manifest.compaction_paths].sort(), [...paths].sort());
    });

    it('writes the markdown of a compaction without a session key too, under the agent folder', async () => {
      const done = await api.post('/api/hooks/compaction-complete', { harness: 'codex', summary: 'loose summary' });
      assert.equal(done.status, 200);
      assert.match(done.body.compaction_path, /^memory\/default\/[^/]+--compaction\.md$/);
      assert.match(fs.readFileSync(path.join(dataDir, done.body.compaction_path), 'utf8'), /session_key: null[\s\S]*loose summary/);
    });
  });

  describe('background jobs', () => {
    it('the session-end summary job writes the immutable --summary.md and links it from the manifest', async () => {
      await converse(api, 'summarised', [
        ['build the release notes', 'drafted them'],
        ['add the migration section', 'added'],
      ]);
      const end = await api.post('/api/hooks/session-end', { harness: 'claude-code', sessionKey: 'summarised' });
      assert.ok(end.body.summaryJobId);
      const job = await finished(api, end.body.summaryJobId);
      assert.equal(job.status, 'completed', JSON.stringify(job));
      assert.equal(job.kind, 'session-summary');
      assert.equal(job.sessionKey, 'summarised');
      assert.match(job.result.summary_path, /^memory\/default\/.+--summarised--summary\.md$/);
      const file = path.join(dataDir, job.result.summary_path);
      const text = fs.readFileSync(file, 'utf8');
      assert.match(text, /kind: "summary"/);
      assert.match(text, /## Goal\n\nbuild the release notes/);
      assert.match(text, /- add the migration section/);
      assert.match(text, /## Latest answer\n\nadded/);
      assert.equal(mode(file), 0o600);
      const manifest = JSON.parse(fs.readFileSync(path.join(dataDir, end.body.manifest_path), 'utf8'));
      assert.equal(manifest.summary_path, job.result.summary_path);
      assert.equal(manifest.summary_job_id, end.body.summaryJobId);
      assert.ok(path.basename(file).startsWith(manifest.captured_at.replace(/[:.]/g, '-')), 'named by the capture it summarises');
    });

    it('checkpoint extraction queues a real job: its id can be polled and the job writes the checkpoint', async () => {
      await api.post('/api/hooks/user-prompt-submit', { harness: 'openclaw', sessionKey: 'bot', userPrompt: 'short' });
      assert.deepEqual((await api.post('/api/hooks/session-checkpoint-extract', { harness: 'openclaw', sessionKey: 'bot' })).body, { skipped: true });
      await api.post('/api/hooks/user-prompt-submit', { harness: 'openclaw', sessionKey: 'bot', userPrompt: 'long words about the router '.repeat(30) });
      const queued = await api.post('/api/hooks/session-checkpoint-extract', { harness: 'openclaw', sessionKey: 'bot' });
      assert.equal(queued.body.queued, true);
      // Queued counts as covered: the next call has nothing new.
      assert.deepEqual((await api.post('/api/hooks/session-checkpoint-extract', { harness: 'openclaw', sessionKey: 'bot' })).body, { skipped: true });
      const job = await finished(api, queued.body.jobId);
      assert.equal(job.status, 'completed', JSON.stringify(job));
      assert.equal(job.kind, 'checkpoint-extract');
      assert.equal(job.result.extractionCursor, 2);
      const nodes = await api.get('/api/sessions/summaries?sessionKey=bot');
      const node = nodes.body.summaries.find((n: any) => n.id === job.result.summaryId);
      assert.equal(node.kind, 'checkpoint');
      assert.deepEqual(JSON.parse(node.meta_json), { source: 'session-checkpoint-extract', fromSeq: 1, toSeq: 2 });
      // Checkpoint jobs stay in the store: no --summary.md.
      assert.ok(!fs.existsSync(path.join(dataDir, 'memory')) || !walk(path.join(dataDir, 'memory')).some((n) => n.endsWith('--summary.md')));
      assert.deepEqual((await api.post('/api/hooks/session-checkpoint-extract', { harness: 'openclaw', sessionKey: 'bot' })).body, { skipped: true });
    });

    it('concurrent checkpoint calls over the same turns queue one job', async () => {
      await api.post('/api/hooks/user-prompt-submit', { harness: 'openclaw', sessionKey: 'race', userPrompt: 'x'.repeat(800) });
      const replies = await Promise.all(
        Array.from({ length: 8 }, () => api.post('/api/hooks/session-checkpoint-extract', { harness: 'openclaw', sessionKey: 'race' })),
      );
      const queued = replies.filter((r) => r.body.queued);
      assert.equal(queued.length, 1, JSON.stringify(replies.map((r) => r.body)));
      assert.equal(replies.filter((r) => r.body.skipped).length, 7);
      assert.equal((await finished(api, queued[0].body.jobId)).status, 'completed');
    });

    it('a job is visible to its own agent and the admin only; an unknown id is 404', async () => {
      const token = await api.post('/api/tokens', { agentId: 'alice', permissions: ['recall', 'remember'] });
      const other = await api.post('/api/tokens', { agentId: 'bob', permissions: ['recall', 'remember'] });
      const alice = client(daemon, token.body.token);
      const bob = client(daemon, other.body.token);
      await converse(alice, 'alice-s', [['hello', 'hi']]);
      const end = await alice.post('/api/hooks/session-end', { harness: 'claude-code', sessionKey: 'alice-s' });
      assert.equal(end.body.manifest_path, 'memory/alice/claude-code/transcripts/alice-s/manifest.json');
      assert.equal((await finished(alice, end.body.summaryJobId)).status, 'completed');
      assert.equal((await api.get(`/api/jobs/${end.body.summaryJobId}`)).status, 200);
      assert.equal((await bob.get(`/api/jobs/${end.body.summaryJobId}`)).status, 404);
      assert.equal((await api.get('/api/jobs/no-such-job')).status, 404);

      // The same key in another agent is another session, with its own files.
      await converse(bob, 'alice-s', [['bob asks', 'bob hears']]);
      const bobs = await bob.post('/api/hooks/session-end', { harness: 'claude-code', sessionKey: 'alice-s' });
      assert.equal(bobs.body.manifest_path, 'memory/bob/claude-code/transcripts/alice-s/manifest.json');
      assert.match(fs.readFileSync(path.join(dataDir, end.body.transcript_path), 'utf8'), /"hello"/);
      assert.doesNotMatch(fs.readFileSync(path.join(dataDir, end.body.transcript_path), 'utf8'), /bob asks/);
    });
  });

  describe("the work after a hook's session end (background)", () => {
    it('answers once the end is stored; the queued job then writes the artifacts and extracts the rules', async () => {
      await api.post('/api/hooks/session-start', { harness: 'claude-code', sessionKey: 'quick', project: '/repo' });
      await converse(api, 'quick', [['Never push to the release branch. Draft the notes', 'drafted them']]);
      const end = await api.post('/api/hooks/session-end', { harness: 'claude-code', sessionKey: 'quick', reason: 'done', background: true });
      assert.equal(end.status, 200, JSON.stringify(end.body));
      assert.equal(end.body.success, true);
      assert.equal(end.body.transcript_path, undefined, 'the reply does not wait for the artifacts');
      assert.ok(end.body.follow_up_job_id, JSON.stringify(end.body));
      const sessions = await api.get('/api/sessions?all=1');
      assert.equal(sessions.body.sessions.find((s: any) => s.key === 'quick').status, 'ended', 'the end itself is stored before the reply');

      const job = await finished(api, end.body.follow_up_job_id);
      assert.equal(job.status, 'completed', JSON.stringify(job));
      assert.equal(job.kind, 'session-end');
      assert.equal(job.result.transcript_path, 'memory/default/claude-code/transcripts/quick/transcript.jsonl');
      const manifest = JSON.parse(fs.readFileSync(path.join(dataDir, job.result.manifest_path), 'utf8'));
      assert.equal(manifest.turn_count, 2);
      const rules = await api.get('/api/constraints?sessionKey=quick');
      assert.equal(rules.status, 200, JSON.stringify(rules.body));
      assert.match(JSON.stringify(rules.body), /Never push to the release branch/, 'the rule stated in the session was extracted');
    });

    it('the job is written with the end: a server that stops before doing it leaves it to the next one', async () => {
      await daemon.stop();
      // The end as the hook's write leaves it, with no server to run the job (as after a crash right after the reply).
      const store = await Store.open({ dataDir, holder: 'test' });
      const ended = await store.write('touchSession', {
        key: 'cut-short',
        harness: 'claude-code',
        turns: [
          { role: 'user', text: 'map the estuary herons' },
          { role: 'assistant', text: 'mapped three colonies' },
        ],
        fromPayload: [],
        end: { reason: 'done', status: 'completed', followUpJob: 'session-end' },
      });
      assert.ok(ended.followUpJobId);
      assert.deepEqual(
        (await store.read('openJobs', {})).map((j: any) => j.kind),
        ['session-end'],
      );
      await store.close();

      daemon = await startDaemon({ dataDir, port: 0 });
      api = client(daemon);
      const job = await finished(api, ended.followUpJobId!);
      assert.equal(job.status, 'completed', JSON.stringify(job));
      assert.ok(fs.existsSync(path.join(dataDir, job.result.transcript_path)));
    });
  });

  describe('jobs survive a restart', () => {
    it('jobs left pending or running by a stopped server are done by the next one; an unknown kind fails with an error', async () => {
      await api.post('/api/hooks/user-prompt-submit', { harness: 'openclaw', sessionKey: 'later', userPrompt: 'y'.repeat(900) });
      await daemon.stop();

      // No server: jobs queued straight into the store, one of them left "running" as a crash would.
      const store = await Store.open({ dataDir, holder: 'test' });
      const pending = await store.write('enqueueJob', {
        agentId: 'default',
        kind: 'checkpoint-extract',
        sessionKey: 'later',
        payload: { fromSeq: 1, throughSeq: 1, project: null },
        throughSeq: 1,
      });
      const crashed = await store.write('enqueueJob', {
        agentId: 'default',
        kind: 'session-summary',
        sessionKey: 'later',
        payload: { capturedAt: '2026-01-02T03:04:05.678Z', throughSeq: 1, harness: 'openclaw' },
      });
      await store.write('setJob', { id: crashed.id!, status: 'running' });
      const unknown = await store.write('enqueueJob', { agentId: 'default', kind: 'no-such-kind', payload: {} });
      assert.equal((await store.read('openJobs', {})).length, 3);
      await store.close();

      daemon = await startDaemon({ dataDir, port: 0 });
      api = client(daemon);
      const checkpoint = await finished(api, pending.id!);
      assert.equal(checkpoint.status, 'completed', JSON.stringify(checkpoint));
      assert.equal(checkpoint.result.extractionCursor, 1);
      const summary = await finished(api, crashed.id!);
      assert.equal(summary.status, 'completed', JSON.stringify(summary));
      assert.equal(summary.attempts, 2, 'the interrupted attempt counts');
      assert.equal(summary.result.summary_path, 'memory/default/2026-01-02T03-04-05-678Z--later--summary.md');
      assert.ok(fs.existsSync(path.join(dataDir, summary.result.summary_path)));
      const failed = await finished(api, unknown.id!);
      assert.equal(failed.status, 'failed');
      assert.match(failed.error, /no handler for jobs of kind no-such-kind/);
      assert.equal((await daemon.store.read('openJobs', {})).length, 0);
    });

    it('a checkpoint job whose turns a later compaction already covered does not move the cursor back', async () => {
      await api.post('/api/hooks/user-prompt-submit', { harness: 'openclaw', sessionKey: 'covered', userPrompt: 'z'.repeat(900) });
      await daemon.stop();
      const store = await Store.open({ dataDir, holder: 'test' });
      const job = await store.write('enqueueJob', {
        agentId: 'default',
        kind: 'checkpoint-extract',
        sessionKey: 'covered',
        payload: { fromSeq: 1, throughSeq: 1, project: null },
        throughSeq: 1,
      });
      await store.write('addCheckpoint', { agentId: 'default', key: 'covered', digest: 'compacted', source: 'compaction', extractionCursor: 5 });
      await store.close();
      daemon = await startDaemon({ dataDir, port: 0 });
      api = client(daemon);
      const done = await finished(api, job.id!);
      assert.deepEqual(done.result, { skipped: true, extractionCursor: 5 });
      const latest = await daemon.store.read('latestCheckpoint', { scope: 'all', key: 'covered' });
      assert.equal(latest?.extractionCursor, 5);
    });
  });
});
