// A session without a title is named after its first user prompt when its transcript is written
// (the path both live hooks and `baton import` take); a title the harness gave is kept.

import { strict as assert } from 'node:assert';
import { Store } from '../../src/store/store';
import type { Turn } from '../../src/core/types';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';

const user = (text: string): Turn => ({ role: 'user', text });
const assistant = (text: string): Turn => ({ role: 'assistant', text });

describe('session title from the first prompt (real store on disk)', function () {
  this.timeout(60_000);
  let store: Store;

  beforeEach(async () => {
    store = await Store.open({ dataDir: tempDir(), compactBytes: 1 << 30 });
  });
  afterEach(async () => {
    await store.close();
  });
  after(cleanupTempDirs);

  const titleOf = async (key: string) => (await store.read('getSession', { scope: 'all', key }))?.title;

  it('names an untitled session after its first user prompt, and keeps that name as the session goes on', async () => {
    await store.write('recordTranscript', {
      key: 'a',
      harness: 'claude-code',
      turns: [assistant('ready'), user('Fix the double charges in checkout\nplease')],
    });
    assert.equal(await titleOf('a'), 'Fix the double charges in checkout please');
    await store.write('recordTranscript', {
      key: 'a',
      turns: [assistant('ready'), user('Fix the double charges in checkout\nplease'), user('Now something else')],
    });
    assert.equal(await titleOf('a'), 'Fix the double charges in checkout please');
  });

  it('waits for a user prompt, and never overwrites a title the harness gave', async () => {
    await store.write('recordTranscript', { key: 'b', turns: [assistant('no prompt yet')] });
    assert.equal(await titleOf('b'), null);
    await store.write('recordTranscript', { key: 'b', turns: [assistant('no prompt yet'), user('Add the regression test')] });
    assert.equal(await titleOf('b'), 'Add the regression test');

    await store.write('startSession', { key: 'c', harness: 'claude-code', title: 'Given by the harness', readableAgent: 'all' });
    await store.write('recordTranscript', { key: 'c', turns: [user('A prompt')] });
    assert.equal(await titleOf('c'), 'Given by the harness');
  });
});
