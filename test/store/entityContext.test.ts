// The entities a prompt names (injected on user-prompt-submit), on a real sql.js database: whole
// words, any case, names with punctuation or accents, longest first, and entities added between
// prompts found at once.

import { strict as assert } from 'node:assert';
import type { Database } from 'sql.js';
import { registerFunctions } from '../../src/store/engine/engine';
import { entityContext } from '../../src/store/memoryQueries';
import { applyRecord } from '../../src/store/records';
import { migrate } from '../../src/store/schema';
import { loadSqlJs } from '../../src/store/engine/sqljs';

const AT = '2026-01-01T00:00:00.000Z';

function fact(db: Database, agentId: string, entity: string, content: string, importance = 0.8): void {
  applyRecord(db, { t: 'attribute', agentId, entity, entityKind: 'thing', kind: 'fact', content, importance, sessionKey: null, at: AT });
}

const named = (db: Database, prompt: string, agentId = 'default') => entityContext(db, agentId, prompt, 0.5).map((a) => a.entity);

describe('entityContext: entities a prompt names (real sql.js)', () => {
  let db: Database;
  before(async () => {
    db = new (await loadSqlJs()).Database();
    registerFunctions(db);
    migrate(db);
    for (const agent of ['default', 'other']) applyRecord(db, { t: 'agent', id: agent, readPolicy: 'shared', at: AT });
    fact(db, 'default', 'chargeCard()', 'retries at most 4 times');
    fact(db, 'default', 'src/payments/charge.ts', 'owns the retry loop');
    fact(db, 'default', 'payments', 'team: billing');
    fact(db, 'default', 'Über Service', 'runs in eu-west');
    fact(db, 'default', 'card', 'never logged', 0.2); // below the minimum score: named, but nothing to inject
    fact(db, 'other', 'ledger', 'belongs to another agent');
  });
  after(() => db.close());

  it('matches whole words in any case, names with punctuation and accents, longest first', () => {
    assert.deepEqual(named(db, 'Why does CHARGECARD() retry in src/payments/charge.ts? ask payments'), ['src/payments/charge.ts', 'chargeCard()', 'payments']);
    assert.deepEqual(named(db, 'is the über service up?'), ['Über Service']);
    assert.deepEqual(named(db, 'prepayments and chargecards are not named'), []);
    // A first occurrence inside a word does not hide a later whole-word one.
    assert.deepEqual(named(db, 'prepayments, then payments'), ['payments']);
    assert.deepEqual(named(db, 'the ledger'), [], "another agent's entity");
    assert.deepEqual(named(db, 'the ledger', 'other'), ['ledger']);
  });

  it('finds an entity added after earlier prompts, and attributes at or above the minimum score only', () => {
    assert.deepEqual(named(db, 'what about the refund queue?'), []);
    fact(db, 'default', 'refund queue', 'drains hourly');
    fact(db, 'other', 'refund', 'another agent again');
    assert.deepEqual(entityContext(db, 'default', 'what about the refund queue?', 0.5), [
      { entity: 'refund queue', kind: 'fact', content: 'drains hourly', importance: 0.8 },
    ]);
    assert.deepEqual(named(db, 'the card'), []);
    assert.deepEqual(
      entityContext(db, 'default', 'the card', 0.1).map((a) => a.content),
      ['never logged'],
    );
  });

  it('names entities by alias, drops ambiguous mentions, and sees renames, aliases and deactivations at the next prompt', () => {
    const set = (rec: { id?: number; name?: string; aliases?: string[]; active?: boolean }) =>
      applyRecord(db, {
        t: 'entitySet',
        agentId: 'default',
        id: rec.id ?? null,
        name: rec.name ?? null,
        kind: null,
        description: null,
        active: rec.active ?? null,
        aliases: rec.aliases ?? null,
        at: AT,
      });
    fact(db, 'default', 'inventory-service', 'counts stock nightly');
    const id = db.exec("SELECT id FROM entities WHERE name = 'inventory-service'")[0].values[0][0] as number;
    assert.deepEqual(named(db, 'is the stock api up?'), []);
    set({ id, aliases: ['Stock API'] });
    assert.deepEqual(named(db, 'is the stock api up?'), ['inventory-service']);
    // "payments" is now also an alias of the inventory service: the mention is ambiguous.
    set({ id, aliases: ['Stock API', 'payments'] });
    assert.deepEqual(named(db, 'ask payments about the stock api'), ['inventory-service']);
    assert.deepEqual(named(db, 'ask payments'), []);
    set({ id, name: 'warehouse', aliases: [] });
    assert.deepEqual(named(db, 'ask payments about inventory-service'), ['payments']);
    assert.deepEqual(named(db, 'the warehouse'), ['warehouse']);
    set({ id, active: false });
    assert.deepEqual(named(db, 'the warehouse'), []);
  });
});
