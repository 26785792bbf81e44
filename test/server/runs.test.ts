// Sub-agent runs through the real server on 127.0.0.1 and the real store on disk (docs/runs.md):
// a finished run is terminal, so any change to it is refused with 409, also after a restart.

import { strict as assert } from 'node:assert';
import { startDaemon, type Daemon } from '../../src/server/daemon';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';

async function post(daemon: Daemon, route: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(daemon.server.url + route, {
    method: 'POST',
    headers: { authorization: `Bearer ${daemon.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

async function get(daemon: Daemon, route: string): Promise<{ status: number; body: any }> {
  const res = await fetch(daemon.server.url + route, { headers: { authorization: `Bearer ${daemon.token}` } });
  return { status: res.status, body: await res.json() };
}

describe('sub-agent runs (real HTTP, real store)', function () {
  this.timeout(60_000);
  after(cleanupTempDirs);

  it('a completed or failed run never changes again: 409, and the stored result stays', async () => {
    const dataDir = tempDir();
    let daemon = await startDaemon({ dataDir, port: 0 });
    try {
      const created = await post(daemon, '/api/runs', { runner: 'external', parentSessionKey: 'p', executionMode: 'ASYNC_POLL', prompt: 'work' });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      const id = created.body.id;
      assert.equal((await post(daemon, '/api/runs', { id, status: 'running' })).status, 200);
      assert.equal((await post(daemon, '/api/runs', { id, resultContent: 'partial' })).status, 200, 'a running run may still change');
      assert.equal((await post(daemon, '/api/runs', { id, status: 'completed', resultContent: 'DONE' })).status, 200);
      for (const change of [{ resultContent: 'rewritten' }, { status: 'failed', error: 'x' }, { status: 'completed', resultContent: 'again' }, { outputTokens: 5 }, { files: ["a.ts"] }]) {
        const res = await post(daemon, '/api/runs', { id, ...change });
        assert.equal(res.status, 409, `${JSON.stringify(change)}: ${JSON.stringify(res.body)}`);
      }
      assert.equal((await get(daemon, `/api/runs/${id}`)).body.resultContent, 'DONE');

      const failed = (await post(daemon, '/api/runs', { runner: 'external', prompt: 'x' })).body.id;
      assert.equal((await post(daemon, '/api/runs', { id: failed, status: 'failed', error: 'boom' })).status, 200);
      assert.equal((await post(daemon, '/api/runs', { id: failed, error: 'other' })).status, 409);

      await daemon.stop();
      daemon = await startDaemon({ dataDir, port: 0 });
      assert.equal((await post(daemon, '/api/runs', { id, resultContent: 'after restart' })).status, 409);
      assert.equal((await get(daemon, `/api/runs/${id}`)).body.resultContent, 'DONE');
    } finally {
      await daemon.stop();
    }
  });
});
