// The hook command relays the harness's payload (connectors/hookRelay.ts): one request to
// POST /api/hooks/<harness>, where the server runs the mapping; it runs the mapping itself only when
// the event must (a file the server may not read, a server from before the route), and each
// failure is one hooks.log line within the hook's budget. The built hook (dist/hook.js) against a
// real server on 127.0.0.1, and against loopback servers that answer as an older or a broken one.

import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { lineLogger } from '../../src/core/logger';
import { startDaemon, type Daemon } from '../../src/server/daemon';
import { hooksLog, runHook } from '../helpers/hookProcess';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';

/** A loopback server standing in for Baton at `dataDir`'s endpoint.json, answering each request with `answer`. */
async function standIn(dataDir: string, answer: (path: string, res: http.ServerResponse) => void): Promise<{ paths: string[]; close: () => Promise<void> }> {
  const paths: string[] = [];
  const server = http.createServer((req, res) => {
    paths.push(req.url ?? '');
    req.resume();
    req.on('end', () => answer(req.url ?? '', res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  // Alive (this process), holding no lock: what a hook takes for a running server.
  fs.writeFileSync(
    path.join(dataDir, 'endpoint.json'),
    JSON.stringify({ url: `http://127.0.0.1:${port}`, port, pid: process.pid, token: 'stand-in', hookRoots: [dataDir] }),
  );
  return {
    paths,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const json = (res: http.ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

describe('the hook command relays the payload (dist/hook.js)', function () {
  this.timeout(60_000);
  after(cleanupTempDirs);

  describe('against a real server', () => {
    let dataDir: string;
    let daemon: Daemon;
    let requests: string[];

    before(async () => {
      dataDir = tempDir();
      requests = [];
      // Every request the server answers, by route pattern (app.ts traces `METHOD ROUTE STATUS ms`).
      const logger = lineLogger((line) => {
        const m = /^POST (\/api\/\S+) (\d{3}) /.exec(line);
        if (m) requests.push(`${m[1]} ${m[2]}`);
      });
      daemon = await startDaemon({ dataDir, port: 0, logger, config: { transcriptRoots: [tempDir('baton-roots-')] } });
    });
    after(async () => daemon.stop());
    beforeEach(() => (requests.length = 0));

    it("sends one request per event, the payload as it came, and prints the server's answer", async () => {
      await runHook('codex', dataDir, { session_id: 'relay-p', cwd: '/p', hook_event_name: 'UserPromptSubmit', prompt: 'RELAY-MARK-5120 in the parent' });
      assert.deepEqual(requests, ['/api/hooks/:harness 200'], 'the prompt: one request, no call of the mapping from the hook');
      requests.length = 0;
      const r = await runHook('codex', dataDir, {
        session_id: 'relay-p',
        cwd: '/p',
        hook_event_name: 'SubagentStart',
        agent_id: 'thread-r',
        agent_type: 'worker',
      });
      assert.equal(r.status, 0);
      assert.match(JSON.parse(r.stdout).hookSpecificOutput.additionalContext, /RELAY-MARK-5120/);
      assert.deepEqual(requests, ['/api/hooks/:harness 200'], 'the sub-agent start: one request');
      const child = await daemon.store.read('getSession', { scope: 'all', key: 'relay-p/agent-thread-r' });
      assert.equal(child?.parentSessionKey, 'relay-p');
      assert.deepEqual(hooksLog(dataDir), []);
    });

    it('runs the mapping in the hook when the payload names a file outside the roots the server reads under', async () => {
      const elsewhere = path.join(tempDir('baton-elsewhere-'), 'rollout.jsonl');
      fs.writeFileSync(elsewhere, '');
      await runHook('codex', dataDir, { session_id: 'relay-q', cwd: '/q', hook_event_name: 'UserPromptSubmit', transcript_path: elsewhere, prompt: 'local' });
      assert.ok(!requests.includes('/api/hooks/:harness 200'), requests.join(', '));
      assert.ok(requests.includes('/api/hooks/user-prompt-submit 200'), requests.join(', '));
    });
  });

  it('runs the mapping in the hook when the server predates the route (404 "no route")', async () => {
    const dataDir = tempDir();
    const old = await standIn(dataDir, (url, res) =>
      url === '/api/hooks/codex'
        ? json(res, 404, { error: `no route POST ${url}`, code: 'not_found' })
        : json(res, 200, { sessionKey: 'old-1', agentId: 'default' }),
    );
    try {
      const r = await runHook('codex', dataDir, { session_id: 'old-1', cwd: '/o', hook_event_name: 'SessionStart', source: 'startup' });
      assert.equal(r.status, 0);
      assert.deepEqual(old.paths, ['/api/hooks/codex', '/api/hooks/session-start']);
      assert.deepEqual(hooksLog(dataDir), []);
    } finally {
      await old.close();
    }
  });

  it('a server error is one hooks.log line, and the event is not sent a second time', async () => {
    const dataDir = tempDir();
    const broken = await standIn(dataDir, (_url, res) => json(res, 500, { error: 'internal error', code: 'internal' }));
    try {
      const r = await runHook('codex', dataDir, { session_id: 'err-1', cwd: '/e', hook_event_name: 'UserPromptSubmit', prompt: 'secret prompt text' });
      assert.equal(r.status, 0);
      assert.equal(r.stdout, '');
      assert.deepEqual(broken.paths, ['/api/hooks/codex']);
      const log = hooksLog(dataDir);
      assert.equal(log.length, 1, log.join('\n'));
      assert.match(log[0], /codex UserPromptSubmit: \/api\/hooks\/codex: HTTP 500 internal$/);
      assert.doesNotMatch(log[0], /secret/);
    } finally {
      await broken.close();
    }
  });

  it('a server that never answers: the hook ends within its budget with one line', async () => {
    const dataDir = tempDir();
    const silent = await standIn(dataDir, () => undefined);
    try {
      const r = await runHook('codex', dataDir, { session_id: 'slow-1', cwd: '/s', hook_event_name: 'UserPromptSubmit', prompt: 'x' });
      assert.equal(r.status, 0);
      assert.ok(r.ms < 5_000, `the hook took ${r.ms} ms`);
      const log = hooksLog(dataDir);
      assert.equal(log.length, 1, log.join('\n'));
      assert.match(log[0], /codex UserPromptSubmit: \/api\/hooks\/codex: timed out \(timeout\) after \d+ ms$/);
    } finally {
      await silent.close();
    }
  });
});
