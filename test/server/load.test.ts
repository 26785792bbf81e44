// Load: 50 concurrent clients replay realistic hook traffic for 2,000 sessions against the real
// server on 127.0.0.1 (bounded in count and time). No request may fail, and nothing may be lost.

import { strict as assert } from 'node:assert';
import * as http from 'node:http';
import { startDaemon, type Daemon } from '../../src/server/daemon';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';

const SESSIONS = 2000;
const CLIENTS = 50;

describe('load: 50 concurrent clients, 2,000 sessions of hook traffic', function () {
  this.timeout(600_000);
  let daemon: Daemon;
  after(async () => {
    await daemon?.stop();
    cleanupTempDirs();
  });

  it('answers every request without an error and stores every session, turn and lineage link', async () => {
    daemon = await startDaemon({ dataDir: tempDir(), port: 0 });
    const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
    const failures: string[] = [];
    let requests = 0;
    const post = (path: string, body: unknown) =>
      new Promise<Record<string, unknown>>((resolve) => {
        const payload = Buffer.from(JSON.stringify(body));
        const req = http.request(
          {
            host: '127.0.0.1',
            port: daemon.server.port,
            path,
            method: 'POST',
            agent,
            headers: { authorization: `Bearer ${daemon.token}`, 'content-type': 'application/json', 'content-length': payload.length },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => {
              requests++;
              const text = Buffer.concat(chunks).toString();
              if (res.statusCode !== 200) failures.push(`${path} ${res.statusCode} ${text.slice(0, 200)}`);
              try {
                resolve(JSON.parse(text) as Record<string, unknown>);
              } catch {
                resolve({});
              }
            });
          },
        );
        req.on('error', (err) => {
          failures.push(`${path} ${err.message}`);
          resolve({});
        });
        req.end(payload);
      });

    // One session's traffic, as Claude Code's hooks would send it.
    const session = async (i: number) => {
      const key = `load-${i}`;
      const project = `/repo/${i % 20}`;
      const transcript: Array<{ role: string; content: string }> = [];
      await post('/api/hooks/session-start', { harness: 'claude-code', sessionKey: key, project, source: 'startup' });
      for (let turn = 0; turn < 3; turn++) {
        const prompt = `session ${i} turn ${turn}: refactor module${i % 97} and keep token${i} stable`;
        await post('/api/hooks/user-prompt-submit', { harness: 'claude-code', sessionKey: key, project, userPrompt: prompt, transcript: [...transcript] });
        transcript.push({ role: 'user', content: prompt }, { role: 'assistant', content: `done with turn ${turn} of session ${i}` });
      }
      const child = await post('/api/hooks/session-start', {
        harness: 'claude-code',
        sessionKey: `${key}/agent-a`,
        parentSessionKey: key,
        harnessAgentId: 'a',
        project,
      });
      if (typeof child.inject !== 'string' || !child.inject.includes(`token${i}`)) failures.push(`${key}: the child did not inherit its parent's context`);
      await post('/api/sessions/search', { query: `token${i}`, currentSessionKey: `${key}/agent-a`, limit: 3 });
      await post('/api/hooks/session-end', { harness: 'claude-code', sessionKey: key, transcript, reason: 'exit' });
    };

    const started = Date.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (next < SESSIONS) await session(next++);
      }),
    );
    const seconds = (Date.now() - started) / 1000;
    agent.destroy();
    console.log(`      ${requests} requests in ${seconds.toFixed(1)} s (${(requests / seconds).toFixed(0)} req/s)`);
    assert.deepEqual(failures.slice(0, 5), []);
    assert.equal(requests, SESSIONS * 7);

    const stats = await daemon.store.read('stats', {});
    assert.equal(stats.sessions, SESSIONS * 2);
    assert.equal(stats.turns, SESSIONS * 6, 'three exchanges per session, none stored twice');
    const tree = await daemon.store.read('tree', { scope: 'all' });
    assert.equal(tree.length, SESSIONS);
    assert.ok(tree.every((root) => root.children.length === 1 && root.children[0].key === `${root.key}/agent-a`));
    assert.deepEqual(await daemon.store.read('integrity', {}), ['ok']);
  });
});
