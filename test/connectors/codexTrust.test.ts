// Codex's hook trust (docs/harnesses.md, "Codex trust"): `baton install codex` records trust for
// exactly the entries it wrote, `--no-trust` leaves it alone, uninstall removes what install added.
// The hash computation is checked against vectors the real Codex 0.169.0 reported, and the whole
// install against the real Codex's app-server (`hooks/list`), with and without Codex on PATH.
// Needs `npm run build` (the CLI runs from dist/).

import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { codexCommandHookHash, codexEventLabel, listCodexHooks } from '../../src/harnesses/codex/trust';
import { removeTomlTables, setTomlTableValue } from '../../src/harnesses/codex/tomlTables';
import { baton } from '../shared/claudeCli';
import { harnessCliBin, requireHarnessCli } from '../shared/harnessClis';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';

describe('Codex hook trust: hashes and config.toml edits', () => {
  it("computes Codex's event labels and trusted hashes (vectors from the real Codex 0.169.0)", () => {
    assert.equal(codexEventLabel('SubagentStart'), 'subagent_start');
    assert.equal(codexEventLabel('UserPromptSubmit'), 'user_prompt_submit');
    assert.equal(codexEventLabel('Stop'), 'stop');
    const command = '/usr/bin/node /work/wt-clis/dist/hook.js codex --data-dir /tmp/probe-home/data';
    assert.equal(codexCommandHookHash('PreCompact', command, 5), 'sha256:c5138a80aa3d21417f927cd9b2da957ab8a50110c4db9e8aee477471608327d2');
    assert.equal(codexCommandHookHash('PostCompact', command, 5), 'sha256:999e9d7d948e065526344f45e298bf65df82842f7b4f4406199aaee69971b44e');
    // Codex clamps a SessionEnd hook's timeout to 3 s before hashing.
    assert.equal(codexCommandHookHash('SessionEnd', command, 5), 'sha256:1fee837b10c64202966a0e0b9afb7c6509de7540caed5f03c612bc0e879e018f');
    assert.equal(codexCommandHookHash('SessionEnd', command, 3), codexCommandHookHash('SessionEnd', command, 5));
    assert.notEqual(codexCommandHookHash('Stop', command, 5), codexCommandHookHash('Stop', command + ' ', 5));
  });

  it('sets and removes [hooks.state."<key>"] tables, keeping every other line (also tables Codex wrote between our markers)', () => {
    const original = [
      'model = "o4"',
      '',
      '# >>> baton mcp (managed by `baton install codex`)',
      '[mcp_servers.baton]',
      'command = "node"',
      '',
      '[hooks.state."/h/hooks.json:stop:0:0"]',
      'trusted_hash = "sha256:theirs"',
      '# <<< baton mcp',
      '',
    ].join('\n');
    const key = ['hooks', 'state', '/h/hooks.json:stop:1:0'];
    const added = setTomlTableValue(original, key, 'trusted_hash', '"sha256:ours"');
    assert.ok(added.startsWith(original.trimEnd()));
    assert.match(added, /\n\[hooks\.state\."\/h\/hooks\.json:stop:1:0"\]\ntrusted_hash = "sha256:ours"\n$/);
    const replaced = setTomlTableValue(added, key, 'trusted_hash', '"sha256:new"');
    assert.equal(replaced.match(/stop:1:0/g)?.length, 1);
    assert.match(replaced, /trusted_hash = "sha256:new"/);
    assert.equal(removeTomlTables(replaced, [key]).trimEnd(), original.trimEnd());
    // Removing the MCP table leaves the hooks.state table and the marker comment that follow it.
    const noMcp = removeTomlTables(original, [['mcp_servers', 'baton']]);
    assert.ok(noMcp.includes('[hooks.state."/h/hooks.json:stop:0:0"]\ntrusted_hash = "sha256:theirs"\n# <<< baton mcp'));
    assert.ok(!noMcp.includes('command = "node"'));
    // A user's own enabled = false survives a trust update.
    const disabled = setTomlTableValue('[hooks.state."k"]\nenabled = false\n', ['hooks', 'state', 'k'], 'trusted_hash', '"h"');
    assert.equal(disabled, '[hooks.state."k"]\ntrusted_hash = "h"\nenabled = false\n');
  });
});

describe('Codex hook trust with the real Codex CLI (`baton install codex`, then Codex app-server hooks/list)', function () {
  this.timeout(120_000);
  let codexBin: string;

  before(function () {
    codexBin = requireHarnessCli(this, 'codex');
  });
  after(cleanupTempDirs);

  /** A fresh HOME/CODEX_HOME holding a user's own hook (Stop) and trust for it, and a config.toml of theirs. */
  function setup(): { home: string; codexHome: string; env: NodeJS.ProcessEnv; userConfig: string; userHooks: object } {
    const home = fs.realpathSync(tempDir('baton-codex-trust-'));
    const codexHome = path.join(home, 'codex');
    fs.mkdirSync(codexHome);
    const userHooks = { hooks: { Stop: [{ hooks: [{ type: 'command', command: 'echo mine', timeout: 7 }] }] } };
    fs.writeFileSync(path.join(codexHome, 'hooks.json'), JSON.stringify(userHooks, null, 2) + '\n');
    const userConfig = `model = "o4"\n\n[hooks.state."${codexHome}/hooks.json:stop:0:0"]\ntrusted_hash = "${codexCommandHookHash('Stop', 'echo mine', 7)}"\n`;
    fs.writeFileSync(path.join(codexHome, 'config.toml'), userConfig);
    const env = { PATH: '/usr/bin:/bin', HOME: home, CODEX_HOME: codexHome, LANG: 'C.UTF-8' };
    return { home, codexHome, env, userConfig, userHooks };
  }

  const batonHooks = async (bin: string, codexHome: string, env: NodeJS.ProcessEnv) =>
    (await listCodexHooks(bin, codexHome, env)).filter(
      (h) => h.sourcePath === path.join(codexHome, 'hooks.json') && /hook\.js'? codex\b/.test(h.command ?? ''),
    );

  for (const mode of ['computed (codex not on PATH)', 'asked (codex on PATH)'] as const) {
    it(`install trusts exactly Baton's entries — ${mode} — and uninstall restores the user's files`, async () => {
      const { codexHome, env, userConfig, userHooks } = setup();
      const installEnv = mode.startsWith('asked') ? { ...env, PATH: `${path.dirname(codexBin)}:${env.PATH}` } : env;
      const installed = await baton(['install', 'codex', '--data-dir', path.join(codexHome, '..', 'data')], installEnv);
      assert.equal(installed.code, 0, installed.stderr);
      assert.match(installed.stdout, /Trusted Baton's 9 Codex hooks/);
      assert.match(installed.stdout, mode.startsWith('asked') ? /from Codex's app-server, which now reports them trusted/ : /hashes computed as Codex does/);

      const listed = await listCodexHooks(codexBin, codexHome, env);
      const ours = await batonHooks(codexBin, codexHome, env);
      assert.equal(ours.length, 9, JSON.stringify(listed, null, 1));
      for (const h of ours) assert.equal(h.trustStatus, 'trusted', `${h.key} is trusted`);
      // Baton's Stop entry sits after the user's: its key names group 1, and the user's trust still holds.
      assert.ok(ours.some((h) => h.key === `${codexHome}/hooks.json:stop:1:0`));
      const mine = listed.find((h) => h.command === 'echo mine');
      assert.equal(mine?.trustStatus, 'trusted');
      const config = fs.readFileSync(path.join(codexHome, 'config.toml'), 'utf8');
      assert.equal(config.match(/trusted_hash/g)?.length, 10, config);

      const removed = await baton(['uninstall', 'codex'], env);
      assert.equal(removed.code, 0, removed.stderr);
      assert.match(removed.stdout, /Removed Codex's trust of Baton's hooks/);
      assert.equal(fs.readFileSync(path.join(codexHome, 'config.toml'), 'utf8'), userConfig);
      assert.deepEqual(JSON.parse(fs.readFileSync(path.join(codexHome, 'hooks.json'), 'utf8')), userHooks);
      assert.equal((await listCodexHooks(codexBin, codexHome, env)).find((h) => h.command === 'echo mine')?.trustStatus, 'trusted');
    });
  }

  it('--no-trust writes the hooks but no trust, and says how to trust them; Codex lists them untrusted', async () => {
    const { codexHome, env, userConfig } = setup();
    const installed = await baton(['install', 'codex', '--no-trust'], { ...env, PATH: `${path.dirname(harnessCliBin('codex'))}:${env.PATH}` });
    assert.equal(installed.code, 0, installed.stderr);
    assert.match(installed.stdout, /--no-trust.*\/hooks.*--dangerously-bypass-hook-trust/);
    const config = fs.readFileSync(path.join(codexHome, 'config.toml'), 'utf8');
    assert.equal(config.match(/trusted_hash/g)?.length, 1, 'only the user’s own trust');
    assert.ok(config.startsWith(userConfig.trimEnd()));
    const ours = await batonHooks(codexBin, codexHome, env);
    assert.equal(ours.length, 9);
    for (const h of ours) assert.equal(h.trustStatus, 'untrusted');
  });
});
