// Entity context at each prompt (docs/memory.md, "Entity context at each prompt"), over real HTTP
// on 127.0.0.1 against a real store on disk: aliases named like names, an ambiguous mention adds
// nothing, attributes ranked by relevance to the prompt as well as importance, and unknown
// entities or low-signal prompts inject nothing.

import { strict as assert } from 'node:assert';
import { startDaemon, type Daemon } from '../../src/server/daemon';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';
import { jsonClient as client, runCliAsync as runCli } from '../helpers/jsonClient';

describe('entity context at each prompt (real HTTP, real store)', function () {
  this.timeout(60_000);
  let daemon: Daemon;
  let dataDir: string;
  let api: ReturnType<typeof client>;

  beforeEach(async () => {
    dataDir = tempDir();
    daemon = await startDaemon({ dataDir, port: 0, config: { transcriptRoots: [tempDir('baton-transcripts-')] } });
    api = client(daemon);
  });
  afterEach(async () => daemon.stop());
  after(cleanupTempDirs);

  async function entity(body: Record<string, unknown>): Promise<number> {
    const r = await api.post('/api/entities', body);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.id as number;
  }

  async function edit(id: number, body: Record<string, unknown>): Promise<void> {
    const r = await api.post(`/api/entities/${id}`, body);
    assert.equal(r.status, 200, JSON.stringify(r.body));
  }

  async function rule(entityName: string, content: string, importance = 0.9): Promise<void> {
    const r = await api.post('/api/constraints', { entity: entityName, content, importance });
    assert.equal(r.status, 200, JSON.stringify(r.body));
  }

  async function inject(userPrompt: string): Promise<string> {
    const r = await api.post('/api/hooks/user-prompt-submit', { harness: 'claude-code', sessionKey: 'main', userPrompt });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.inject as string;
  }

  it('an active alias is named like the name: whole words, any case', async () => {
    const id = await entity({ name: 'payments-service', aliases: ['billing', 'Pay API'] });
    await rule('payments-service', 'Never retry a charge without the idempotency key.');
    const listed = await api.get('/api/entities');
    assert.deepEqual(listed.body.entities.find((e: { id: number }) => e.id === id).aliases, ['billing', 'Pay API']);
    const expected = '## Entity context\n- payments-service (constraint): Never retry a charge without the idempotency key.';
    assert.equal(await inject('Why is BILLING slow today?'), expected);
    assert.equal(await inject('does the pay api time out?'), expected);
    assert.equal(await inject('rebilling and prebilling are other words'), '');
  });

  it('the built CLI sets aliases with --alias and takes them away with --no-aliases', async () => {
    const added = await runCli(['entities', 'add', 'search-index', '--alias', 'Finder', '--alias', 'lookup', '--data-dir', dataDir, '--json']);
    assert.equal(added.status, 0, added.stderr);
    const id = JSON.parse(added.stdout).id as number;
    assert.deepEqual(JSON.parse(added.stdout).aliases, ['Finder', 'lookup']);
    await rule('search-index', 'Rebuilds take an hour.');
    assert.match(await inject('why is the finder stale?'), /search-index \(constraint\): Rebuilds take an hour\./);
    const listed = await runCli(['entities', 'list', '--data-dir', dataDir]);
    assert.match(listed.stdout, /search-index aka Finder, lookup/);
    assert.equal((await runCli(['entities', 'edit', String(id), '--alias', 'lookup', '--data-dir', dataDir])).status, 0);
    assert.equal(await inject('why is the finder stale?'), '');
    assert.match(await inject('why is the lookup stale?'), /Rebuilds take an hour/);
    assert.equal((await runCli(['entities', 'edit', String(id), '--no-aliases', '--data-dir', dataDir])).status, 0);
    assert.equal(await inject('why is the lookup stale?'), '');
  });

  it('an alias taken away, or a deactivated entity, is not named any more', async () => {
    const id = await entity({ name: 'ledger-service', aliases: ['books', 'journal'] });
    await rule('ledger-service', 'Entries are append-only.');
    assert.match(await inject('check the books tonight'), /ledger-service \(constraint\): Entries are append-only\./);
    await edit(id, { aliases: ['journal'] });
    assert.equal(await inject('check the books tonight'), '');
    assert.match(await inject('check the journal tonight'), /Entries are append-only/);
    await edit(id, { active: false });
    assert.equal(await inject('check the journal tonight'), '');
    assert.equal(await inject('check the ledger-service tonight'), '');
  });

  it('a mention that names more than one entity injects nothing for it', async () => {
    await entity({ name: 'Atlas' });
    await entity({ name: 'atlas' });
    await rule('Atlas', 'The Atlas project ships on Fridays.');
    await rule('atlas', 'The atlas map tiles are cached for a day.');
    assert.equal(await inject('how is atlas doing this week?'), '');
    // One alias shared by two entities: ambiguous alone, while each full name still names its own.
    await entity({ name: 'orders-db', aliases: ['orders'] });
    await entity({ name: 'orders-ui', aliases: ['orders'] });
    await rule('orders-db', 'Migrations run at night only.');
    await rule('orders-ui', 'Uses the design tokens package.');
    assert.equal(await inject('the orders are late'), '');
    assert.equal(await inject('the orders-db is late'), '## Entity context\n- orders-db (constraint): Migrations run at night only.');
  });

  it('the attribute that matches the prompt is picked over a more important unrelated one', async () => {
    await entity({ name: 'checkout' });
    for (let i = 1; i <= 5; i++) await rule('checkout', `Unrelated house rule number ${i} about logging.`, 0.8);
    await rule('checkout', 'Currency rounding uses half-even rounding to the cent.', 0.6);
    const block = await inject('How does checkout handle currency rounding?');
    const lines = block.split('\n');
    assert.equal(lines[0], '## Entity context');
    assert.equal(lines[1], '- checkout (constraint): Currency rounding uses half-even rounding to the cent.');
    assert.equal(lines.length, 6, block);
    // A prompt that shares no word with it leaves the less important attribute out, as before.
    assert.doesNotMatch(await inject('what about checkout?'), /Currency/);
  });

  it('an unknown entity, a renamed one under its old name, or a low-signal prompt injects nothing', async () => {
    const id = await entity({ name: 'Orion' });
    await rule('Orion', 'Deploys need two approvals.');
    assert.match(await inject('what about the orion deployment?'), /Deploys need two approvals/);
    await edit(id, { name: 'Vega' });
    assert.equal(await inject('what about the orion deployment?'), '');
    assert.match(await inject('what about the vega deployment?'), /Deploys need two approvals/);
    assert.equal(await inject('what about the zephyr deployment?'), '');
    await entity({ name: 'make' });
    await rule('make', 'Always run make with -j4.');
    assert.equal(await inject('ok, make it so'), '');
    assert.match(await inject('run make for the release build'), /Always run make with -j4/);
  });
});
