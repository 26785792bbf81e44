// Degrade, never drop: the built hook command (dist/hook.js) against a real server whose transcript
// roots do not cover the paths the hooks name, and where the hook cannot send the bytes itself
// either (docs/security.md, "Transcripts outside the roots"): a folder stands where the harness's
// file should be. Each event still does what it can (the child opens with a block from what is
// stored, the stopped sub-agent ends with its last message) and each failed step is one
// hooks.log line naming harness, event, step and reason.

import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startDaemon, type Daemon } from '../../src/server/daemon';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';
import { hooksLog, jsonl, runHook } from '../helpers/hookProcess';

describe('hooks degrade, never drop (dist/hook.js against a real server)', function () {
  this.timeout(60_000);
  let dataDir: string;
  let outside: string;
  let daemon: Daemon;

  before(async () => {
    dataDir = tempDir();
    // The server knows only this folder; the harness writes its files somewhere else.
    daemon = await startDaemon({ dataDir, port: 0, config: { transcriptRoots: [tempDir('baton-roots-')] } });
    outside = tempDir('baton-foreign-config-');
  });
  after(async () => {
    await daemon.stop();
    cleanupTempDirs();
  });

  /**
   * A transcript path outside the roots that the hook cannot read either: a folder named like the
   * file, with the lines it would hold inside (so nothing of them may ever be stored).
   */
  const unreadable = (name: string, lines: unknown[]): string => {
    const at = path.join(outside, name);
    fs.mkdirSync(at);
    fs.writeFileSync(path.join(at, 'lines.jsonl'), jsonl(lines));
    return at;
  };

  it('SubagentStart whose parent transcript is refused still opens the child under the parent and prints the block from what is stored', async () => {
    // Unreadable for the server and the hook alike; what would be in it never reaches the store.
    const parentFile = unreadable('sess-d.jsonl', [
      { type: 'user', uuid: 'u1', sessionId: 'sess-d', message: { role: 'user', content: 'Only in the file: FILE-ONLY-7731' } },
    ]);
    // What the store holds of the parent: a prompt sent without its file.
    const submit = await runHook('claude-code', dataDir, {
      hook_event_name: 'UserPromptSubmit',
      session_id: 'sess-d',
      cwd: '/repo-d',
      prompt: 'Migrate billing; remember STORED-MARK-4410',
    });
    assert.equal(submit.status, 0);
    const before = hooksLog(dataDir).length;

    const start = await runHook('claude-code', dataDir, {
      hook_event_name: 'SubagentStart',
      session_id: 'sess-d',
      transcript_path: parentFile,
      cwd: '/repo-d',
      agent_id: 'd1',
      agent_type: 'general-purpose',
    });
    assert.equal(start.status, 0);
    assert.ok(start.ms < 1500, `took ${start.ms} ms`);
    const out = JSON.parse(start.stdout) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } };
    assert.equal(out.hookSpecificOutput.hookEventName, 'SubagentStart');
    assert.match(out.hookSpecificOutput.additionalContext, /^## Inherited from Parent Session\n/);
    assert.match(out.hookSpecificOutput.additionalContext, /STORED-MARK-4410/, 'the block is built from what the store holds');
    assert.doesNotMatch(out.hookSpecificOutput.additionalContext, /FILE-ONLY-7731/, 'the refused file was not read');
    const child = await daemon.store.read('getSession', { scope: 'all', key: 'sess-d/agent-d1' });
    assert.equal(child?.parentSessionKey, 'sess-d');
    assert.equal(child?.status, 'active');

    const lines = hooksLog(dataDir).slice(before);
    assert.equal(lines.length, 1, `one line for the failed step:\n${lines.join('\n')}`);
    assert.match(lines[0], /^\S+ claude-code SubagentStart: step refresh-parent: \/api\/hooks\/user-prompt-submit: HTTP 400 invalid_request after \d+ ms$/);
    assert.doesNotMatch(lines[0], /sess-d|foreign-config|FILE-ONLY/, 'no payload values in the log');
  });

  it('UserPromptSubmit whose transcript is refused still records the prompt and answers with the context', async () => {
    const file = unreadable('sess-p.jsonl', [{ type: 'user', uuid: 'u1', sessionId: 'sess-p', message: { role: 'user', content: 'FILE-ONLY-5150' } }]);
    const before = hooksLog(dataDir).length;
    const r = await runHook('claude-code', dataDir, {
      hook_event_name: 'UserPromptSubmit',
      session_id: 'sess-p',
      cwd: '/repo-p',
      transcript_path: file,
      prompt: 'Keep this prompt PROMPT-MARK-2208',
    });
    assert.equal(r.status, 0);
    const content = (await daemon.store.read('transcript', { scope: 'all', key: 'sess-p' })).content;
    assert.match(content, /PROMPT-MARK-2208/);
    assert.doesNotMatch(content, /FILE-ONLY-5150/);
    assert.match(
      hooksLog(dataDir).slice(before).join('\n'),
      /^\S+ claude-code UserPromptSubmit: step transcript: \/api\/hooks\/user-prompt-submit: HTTP 400 invalid_request/,
    );
  });

  it('SubagentStop whose sub-agent transcript is refused still ends the child with its last message', async () => {
    await runHook('claude-code', dataDir, { hook_event_name: 'SubagentStart', session_id: 'sess-e', cwd: '/repo-e', agent_id: 'e1', agent_type: 'Explore' });
    const agentFile = unreadable('agent-e1.jsonl', [
      { type: 'user', uuid: 's1', isSidechain: true, sessionId: 'sess-e', message: { role: 'user', content: 'Look at invoices' } },
      {
        type: 'assistant',
        uuid: 's2',
        isSidechain: true,
        sessionId: 'sess-e',
        message: { id: 'm1', role: 'assistant', content: [{ type: 'text', text: 'Invoices are stored in cents.' }] },
      },
    ]);
    const before = hooksLog(dataDir).length;
    const stop = await runHook('claude-code', dataDir, {
      hook_event_name: 'SubagentStop',
      session_id: 'sess-e',
      cwd: '/repo-e',
      agent_id: 'e1',
      agent_type: 'Explore',
      agent_transcript_path: agentFile,
      last_assistant_message: 'Invoices are stored in cents.',
      stop_hook_active: false,
    });
    assert.deepEqual([stop.status, stop.stdout], [0, '']);
    assert.ok(stop.ms < 1500, `took ${stop.ms} ms`);
    const child = await daemon.store.read('getSession', { scope: 'all', key: 'sess-e/agent-e1' });
    assert.equal(child?.status, 'completed');
    assert.equal(child?.parentSessionKey, 'sess-e');
    assert.equal((await daemon.store.read('transcript', { scope: 'all', key: 'sess-e/agent-e1' })).content, 'Assistant: Invoices are stored in cents.');

    const lines = hooksLog(dataDir).slice(before);
    assert.equal(lines.length, 1, `one line for the failed step:\n${lines.join('\n')}`);
    assert.match(lines[0], /^\S+ claude-code SubagentStop: step agent-transcript: \/api\/hooks\/session-end: HTTP 400 invalid_request after \d+ ms$/);
  });

  it('SessionEnd and PreCompact with a refused transcript still end the session and still prepare the compaction', async () => {
    const file = unreadable('sess-f.jsonl', [{ type: 'user', uuid: 'u1', sessionId: 'sess-f', message: { role: 'user', content: 'hello' } }]);
    const common = { session_id: 'sess-f', cwd: '/repo-f', transcript_path: file };
    await runHook('claude-code', dataDir, { ...common, hook_event_name: 'SessionStart', source: 'startup' });
    const before = hooksLog(dataDir).length;
    const compact = await runHook('claude-code', dataDir, { ...common, hook_event_name: 'PreCompact', trigger: 'auto' });
    assert.equal(compact.status, 0);
    const stop = await runHook('claude-code', dataDir, { ...common, hook_event_name: 'Stop', last_assistant_message: 'Done with hello.' });
    assert.equal(stop.status, 0);
    assert.match(
      (await daemon.store.read('transcript', { scope: 'all', key: 'sess-f' })).content,
      /Assistant: Done with hello\./,
      'Stop kept the last message',
    );
    const end = await runHook('claude-code', dataDir, { ...common, hook_event_name: 'SessionEnd', reason: 'logout' });
    assert.equal(end.status, 0);
    const ended = await daemon.store.read('getSession', { scope: 'all', key: 'sess-f' });
    assert.equal(ended?.status, 'ended');
    assert.equal(ended?.endReason, 'logout');
    const lines = hooksLog(dataDir).slice(before);
    assert.deepEqual(
      lines.map((l) => l.replace(/^\S+ /, '').replace(/ after \d+ ms$/, '')),
      [
        'claude-code PreCompact: step transcript: /api/hooks/user-prompt-submit: HTTP 400 invalid_request',
        'claude-code Stop: step transcript: /api/hooks/user-prompt-submit: HTTP 400 invalid_request',
        'claude-code SessionEnd: step transcript: /api/hooks/session-end: HTTP 400 invalid_request',
      ],
    );
  });

  it('Codex: a refused child rollout still ends the child with its last message', async () => {
    const rollout = unreadable('rollout-g.jsonl', [{ type: 'session_meta', payload: { id: 'thread-g1' } }]);
    await runHook('codex', dataDir, { hook_event_name: 'UserPromptSubmit', session_id: 'root-g', cwd: '/cg', prompt: 'parent CODEX-G-MARK' });
    const start = await runHook('codex', dataDir, {
      hook_event_name: 'SubagentStart',
      session_id: 'root-g',
      cwd: '/cg',
      agent_id: 'thread-g1',
      agent_type: 'worker',
      transcript_path: rollout,
    });
    assert.match(JSON.parse(start.stdout).hookSpecificOutput.additionalContext, /CODEX-G-MARK/);
    const before = hooksLog(dataDir).length;
    await runHook('codex', dataDir, {
      hook_event_name: 'SubagentStop',
      session_id: 'root-g',
      cwd: '/cg',
      agent_id: 'thread-g1',
      agent_transcript_path: rollout,
      last_assistant_message: 'Worker finished.',
    });
    const child = await daemon.store.read('getSession', { scope: 'all', key: 'root-g/agent-thread-g1' });
    assert.equal(child?.status, 'completed');
    assert.equal((await daemon.store.read('transcript', { scope: 'all', key: 'root-g/agent-thread-g1' })).content, 'Assistant: Worker finished.');
    assert.match(
      hooksLog(dataDir).slice(before).join('\n'),
      /^\S+ codex SubagentStop: step agent-transcript: \/api\/hooks\/session-end: HTTP 400 invalid_request/,
    );
  });

  it("Claude Code's HTTP hooks degrade the same way inside the server, and are noted as fired", async () => {
    const parentFile = path.join(outside, 'sess-h.jsonl');
    fs.writeFileSync(parentFile, jsonl([{ type: 'user', uuid: 'u1', sessionId: 'sess-h', message: { role: 'user', content: 'file only' } }]));
    const post = async (body: object) => {
      const res = await fetch(daemon.server.url + '/api/hooks/claude-code', {
        method: 'POST',
        headers: { authorization: `Bearer ${daemon.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, json: (await res.json()) as { hookSpecificOutput?: { additionalContext: string } } };
    };
    assert.equal((await post({ hook_event_name: 'UserPromptSubmit', session_id: 'sess-h', cwd: '/h', prompt: 'HTTP-H-MARK' })).status, 200);
    const start = await post({ hook_event_name: 'SubagentStart', session_id: 'sess-h', cwd: '/h', transcript_path: parentFile, agent_id: 'h1' });
    assert.equal(start.status, 200);
    assert.match(start.json.hookSpecificOutput?.additionalContext ?? '', /HTTP-H-MARK/);
    assert.equal((await daemon.store.read('getSession', { scope: 'all', key: 'sess-h/agent-h1' }))?.parentSessionKey, 'sess-h');
    const fired = daemon.server.hookHealth.snapshot().harnesses['claude-code'] ?? {};
    assert.ok(fired.SubagentStart, JSON.stringify(fired));
  });
});

describe('the hook budget: a preparing step that hangs leaves time for the essential one', () => {
  it('SubagentStart gives up on a parent refresh that never answers and still opens the child before the deadline', async () => {
    const { handleClaudeCodeEvent } = await import('../../src/harnesses/claudeCode/hooks');
    const { ESSENTIAL_RESERVE_MS } = await import('../../src/harnesses/claudeStyleHooks');
    const file = path.join(tempDir(), 'parent.jsonl');
    fs.writeFileSync(file, '{}\n');
    const calls: string[] = [];
    const failures: string[] = [];
    // A poster standing in for the server: the refresh hangs, the child opens at once.
    const client = {
      call: (id: string) => {
        calls.push(id);
        return id === 'userPromptSubmit' ? new Promise(() => undefined) : Promise.resolve({ inject: 'BLOCK' });
      },
    } as unknown as Parameters<typeof handleClaudeCodeEvent>[1];
    const started = Date.now();
    const deadline = started + 900;
    const out = await handleClaudeCodeEvent({ hook_event_name: 'SubagentStart', session_id: 's', agent_id: 'a', transcript_path: file }, client, {
      deadline,
      stepFailed: (step, err) => failures.push(`${step}: ${(err as Error).name}`),
    });
    assert.deepEqual(calls, ['userPromptSubmit', 'sessionStart']);
    assert.deepEqual(failures, ['refresh-parent: HookStepTimeout']);
    assert.equal(out?.hookSpecificOutput.additionalContext, 'BLOCK');
    assert.ok(Date.now() <= deadline - ESSENTIAL_RESERVE_MS + 100, `the refresh took its share only (${Date.now() - started} ms)`);
  });
});
