// The runtime-path claim rule has one copy, in the store (src/store/claims.ts): the lifecycle
// commands apply it inside their write, and a write route's requests carry a claim guard
// (src/store/claimGuard.ts) that the worker applies in the same step as each request.

import { strict as assert } from 'node:assert';
import { Store } from '../../src/store/store';
import { withClaimGuard, type ClaimGuard } from '../../src/store/claimGuard';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';

const LEGACY: ClaimGuard = { agentId: 'default', key: 'k', runtimePath: 'legacy' };

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

  const rule = (content: string) => store.write('addAttribute', { entity: 'rules', kind: 'constraint', content, sessionKey: 'k', origin: 'hand' });
  const rules = async () => (await store.read('listConstraints', { scope: { agentId: 'default' }, sessionKey: 'k' })).map((r) => r.content);

  it('a guarded write is refused (409) while another path holds a live claim, and journals nothing; the holder, no guard or an unknown key pass', async () => {
    await store.write('startSession', { key: 'k', harness: 'h', runtimePath: 'plugin' });
    const seq = (await store.status()).seq;
    await assert.rejects(
      withClaimGuard(LEGACY, () => rule('refused')),
      (err: Error & { code?: string }) => {
        assert.equal(err.code, 'conflict');
        assert.match(err.message, /session k is claimed by the plugin runtime path until /);
        return true;
      },
    );
    assert.equal((await store.status()).seq, seq, 'nothing journalled');
    assert.deepEqual(await rules(), []);
    await withClaimGuard({ ...LEGACY, runtimePath: 'plugin' }, () => rule('by the holder'));
    await withClaimGuard(null, () => rule('no runtime path'));
    await withClaimGuard({ ...LEGACY, key: 'other' }, () =>
      store.write('addAttribute', { entity: 'rules', kind: 'constraint', content: 'x', sessionKey: 'other' }),
    );
    assert.deepEqual((await rules()).sort(), ['by the holder', 'no runtime path']);
  });

  it('the claim taken between two steps of a guarded route is honoured at the next write (the check and the write are one step)', async () => {
    await store.write('startSession', { key: 'k', harness: 'h' });
    const outcome = withClaimGuard(LEGACY, async () => {
      await rule('before the claim');
      // Another runtime path takes the session meanwhile (a request of its own, outside this route).
      await withClaimGuard(null, () => store.write('startSession', { key: 'k', harness: 'h', runtimePath: 'plugin' }));
      await rule('after the claim');
    });
    await assert.rejects(outcome, /claimed by the plugin runtime path/);
    assert.deepEqual(await rules(), ['before the claim'], 'the write made before the claim stays; the one after is refused');
  });

  it('reads carry the guard until the route writes, and nothing the route left running carries it after it settled', async () => {
    await store.write('startSession', { key: 'k', harness: 'h', runtimePath: 'plugin' });
    await assert.rejects(
      withClaimGuard(LEGACY, () => store.read('getSession', { scope: { agentId: 'default' }, key: 'k' })),
      /claimed by the plugin runtime path/,
    );
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let later: Promise<unknown> = Promise.resolve();
    await withClaimGuard(LEGACY, async () => {
      // Work the route starts but does not wait for: once the route has answered, it is not the route's write.
      later = gate.then(() => rule('after the route'));
    });
    release();
    await later;
    assert.deepEqual(await rules(), ['after the route']);
  });

  it('the same rule guards the lifecycle commands, and an expired claim (ttl) no longer holds', async () => {
    await store.write('startSession', { key: 'k', harness: 'h', runtimePath: 'plugin' });
    await assert.rejects(store.write('startSession', { key: 'k', harness: 'h', runtimePath: 'legacy' }), /claimed by the plugin runtime path/);
    await withClaimGuard({ ...LEGACY, ttlMs: 0 }, () => rule('the claim expired'));
    assert.deepEqual(await rules(), ['the claim expired']);
  });
});
