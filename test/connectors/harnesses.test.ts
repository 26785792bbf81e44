// The harness registry (src/harnesses/, docs/harnesses.md): every harness is one object there,
// nothing else names harnesses, and each harness's lineage signals land in the store with the
// source the harness declares.

import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  HARNESSES,
  decideLineage,
  harnessById,
  harnessTranscriptRoots,
  hookHarnesses,
  installableHarnesses,
  parentFromKey,
  reparentSource,
} from '../../src/harnesses/registry';
import { startDaemon, type Daemon } from '../../src/server/daemon';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';
import { KNOWN_HOOK_EVENTS } from '../../src/harnesses/hookRelayRules';
import { HOOK_MAPPINGS } from '../../src/harnesses/hookMappings';

const SRC = path.join(__dirname, '..', '..', 'src');

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? sources(full) : full.endsWith('.ts') ? [full] : [];
  });
}

describe('harness registry', () => {
  after(cleanupTempDirs);

  it('lists each harness once, with what the CLI, the server and VS Code iterate', () => {
    const ids = HARNESSES.map((h) => h.id);
    assert.deepEqual(ids, ['claude-code', 'codex', 'opencode', 'openclaw', 'copilot-cli', 'copilot']);
    assert.equal(new Set(ids).size, ids.length);
    assert.deepEqual(
      hookHarnesses().map((h) => h.id),
      ['claude-code', 'codex', 'copilot-cli', 'copilot'],
    );
    assert.deepEqual(
      installableHarnesses().map((h) => h.id),
      ['claude-code', 'codex', 'opencode', 'copilot-cli', 'copilot'],
    );
    for (const h of installableHarnesses()) {
      assert.ok(h.install.menu.length > 0, `${h.id} is offered in VS Code's install menu`);
      for (const item of h.install.menu) assert.ok(h.install.scopes.includes(item.scope), `${h.id}: menu scope ${item.scope} is installable`);
    }
  });

  it('takes transcript roots from the harnesses, honouring CLAUDE_CONFIG_DIR, CODEX_HOME, COPILOT_HOME, XDG_* and BATON_VSCODE_USER_DATA_DIRS', () => {
    const vscode = (config: string, data: string) => [
      `${config}/Code/User/workspaceStorage`,
      `${config}/Code - Insiders/User/workspaceStorage`,
      `${config}/Code - OSS/User/workspaceStorage`,
      `${config}/VSCodium/User/workspaceStorage`,
      '/home/u/Library/Application Support/Code/User/workspaceStorage',
      '/home/u/Library/Application Support/Code - Insiders/User/workspaceStorage',
      '/home/u/Library/Application Support/Code - OSS/User/workspaceStorage',
      '/home/u/Library/Application Support/VSCodium/User/workspaceStorage',
      `${data}/code-server/User/workspaceStorage`,
    ];
    assert.deepEqual(harnessTranscriptRoots({}, '/home/u'), [
      '/home/u/.claude/projects',
      '/home/u/.codex/sessions',
      '/home/u/.local/share/opencode',
      '/home/u/.openclaw',
      '/home/u/.copilot/session-state',
      ...vscode('/home/u/.config', '/home/u/.local/share'),
    ]);
    assert.deepEqual(
      harnessTranscriptRoots(
        { CLAUDE_CONFIG_DIR: '/c', CODEX_HOME: '/x', COPILOT_HOME: '/p', XDG_DATA_HOME: '/d', XDG_CONFIG_HOME: '/g', BATON_VSCODE_USER_DATA_DIRS: '/cs1:/cs2' },
        '/home/u',
      ),
      [
        '/c/projects',
        '/x/sessions',
        '/d/opencode',
        '/home/u/.openclaw',
        '/p/session-state',
        ...vscode('/g', '/d'),
        '/cs1/User/workspaceStorage',
        '/cs2/User/workspaceStorage',
      ],
    );
  });

  it('decides lineage with every harness signal, in the order of the matrix', () => {
    assert.deepEqual(decideLineage({ harness: 'codex', sessionKey: 'agent:a:subagent:1' }), {
      kind: 'parent',
      parentKey: 'agent:a:main',
      source: 'openclaw-key',
    });
    assert.deepEqual(decideLineage({ harness: 'codex', sessionKey: 'agent:a:subagent:1', explicitParent: 'p' }), {
      kind: 'parent',
      parentKey: 'p',
      source: 'explicit',
    });
    assert.deepEqual(decideLineage({ harness: 'claude-code', sessionKey: 's', harnessAgentId: 'a1' }), { kind: 'recency' });
    assert.deepEqual(decideLineage({ harness: 'codex', sessionKey: 's', harnessAgentId: 'a1' }), { kind: 'none' });
    assert.deepEqual(decideLineage({ harness: 'unknown', sessionKey: 's', propagatedParent: 'q' }), { kind: 'parent', parentKey: 'q', source: 'env' });
    assert.equal(parentFromKey('agent:a:subagent:1'), 'agent:a:main');
    assert.equal(parentFromKey('agent:a:main'), null);
    assert.equal(reparentSource('claude-code'), 'claude-code-subagent');
    assert.equal(reparentSource('codex'), 'codex-subagent');
    assert.equal(reparentSource('opencode'), 'opencode-parent');
    assert.equal(reparentSource('copilot'), 'copilot-subagent');
    assert.deepEqual(decideLineage({ harness: 'copilot', sessionKey: 's/agent-call_1', harnessAgentId: 'call_1' }), { kind: 'none' });
    assert.equal(harnessById('nope'), undefined);
  });

  it("the hook command's mappings are exactly the registry's hook harnesses, without their installers", () => {
    assert.deepEqual(
      HOOK_MAPPINGS.map((m) => [m.id, m.hooks]),
      hookHarnesses().map((h) => [h.id, h.hooks]),
    );
  });

  it("the relaying hook command's event names are exactly the events the mappings know", () => {
    assert.deepEqual([...KNOWN_HOOK_EVENTS].sort(), [...new Set(hookHarnesses().flatMap((h) => h.hooks.events))].sort());
  });

  it('names no harness outside src/harnesses/: no branch on a harness id anywhere else', () => {
    const ids = HARNESSES.map((h) => h.id);
    const offenders: string[] = [];
    for (const file of sources(SRC)) {
      if (file.startsWith(path.join(SRC, 'harnesses') + path.sep)) continue;
      const text = fs.readFileSync(file, 'utf8');
      for (const id of ids) if (text.includes(`'${id}'`) || text.includes(`"${id}"`)) offenders.push(`${path.relative(SRC, file)}: '${id}'`);
    }
    assert.deepEqual(offenders, []);
  });

  describe('re-parenting at session end (real server)', function () {
    this.timeout(60_000);
    let daemon: Daemon;
    const post = async (route: string, body: object) => {
      const res = await fetch(daemon.server.url + route, {
        method: 'POST',
        headers: { authorization: `Bearer ${daemon.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return (await res.json()) as Record<string, unknown>;
    };
    before(async () => {
      daemon = await startDaemon({ dataDir: tempDir('baton-harness-'), port: 0 });
    });
    after(async () => daemon.stop());

    for (const [harness, source] of [
      ['claude-code', 'claude-code-subagent'],
      ['codex', 'codex-subagent'],
      ['opencode', 'opencode-parent'],
    ] as const) {
      it(`records ${harness}'s spawner signal at session-end as '${source}'`, async () => {
        await post('/api/hooks/session-start', { harness, sessionKey: `${harness}-root` });
        await post('/api/hooks/session-start', { harness, sessionKey: `${harness}-root/agent-b`, parentSessionKey: `${harness}-root` });
        await post('/api/hooks/session-end', {
          harness,
          sessionKey: `${harness}-root/agent-b`,
          parentSessionKey: `${harness}-root/agent-a`,
          status: 'completed',
        });
        const res = await fetch(`${daemon.server.url}/api/sessions/${encodeURIComponent(`${harness}-root/agent-b`)}`, {
          headers: { authorization: `Bearer ${daemon.token}` },
        });
        const session = (await res.json()) as { parentSessionKey: string; lineageSource: string };
        assert.equal(session.parentSessionKey, `${harness}-root/agent-a`);
        assert.equal(session.lineageSource, source);
      });
    }
  });
});
