// The runtime-path claim rule has one copy, in the store (src/store/claims.ts): the lifecycle
// commands and the `claimFree` read the other write routes ask apply the same rule on the same clock.

import { strict as assert } from 'node:assert';
import { Store } from '../../src/store/store';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';

describe('the runtime-path claim (one rule, in the store)', function () {
  this.timeout(60_000);
  let store: Store;

  beforeEach(async () => {
    store = await Store.open({ dataDir: tempDir(), compactBytes: 1 << 30 });
  });
  afterEach(async () => {
    await store.close();
  });
  after(cleanupTempDirs);

  it('claimFree answers 409 for another path while the claim lives, and passes the holder, no path or an unknown key', async () => {
    await store.write('startSession', { key: 'k', harness: 'h', runtimePath: 'plugin' });
    await assert.rejects(store.read('claimFree', { agentId: 'default', key: 'k', runtimePath: 'legacy' }), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'conflict');
      assert.match(err.message, /session k is claimed by the plugin runtime path until /);
      return true;
    });
    assert.equal(await store.read('claimFree', { agentId: 'default', key: 'k', runtimePath: 'plugin' }), true);
    assert.equal(await store.read('claimFree', { agentId: 'default', key: 'other', runtimePath: 'legacy' }), true);
  });

  it('the same rule guards the lifecycle commands, and an expired claim (ttl) no longer holds', async () => {
    await store.write('startSession', { key: 'k', harness: 'h', runtimePath: 'plugin' });
    await assert.rejects(store.write('startSession', { key: 'k', harness: 'h', runtimePath: 'legacy' }), /claimed by the plugin runtime path/);
    assert.equal(await store.read('claimFree', { agentId: 'default', key: 'k', runtimePath: 'legacy', ttlMs: 0 }), true);
  });
});
