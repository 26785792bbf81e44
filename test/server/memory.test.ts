// The memory side over real HTTP on 127.0.0.1 against the real store on disk: extraction at
// session end, recall with its context-epoch ledger, and the MEMORY.md projection with its lease.

import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { lineLogger } from '../../src/core/logger';
import type { ServerConfig } from '../../src/server/config';
import { startDaemon, type Daemon } from '../../src/server/daemon';
import { rememberEndedSession } from '../../src/server/sessionMemory';
import { sleep } from '../helpers/server';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';
import { jsonClient as client } from '../helpers/jsonClient';

type Msg = { role: 'user' | 'assistant'; content: string };

/** A realistic working session: a goal, a decision, rules, a preference, a fact and an open question. */
const LOGIN_SESSION: Msg[] = [
  { role: 'user', content: 'Fix the login redirect loop in authService.ts. Never log raw tokens.' },
  { role: 'assistant', content: 'I looked at authService.ts. It turns out the session cookie is set on the wrong path.' },
  { role: 'user', content: 'I prefer small commits with clear messages.' },
  {
    role: 'assistant',
    content: 'We decided to keep JWT sessions and set the cookie path to /. The auth service listens on port 8443. Updated authService.ts accordingly.',
  },
  { role: 'user', content: 'Good. Should we also rotate the signing keys before the release?' },
];

describe('memory side (real HTTP, real store on disk)', function () {
  this.timeout(60_000);
  let dataDir: string;
  let daemon: Daemon;
  let api: ReturnType<typeof client>;
  let logs: string[];

  async function start(config: Partial<ServerConfig> = {}) {
    logs = [];
    daemon = await startDaemon({ dataDir, port: 0, config, logger: lineLogger((line) => logs.push(line)) });
    api = client(daemon);
  }

  beforeEach(async () => {
    dataDir = tempDir('baton-memory-');
    await start();
  });
  afterEach(async () => daemon.stop());
  after(cleanupTempDirs);

  async function endSession(sessionKey: string, transcript: Msg[], extra: Record<string, unknown> = {}) {
    const reply = await api.post('/api/hooks/session-end', { harness: 'claude-code', sessionKey, transcript, ...extra });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    return reply;
  }

  async function memoriesOf(sessionKey: string) {
    const all = await daemon.store.read('topMemories', { scope: 'all', limit: 100 });
    return all.filter((m) => m.sessionKey === sessionKey);
  }

  describe('extraction at session end', () => {
    it('stores typed memories with importance, linked to the session and its summary node', async () => {
      await api.post('/api/hooks/session-start', { harness: 'claude-code', sessionKey: 'login', project: '/repo' });
      await endSession('login', LOGIN_SESSION);
      const memories = await memoriesOf('login');
      const byType = (type: string) => memories.filter((m) => m.type === type).map((m) => m.content);
      assert.deepEqual(byType('constraint'), ['Never log raw tokens.']);
      assert.deepEqual(byType('decision'), ['We decided to keep JWT sessions and set the cookie path to /.']);
      assert.deepEqual(byType('preference'), ['I prefer small commits with clear messages.']);
      assert.deepEqual(byType('open-question'), ['Should we also rotate the signing keys before the release?']);
      assert.deepEqual(byType('fact').sort(), ['It turns out the session cookie is set on the wrong path.', 'The auth service listens on port 8443.']);
      for (const m of memories) {
        assert.equal(m.project, '/repo');
        assert.ok(m.importance > 0 && m.importance <= 1);
      }
      assert.ok(byType('constraint').length && memories.find((m) => m.type === 'constraint')!.importance > memories.find((m) => m.type === 'fact')!.importance);

      const summaries = (await api.get('/api/sessions/summaries?sessionKey=login')).body.summaries;
      assert.equal(summaries.length, 1);
      assert.equal(summaries[0].kind, 'session');
      assert.equal(summaries[0].source_ref, 'login');
      const expanded = (await api.post('/api/sessions/summaries/expand', { id: summaries[0].id })).body;
      assert.match(expanded.node.content, /^Session login \(claude-code, \/repo\): 5 turns\./);
      assert.match(expanded.node.content, /Goal: Fix the login redirect loop/);
      assert.match(expanded.node.content, /Decisions: We decided to keep JWT sessions/);
      assert.match(expanded.node.content, /Open questions: Should we also rotate the signing keys/);
      assert.equal(expanded.linkedMemories.length, memories.length, 'every memory names the summary node as its source');
    });

    it('is idempotent: a second session-end stores nothing new; new turns add only new memories', async () => {
      await endSession('again', LOGIN_SESSION);
      const first = await memoriesOf('again');
      const stats = await daemon.store.read('stats', {});
      await endSession('again', LOGIN_SESSION);
      assert.deepEqual(await memoriesOf('again'), first);
      assert.deepEqual(await daemon.store.read('stats', {}), stats);
      assert.equal((await api.get('/api/sessions/summaries?sessionKey=again')).body.summaries.length, 1);

      await endSession('again', [...LOGIN_SESSION, { role: 'assistant', content: 'We decided to rotate the keys in the next sprint.' }]);
      const after = await memoriesOf('again');
      assert.equal(after.length, first.length + 1);
      assert.ok(after.some((m) => m.type === 'decision' && m.content === 'We decided to rotate the keys in the next sprint.'));
    });

    it('links the summary nodes into the lineage: a parent summary is the parent of its sub-agents’ summaries', async () => {
      await api.post('/api/hooks/session-start', { harness: 'claude-code', sessionKey: 'parent' });
      await api.post('/api/hooks/session-start', { harness: 'claude-code', sessionKey: 'early-child', parentSessionKey: 'parent' });
      // A sub-agent that ends before its parent: linked when the parent's summary appears.
      await endSession('early-child', [{ role: 'user', content: 'We decided to use pnpm for the workspace.' }]);
      await endSession('parent', LOGIN_SESSION);
      await api.post('/api/hooks/session-start', { harness: 'claude-code', sessionKey: 'late-child', parentSessionKey: 'parent' });
      // A sub-agent that ends after its parent: linked at once.
      await endSession('late-child', [{ role: 'user', content: 'The build runs on node 20 in CI, found that yesterday.' }]);
      const idOf = async (key: string) => (await api.get(`/api/sessions/summaries?sessionKey=${key}`)).body.summaries[0].id;
      const parent = (await api.post('/api/sessions/summaries/expand', { id: await idOf('parent') })).body;
      assert.deepEqual(parent.children.map((c: any) => c.id).sort(), [await idOf('early-child'), await idOf('late-child')].sort());
      const late = (await api.post('/api/sessions/summaries/expand', { id: await idOf('late-child') })).body;
      assert.deepEqual(
        late.parents.map((p: any) => p.id),
        [parent.node.id],
      );
      // The parent goes on and ends again: its new summary is the parent of both sub-agents' summaries too.
      await endSession('parent', [...LOGIN_SESSION, { role: 'assistant', content: 'We decided to ship the fix on Monday.' }]);
      const newer = await idOf('parent');
      assert.notEqual(newer, parent.node.id);
      const expandedNewer = (await api.post('/api/sessions/summaries/expand', { id: newer })).body;
      assert.deepEqual(expandedNewer.children.map((c: any) => c.id).sort(), [await idOf('early-child'), await idOf('late-child')].sort());
    });

    it('never fails the session end: a failing extraction is logged (by class only) and skipped', async () => {
      // Turns stored, never extracted (no session-end yet).
      await api.post('/api/hooks/user-prompt-submit', { harness: 'claude-code', sessionKey: 'fails', userPrompt: 'We decided to retry the upload twice.' });
      // The real store for reads; a write that fails the way a full disk would.
      const failing = {
        read: daemon.store.read.bind(daemon.store),
        write: async () => {
          throw new Error('secret-ish payload text');
        },
      } as unknown as Parameters<typeof rememberEndedSession>[0];
      const lines: string[] = [];
      const result = await rememberEndedSession(
        failing,
        lineLogger((l) => lines.push(l)),
        'default',
        'fails',
      );
      assert.equal(result, null);
      assert.deepEqual(lines, ['session-end memory extraction failed: Error']);
      // And over HTTP a session with nothing to extract still ends normally.
      const reply = await endSession('quiet', [{ role: 'user', content: 'hi' }]);
      assert.equal(reply.body.success, true);
      assert.equal((await api.get('/api/sessions/quiet')).body.status, 'ended');
    });
  });
  describe('recall', () => {
    const recall = (body: Record<string, unknown>, headers?: Record<string, string>) =>
      api.post('/api/hooks/recall', { harness: 'claude-code', ...body }, headers);
    const remember = async (content: string, extra: Record<string, unknown> = {}) =>
      (await api.post('/api/hooks/remember', { harness: 'claude-code', content, ...extra })).body.memoryId as string;

    it('finds a preference by its type and a question in the plural: "user UI preferences" → "prefers dark mode in every editor"', async () => {
      const id = await remember('prefers dark mode in every editor', { type: 'preference' });
      await remember('the CI runs on node 20', { type: 'fact' });
      const found = await recall({ query: 'user UI preferences' });
      assert.deepEqual(
        found.body.results.map((r: any) => r.id),
        [id],
      );
      assert.equal(found.body.meta.hasSupplementary, true, 'found by the question form, not the query as typed');
      // Tags are searchable words too, and the type filter still narrows.
      const tagged = await remember('use the solarized palette', { type: 'preference', tags: 'ui,theme' });
      assert.deepEqual(
        (await recall({ query: 'theme', type: 'preference' })).body.results.map((r: any) => r.id),
        [tagged],
      );
      assert.equal((await recall({ query: 'theme', type: 'fact' })).body.count, 0);
      // A query as typed that matches keeps its exact answer.
      const exact = await recall({ query: 'dark mode' });
      assert.deepEqual(
        exact.body.results.map((r: any) => r.id),
        [id],
      );
      assert.equal(exact.body.meta.hasSupplementary, false);
    });

    it('returns a memory once per context epoch; compaction starts a new epoch; the ledger survives a restart', async () => {
      const a = await remember('deploys go through the staging cluster first', { type: 'constraint' });
      const b = await remember('staging cluster lives in eu-west-1', { type: 'fact' });
      const first = await recall({ query: 'staging cluster', sessionKey: 's1' });
      assert.deepEqual(first.body.results.map((r: any) => r.id).sort(), [a, b].sort());
      assert.equal(first.body.contextEpoch, 0);
      const second = await recall({ query: 'staging cluster', sessionKey: 's1' });
      assert.equal(second.body.count, 0, 'already in this session’s context');
      assert.equal(second.body.message, 'No matching memories found.');
      // Another session has its own ledger; includeRecalled overrides.
      assert.equal((await recall({ query: 'staging cluster', sessionKey: 's2' })).body.count, 2);
      assert.equal((await recall({ query: 'staging cluster', sessionKey: 's1', includeRecalled: true })).body.count, 2);
      // A memory stored later is still returned once.
      const c = await remember('staging cluster is rebuilt every Sunday', { type: 'fact' });
      assert.deepEqual(
        (await recall({ query: 'staging cluster', sessionKey: 's1' })).body.results.map((r: any) => r.id),
        [c],
      );

      await daemon.stop();
      await start();
      assert.equal((await recall({ query: 'staging cluster', sessionKey: 's1' })).body.count, 0, 'the ledger is in the database');
      const pre = await api.post('/api/hooks/pre-compaction', { harness: 'claude-code', sessionKey: 's1' });
      assert.equal(pre.status, 200);
      assert.equal((await recall({ query: 'staging cluster', sessionKey: 's1' })).body.count, 0, 'pre-compaction does not advance the epoch');
      const compacted = await api.post('/api/hooks/compaction-complete', { harness: 'claude-code', sessionKey: 's1', summary: 'worked on deploy docs' });
      assert.equal(compacted.body.contextEpoch, 1);
      const fresh = await recall({ query: 'staging cluster', sessionKey: 's1' });
      assert.equal(fresh.body.contextEpoch, 1);
      assert.deepEqual(fresh.body.results.map((r: any) => r.id).sort(), [a, b, c].sort());
      assert.equal((await recall({ query: 'staging cluster', sessionKey: 's1' })).body.count, 0);
    });

    it('counts compaction summaries as epochs: a compaction reported without one (Codex PostCompact, a `compact` start) keeps the epoch', async () => {
      await api.post('/api/hooks/session-start', { harness: 'codex', sessionKey: 'cx' });
      const a = await remember('the importer needs UTF-16 input', { type: 'fact' });
      assert.deepEqual(
        (await recall({ query: 'importer input', sessionKey: 'cx' })).body.results.map((r: any) => r.id),
        [a],
      );
      // What Codex's PostCompact without a summary sends (src/harnesses/claudeStyleHooks.ts), as Claude Code's `compact` start.
      const compactStart = await api.post('/api/hooks/session-start', { harness: 'codex', sessionKey: 'cx', source: 'compact' });
      assert.equal(compactStart.status, 200);
      const after = await recall({ query: 'importer input', sessionKey: 'cx' });
      assert.equal(after.body.contextEpoch, 0, 'no summary, no new epoch');
      assert.equal(after.body.count, 0, 'the ledger still holds the memory');
      const summarised = await api.post('/api/hooks/compaction-complete', { harness: 'codex', sessionKey: 'cx', summary: 'worked on the importer' });
      assert.equal(summarised.body.contextEpoch, 1);
      assert.deepEqual(
        (await recall({ query: 'importer input', sessionKey: 'cx' })).body.results.map((r: any) => r.id),
        [a],
      );
    });

    it('is refused (409) from the runtime path that does not hold the session', async () => {
      await api.post('/api/hooks/session-start', { harness: 'claude-code', sessionKey: 'claimed', runtimePath: 'plugin' });
      await remember('claims guard the ledger', { type: 'fact' });
      assert.equal((await recall({ query: 'claims ledger', sessionKey: 'claimed', runtimePath: 'legacy' })).status, 409);
      assert.equal((await recall({ query: 'claims ledger', sessionKey: 'claimed' }, { 'x-baton-runtime-path': 'legacy' })).status, 409);
      assert.equal((await recall({ query: 'claims ledger', sessionKey: 'claimed', runtimePath: 'plugin' })).body.count, 1);
    });

    it('honours limit, type, tags, who, project, since/until and keywordQuery', async () => {
      await remember('redis cache holds sessions', { type: 'fact', tags: 'cache,infra', who: 'codex', project: '/a' });
      await remember('redis cache must stay below 2 GB', { type: 'constraint', tags: 'cache', who: 'claude-code', project: '/b' });
      await remember('redis upgrade decided for May', { type: 'decision', who: 'claude-code', project: '/a' });
      const ids = async (body: Record<string, unknown>) => (await recall(body)).body.results.map((r: any) => r.content).sort();
      assert.equal((await recall({ query: 'redis', limit: 1 })).body.count, 1);
      assert.deepEqual(await ids({ query: 'redis', type: 'constraint' }), ['redis cache must stay below 2 GB']);
      assert.deepEqual(await ids({ query: 'redis', tags: 'infra' }), ['redis cache holds sessions']);
      assert.deepEqual(await ids({ query: 'redis', who: 'codex' }), ['redis cache holds sessions']);
      assert.deepEqual(await ids({ query: 'redis', project: '/a' }), ['redis cache holds sessions', 'redis upgrade decided for May']);
      assert.equal((await recall({ query: 'redis', since: '2999-01-01T00:00:00Z' })).body.count, 0);
      assert.equal((await recall({ query: 'redis', until: '2000-01-01T00:00:00Z' })).body.count, 0);
      assert.deepEqual(await ids({ query: 'anything at all', keywordQuery: '"below 2 GB" OR upgrade' }), [
        'redis cache must stay below 2 GB',
        'redis upgrade decided for May',
      ]);
      assert.equal((await recall({ query: 'redis', aggregateBudget: 'huge' })).status, 400);
    });

    it('aggregates into one brief grouped by type within the budget, and saves it on request', async () => {
      for (let i = 0; i < 30; i++) await remember(`billing service note ${i}: ${'detail '.repeat(12)}`, { type: i % 2 ? 'fact' : 'decision' });
      await remember('billing service must never double-charge', { type: 'constraint' });
      const small = await recall({ query: 'billing service', aggregate: true, aggregateBudget: 'small', limit: 50 });
      const brief = small.body.aggregate;
      assert.equal(brief.budget, 'small');
      assert.ok(brief.chars <= brief.maxChars && brief.maxChars === 1200, JSON.stringify(brief));
      assert.equal(brief.included + brief.omitted, small.body.count);
      assert.ok(brief.omitted > 0, 'the budget left some out');
      assert.equal(small.body.message, brief.text);
      assert.match(brief.text, /^Memory brief for "billing service":\nConstraints:\n- billing service must never double-charge/);
      const large = (await recall({ query: 'billing service', aggregate: true, aggregateBudget: 'large', limit: 50 })).body.aggregate;
      assert.ok(large.text.indexOf('Decisions:') > 0 && large.text.indexOf('Decisions:') < large.text.indexOf('Facts:'), large.text);
      assert.ok(large.included > brief.included);
      assert.equal(large.estimatedTokens, Math.ceil(large.chars / 4));

      const saved = await recall({ query: 'billing service', saveAggregate: true, aggregateBudget: 'small', sessionKey: 'keeper' });
      assert.ok(saved.body.aggregateMemoryId);
      const stored = (await daemon.store.read('topMemories', { scope: 'all', limit: 100 })).find((m) => m.id === saved.body.aggregateMemoryId)!;
      assert.equal(stored.type, 'aggregate');
      assert.equal(stored.content, saved.body.aggregate.text);
      assert.equal(stored.sessionKey, 'keeper');
    });

    it('answers the no-op shape with internal: true for Baton’s own calls, and records nothing', async () => {
      await remember('internal callers see nothing', { type: 'fact' });
      const before = await daemon.store.read('stats', {});
      const seqBefore = (await daemon.store.status()).seq;
      const internal = await recall({ query: 'internal callers', sessionKey: 's9' }, { 'x-baton-no-hooks': '1' });
      assert.equal(internal.status, 200);
      assert.deepEqual(internal.body, {
        results: [],
        memories: [],
        count: 0,
        query: 'internal callers',
        method: 'keyword',
        meta: { totalReturned: 0, hasSupplementary: false, noHits: true },
        message: '',
        internal: true,
      });
      assert.deepEqual(await daemon.store.read('stats', {}), before);
      assert.equal((await daemon.store.status()).seq, seqBefore, 'no ledger write');
      assert.equal((await recall({ query: 'internal callers', sessionKey: 's9' })).body.count, 1, 'so the real call still gets it');
    });
  });
  describe('MEMORY.md synthesis', () => {
    const SECTIONS = [
      '## Global Head (Tier 1)',
      '## Thread Heads (Tier 2)',
      '## Session Ledger (Last 30 Days)',
      '## Open Threads',
      '## Durable Notes & Constraints',
      '## Temporal Index',
    ];

    /** The lines of one section of the rendered markdown. */
    function section(markdown: string, heading: string): string[] {
      const start = markdown.indexOf(heading + '\n');
      assert.ok(start >= 0, `${heading} is present`);
      const rest = markdown.slice(start + heading.length + 1);
      const end = rest.search(/\n## /);
      return (end < 0 ? rest : rest.slice(0, end)).split('\n').filter((l) => l.trim());
    }

    it('fills every section from a realistic store', async () => {
      // Several sessions, one with a sub-agent, one still active; memories of every type; constraints; a compaction.
      await api.post('/api/hooks/session-start', { harness: 'claude-code', sessionKey: 'login', project: '/repo', title: 'Fix login' });
      await api.post('/api/hooks/session-start', { harness: 'claude-code', sessionKey: 'login-tests', parentSessionKey: 'login', project: '/repo' });
      await endSession('login-tests', [
        { role: 'user', content: 'Write tests for the cookie path fix.' },
        { role: 'assistant', content: 'Found that auth.spec.ts had no redirect case. We decided to add one per browser.' },
      ]);
      await endSession('login', LOGIN_SESSION);
      await api.post('/api/hooks/session-start', { harness: 'codex', sessionKey: 'billing', project: '/billing' });
      await api.post('/api/hooks/user-prompt-submit', { harness: 'codex', sessionKey: 'billing', userPrompt: 'Refund flow: must not refund twice.' });
      await api.post('/api/hooks/compaction-complete', { harness: 'codex', sessionKey: 'billing', summary: 'Refund flow designed; idempotency keys chosen.' });
      await api.post('/api/hooks/remember', { harness: 'claude-code', content: 'prefers dark mode in every editor', type: 'preference' });
      await api.post('/api/hooks/remember', { harness: 'claude-code', content: 'release train leaves every second Tuesday', type: 'fact', importance: 0.9 });
      await api.post('/api/constraints', { content: 'Always run the migration dry-run first', entity: 'database' });
      await api.post('/api/constraints', { content: 'Always pin the legacy SDK to 1.x', entity: 'legacy-sdk' });
      const legacy = (await api.get('/api/entities')).body.entities.find((e: any) => e.name === 'legacy-sdk');
      assert.equal((await api.post(`/api/entities/${legacy.id}`, { active: false })).status, 200);

      const synth = await api.post('/api/hooks/synthesis', { sessionKey: 'login' });
      assert.equal(synth.status, 200, JSON.stringify(synth.body));
      const md: string = synth.body.prompt;
      for (const heading of SECTIONS) {
        const lines = section(md, heading);
        assert.ok(lines.length > 0, `${heading} has content`);
        assert.ok(!lines.some((l) => /^- (no |nothing )/.test(l)), `${heading} has no placeholder:\n${lines.join('\n')}`);
      }
      const head = section(md, SECTIONS[0]).join('\n');
      assert.match(head, /\[fact\] release train leaves every second Tuesday/);
      assert.match(head, /\[decision\] We decided to keep JWT sessions/);
      assert.match(head, /\[preference\] prefers dark mode in every editor/);
      assert.ok(head.indexOf('release train') < head.indexOf('prefers dark mode'), 'most important first');
      assert.ok(!/double|Never log raw tokens/.test(head), 'constraints have their own section');

      const threads = section(md, SECTIONS[1]);
      assert.match(
        threads[0],
        /^- login \(current\) \[session, .*Goal: Fix the login redirect loop.* · Decisions: We decided to keep JWT/,
        'the synthesis session’s thread first',
      );
      assert.match(threads[1], /^ {2}- login-tests \[session, /, 'the sub-agent nested under its parent');
      assert.ok(threads.some((l) => /^- billing \[compaction, .*Refund flow designed/.test(l)));

      const ledger = section(md, SECTIONS[2]).join('\n');
      assert.match(ledger, /login "Fix login" \(claude-code, \/repo\): ended, 5 turns, 6 memories/);
      // Sessions without a title of their own are named after their first prompt.
      assert.match(ledger, /login-tests "Write tests for the cookie path fix\." \(claude-code, \/repo, sub-agent of login\): ended/);
      assert.match(ledger, /billing "Refund flow: must not refund twice\." \(codex, \/billing\): active/);

      const open = section(md, SECTIONS[3]).join('\n');
      assert.match(open, /Should we also rotate the signing keys before the release\? \(login, /);
      assert.match(open, /still active: billing/);

      const notes = section(md, SECTIONS[4]).join('\n');
      assert.match(notes, /Always run the migration dry-run first \(database\)/);
      assert.match(notes, /Never log raw tokens/);
      assert.match(notes, /must not refund twice/);
      assert.ok(!notes.includes('legacy SDK'), 'a deactivated entity’s rules are not durable notes');
      assert.equal(notes.match(/Never log raw tokens/g)!.length, 1, 'a rule stated as a constraint and as a memory appears once');

      assert.equal(synth.body.indexBlock, SECTIONS[5] + '\n' + section(md, SECTIONS[5]).join('\n'));
      assert.match(synth.body.indexBlock, /compaction .*\(billing\): Refund flow designed/);
      assert.match(synth.body.indexBlock, /session .*\(login-tests\)/);
      assert.equal(synth.body.sessionKey, 'login');
      assert.equal(synth.body.agentId, 'default');
    });

    it('keeps the lease in the database: a second synthesis is refused while it lives, after a restart too', async () => {
      const first = await api.post('/api/hooks/synthesis', { sessionKey: 'writer-a' });
      assert.equal(first.status, 200);
      assert.equal((await api.post('/api/hooks/synthesis', { sessionKey: 'writer-b' })).status, 409);
      assert.equal((await api.post('/api/hooks/synthesis', {})).status, 409);
      const renewed = await api.post('/api/hooks/synthesis', { sessionKey: 'writer-a' });
      assert.equal(renewed.status, 200, 'the holder renews its own lease');
      assert.equal(renewed.body.leaseId, first.body.leaseId);

      await daemon.stop();
      await start();
      assert.equal((await api.post('/api/hooks/synthesis', { sessionKey: 'writer-b' })).status, 409, 'the lease survived the restart');
      assert.equal((await api.post('/api/hooks/synthesis/complete', { content: '# Memory\nfrom b', sessionKey: 'writer-b' })).status, 409);
      const done = await api.post('/api/hooks/synthesis/complete', { content: '# Memory\nfrom a', sessionKey: 'writer-a' });
      assert.equal(done.status, 200);
      assert.equal(fs.readFileSync(done.body.path, 'utf8'), '# Memory\nfrom a');
      assert.equal(done.body.path, path.join(dataDir, 'memory', 'default', 'MEMORY.md'));
      // Writing ended the lease: another writer may synthesise now.
      assert.equal((await api.post('/api/hooks/synthesis', { sessionKey: 'writer-b' })).status, 200);
    });

    it('needs the remember permission: a read-only token can neither synthesise nor hold the lease', async () => {
      const reader = await api.post('/api/tokens', { agentId: 'default', permissions: ['recall'] });
      assert.equal(reader.status, 200, JSON.stringify(reader.body));
      const refused = await fetch(daemon.server.url + '/api/hooks/synthesis', {
        method: 'POST',
        headers: { authorization: `Bearer ${reader.body.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({}),
      });
      assert.equal(refused.status, 403);
      assert.match(((await refused.json()) as { error: string }).error, /remember/);
      assert.equal((await api.post('/api/hooks/synthesis', { sessionKey: 'writer' })).status, 200, 'no lease was taken');
    });

    it('lets a lease expire', async () => {
      await daemon.stop();
      await start({ synthesisLeaseMs: 2000 });
      assert.equal((await api.post('/api/hooks/synthesis', { sessionKey: 'slow' })).status, 200);
      assert.equal((await api.post('/api/hooks/synthesis', { sessionKey: 'next' })).status, 409);
      await sleep(2300);
      const next = await api.post('/api/hooks/synthesis', { sessionKey: 'next' });
      assert.equal(next.status, 200);
      assert.equal(
        (await api.post('/api/hooks/synthesis/complete', { content: '# Memory\nlate', sessionKey: 'slow' })).status,
        409,
        'the expired holder lost it',
      );
      assert.equal((await api.post('/api/hooks/synthesis/complete', { content: '# Memory\nnext', leaseId: next.body.leaseId })).status, 200);
    });

    /** Synthesises and writes `content` as `agentId`'s MEMORY.md; the reply's path. */
    async function writeMemory(agentId: string, content: string): Promise<string> {
      const synth = await api.post('/api/hooks/synthesis', { agentId });
      assert.equal(synth.status, 200, JSON.stringify(synth.body));
      const done = await api.post('/api/hooks/synthesis/complete', { agentId, content, leaseId: synth.body.leaseId });
      assert.equal(done.status, 200, JSON.stringify(done.body));
      return done.body.path as string;
    }

    it('gives `team a` and `team_a` a MEMORY.md each: neither overwrites the other while it holds its lease', async () => {
      const spaced = await writeMemory('team a', '# Memory\nteam a, first');
      // `team a` holds its head's lease again while `team_a` writes.
      const lease = await api.post('/api/hooks/synthesis', { agentId: 'team a' });
      assert.equal(lease.status, 200);
      const underscored = await writeMemory('team_a', '# Memory\nteam_a');
      assert.notEqual(spaced, underscored);
      assert.equal(spaced, path.join(dataDir, 'memory', 'team%20a', 'MEMORY.md'));
      assert.equal(underscored, path.join(dataDir, 'memory', 'team_a', 'MEMORY.md'));
      assert.equal(fs.readFileSync(spaced, 'utf8'), '# Memory\nteam a, first', "team a's file is untouched");
      assert.equal(fs.readFileSync(underscored, 'utf8'), '# Memory\nteam_a');
      const done = await api.post('/api/hooks/synthesis/complete', { agentId: 'team a', content: '# Memory\nteam a, second', leaseId: lease.body.leaseId });
      assert.equal(done.status, 200);
      assert.equal(fs.readFileSync(spaced, 'utf8'), '# Memory\nteam a, second');
      assert.equal(fs.readFileSync(underscored, 'utf8'), '# Memory\nteam_a', "and team_a's neither");
    });

    it('writes the MEMORY.md of agents `..`, `.` and `a/b` inside DIR/memory, under encoded names', async () => {
      const memoryDir = path.join(dataDir, 'memory');
      const expected: Record<string, string> = { '..': '%2E%2E', '.': '%2E', 'a/b': 'a%2Fb', '../../x': '%2E%2E%2F%2E%2E%2Fx' };
      for (const [agentId, folder] of Object.entries(expected)) {
        const file = await writeMemory(agentId, `# Memory\n${agentId}`);
        assert.equal(file, path.join(memoryDir, folder, 'MEMORY.md'), agentId);
        assert.equal(fs.readFileSync(file, 'utf8'), `# Memory\n${agentId}`);
      }
      assert.equal(fs.existsSync(path.join(dataDir, 'MEMORY.md')), false, 'nothing written beside the memory folder');
      assert.equal(fs.existsSync(path.join(memoryDir, 'MEMORY.md')), false, 'nor directly in it');
      assert.deepEqual(fs.readdirSync(memoryDir).sort(), Object.values(expected).sort());
    });

    it('keeps one backup however often MEMORY.md is written: 40 writes leave one .bak, the version before the last', async () => {
      let file = '';
      for (let i = 1; i <= 40; i++) file = await writeMemory('default', `# Memory\nversion ${i}\n${'x'.repeat(10_000)}`);
      const backups = fs.readdirSync(path.dirname(file)).filter((n) => n.endsWith('.bak'));
      assert.deepEqual(backups, ['MEMORY.md.bak']);
      assert.match(fs.readFileSync(path.join(path.dirname(file), 'MEMORY.md.bak'), 'utf8'), /^# Memory\nversion 39\n/);
      assert.match(fs.readFileSync(file, 'utf8'), /^# Memory\nversion 40\n/);
    });

    it('moves a MEMORY.md of the earlier naming to its agent on its next write, only when it holds that agent’s last write', async () => {
      const memoryDir = path.join(dataDir, 'memory');
      const own = await writeMemory('team a', '# Memory\nteam a, before the upgrade');
      // Where the earlier naming kept it (`team a` -> `team_a`), with one of its stamped backups.
      const legacyDir = path.join(memoryDir, 'team_a');
      fs.mkdirSync(legacyDir);
      fs.renameSync(own, path.join(legacyDir, 'MEMORY.md'));
      fs.writeFileSync(path.join(legacyDir, 'MEMORY.md.2026-11-27T10-00-00-000Z.bak'), 'old backup');
      // A file of the earlier naming that is not `x.y`'s last write (changed by hand) is left alone.
      await writeMemory('x.y', '# Memory\nx.y');
      fs.rmSync(path.join(memoryDir, 'x%2Ey'), { recursive: true });
      fs.mkdirSync(path.join(memoryDir, 'x.y'));
      fs.writeFileSync(path.join(memoryDir, 'x.y', 'MEMORY.md'), 'edited by hand');

      await writeMemory('team a', '# Memory\nteam a, after');
      assert.equal(fs.existsSync(path.join(legacyDir, 'MEMORY.md')), false, 'moved away from the shared name');
      assert.equal(fs.readFileSync(path.join(memoryDir, 'team%20a', 'MEMORY.md.bak'), 'utf8'), '# Memory\nteam a, before the upgrade');
      assert.equal(fs.readFileSync(path.join(memoryDir, 'team%20a', 'MEMORY.md'), 'utf8'), '# Memory\nteam a, after');
      await writeMemory('team_a', '# Memory\nteam_a');
      assert.deepEqual(fs.readdirSync(legacyDir), ['MEMORY.md'], "team_a's own file, and the stamped backups of the earlier scheme removed");
      assert.equal(fs.readFileSync(path.join(legacyDir, 'MEMORY.md'), 'utf8'), '# Memory\nteam_a');
      await writeMemory('x.y', '# Memory\nx.y again');
      assert.equal(fs.readFileSync(path.join(memoryDir, 'x.y', 'MEMORY.md'), 'utf8'), 'edited by hand');
    });

    it('resolves the head from the session key: a session of another agent synthesises that agent’s MEMORY.md', async () => {
      await api.post('/api/hooks/session-start', { harness: 'claude-code', sessionKey: 'alice-work', agentId: 'alice' });
      await api.post('/api/hooks/remember', { harness: 'claude-code', content: 'alice keeps notes in Obsidian', agentId: 'alice', type: 'fact' });
      await api.post('/api/hooks/remember', { harness: 'claude-code', content: 'default agent fact about gardening', type: 'fact' });
      const synth = await api.post('/api/hooks/synthesis', { sessionKey: 'alice-work' });
      assert.equal(synth.body.agentId, 'alice');
      assert.match(synth.body.prompt, /alice keeps notes in Obsidian/);
      assert.ok(!synth.body.prompt.includes('gardening'), 'only the head’s own memories');
      // The default agent's head is a different head: its lease is free.
      assert.equal((await api.post('/api/hooks/synthesis', {})).status, 200);
      const written = await api.post('/api/hooks/synthesis/complete', { content: '# Memory\nalice', sessionKey: 'alice-work' });
      assert.equal(written.body.path, path.join(dataDir, 'memory', 'alice', 'MEMORY.md'));
    });
  });
});
