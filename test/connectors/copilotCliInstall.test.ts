// `baton install|uninstall copilot-cli` through the real files on disk, in temp folders standing
// for $COPILOT_HOME (or ~/.copilot) and a repository: Baton's own hooks/baton.json with one entry
// per event naming its event, the MCP server in mcp-config.json beside the user's, and nothing of
// the user's ever overwritten.

import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { HookCommandOptions } from '../../src/harnesses/harness';
import { COPILOT_CLI_EVENTS } from '../../src/harnesses/copilotCli/hooks';
import { COPILOT_CLI_INSTALL, installCopilotCli, uninstallCopilotCli } from '../../src/harnesses/copilotCli/install';
import { cleanupTempDirs, tempDir } from '../helpers/tmp';

type Obj = Record<string, any>;

function readJson(file: string): Obj {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as Obj;
}

/** A $COPILOT_HOME and the hook command options of a Baton install (cli.js without hook.js beside it: the `cli.js hook` form). */
function setup() {
  const root = tempDir('baton-copilot-cli-');
  const copilotHome = path.join(root, 'copilot-home');
  const env = { COPILOT_HOME: copilotHome };
  const home = path.join(root, 'home');
  const command: HookCommandOptions = { nodePath: process.execPath, cliPath: path.join(root, 'baton', 'dist', 'cli.js'), dataDir: path.join(root, 'data dir') };
  return {
    root,
    env,
    home,
    command,
    hookFile: path.join(copilotHome, 'hooks', 'baton.json'),
    mcpFile: path.join(copilotHome, 'mcp-config.json'),
    hooksDir: path.join(copilotHome, 'hooks'),
  };
}

describe('GitHub Copilot CLI install', () => {
  after(cleanupTempDirs);

  it('user scope writes $COPILOT_HOME/hooks/baton.json: version 1, one command entry per event, each naming its --event', () => {
    const t = setup();
    const result = installCopilotCli({ scope: 'user', command: t.command }, t.env, t.home);
    assert.equal(result.file, t.hookFile);
    assert.deepEqual(result.events, [...COPILOT_CLI_EVENTS]);
    assert.equal(COPILOT_CLI_EVENTS.length, 6);
    const written = readJson(t.hookFile);
    assert.equal(written.version, 1);
    assert.deepEqual(Object.keys(written.hooks), [...COPILOT_CLI_EVENTS]);
    for (const event of COPILOT_CLI_EVENTS) {
      const entries = written.hooks[event] as Obj[];
      assert.equal(entries.length, 1, event);
      const [entry] = entries;
      assert.equal(entry.type, 'command');
      assert.equal(entry.timeoutSec, 10);
      assert.ok(entry.bash.includes(` hook copilot-cli --event ${event} `), `${event}: ${entry.bash}`);
      assert.ok(entry.bash.startsWith(process.execPath), entry.bash);
      assert.ok(entry.bash.includes(`--data-dir '${t.command.dataDir}'`), entry.bash);
    }
    // New folders and files are the user's only.
    assert.equal(fs.statSync(t.hooksDir).mode & 0o777, 0o700);
    assert.equal(fs.statSync(t.hookFile).mode & 0o777, 0o600);
    assert.ok(result.messages[0].includes(t.hookFile), result.messages[0]);
  });

  it('user scope registers the baton MCP server in mcp-config.json (node + `cli.js mcp`, all tools)', () => {
    const t = setup();
    const result = installCopilotCli({ scope: 'user', command: t.command }, t.env, t.home);
    assert.equal(result.mcpFile, t.mcpFile);
    const config = readJson(t.mcpFile);
    assert.deepEqual(config.mcpServers.baton, {
      type: 'local',
      command: process.execPath,
      args: [t.command.cliPath, 'mcp', '--data-dir', t.command.dataDir],
      tools: ['*'],
    });
    assert.ok(
      result.messages.some((m) => m === `Registered the Baton MCP server in ${t.mcpFile}`),
      result.messages.join('\n'),
    );
  });

  it('without COPILOT_HOME, installs under ~/.copilot', () => {
    const t = setup();
    const result = installCopilotCli({ scope: 'user', command: t.command }, {}, t.home);
    assert.equal(result.file, path.join(t.home, '.copilot', 'hooks', 'baton.json'));
    assert.ok(fs.existsSync(result.file));
    assert.ok(fs.existsSync(path.join(t.home, '.copilot', 'mcp-config.json')));
  });

  it('is idempotent: a second install leaves the same bytes and says they are up to date', () => {
    const t = setup();
    installCopilotCli({ scope: 'user', command: t.command }, t.env, t.home);
    const hookBytes = fs.readFileSync(t.hookFile);
    const mcpBytes = fs.readFileSync(t.mcpFile);
    const again = installCopilotCli({ scope: 'user', command: t.command }, t.env, t.home);
    assert.deepEqual(fs.readFileSync(t.hookFile), hookBytes);
    assert.deepEqual(fs.readFileSync(t.mcpFile), mcpBytes);
    assert.deepEqual(fs.readdirSync(t.hooksDir), ['baton.json']);
    assert.deepEqual(again.messages, [`The Baton hooks in ${t.hookFile} are up to date`, `The Baton MCP server in ${t.mcpFile} is up to date`]);
  });

  it("rewrites Baton's own file when the command changed (another data directory)", () => {
    const t = setup();
    installCopilotCli({ scope: 'user', command: t.command }, t.env, t.home);
    const moved = { ...t.command, dataDir: path.join(t.root, 'other-data') };
    installCopilotCli({ scope: 'user', command: moved }, t.env, t.home);
    const written = readJson(t.hookFile);
    assert.ok(written.hooks.sessionStart[0].bash.includes(`--data-dir ${moved.dataDir}`), written.hooks.sessionStart[0].bash);
    assert.ok(!fs.readFileSync(t.hookFile, 'utf8').includes("data dir'"));
  });

  it("keeps the user's other hook files and other MCP servers and keys untouched", () => {
    const t = setup();
    fs.mkdirSync(t.hooksDir, { recursive: true });
    const mine = path.join(t.hooksDir, 'mine.json');
    const mineText = JSON.stringify({ version: 1, hooks: { sessionStart: [{ type: 'command', bash: 'echo mine' }] } });
    fs.writeFileSync(mine, mineText);
    const theirs = { type: 'local', command: 'npx', args: ['-y', 'some-server'], tools: ['read'], env: { TOKEN: 'x' } };
    fs.writeFileSync(t.mcpFile, JSON.stringify({ mcpServers: { theirs }, otherKey: { keep: true } }), { mode: 0o640 });
    installCopilotCli({ scope: 'user', command: t.command }, t.env, t.home);
    assert.equal(fs.readFileSync(mine, 'utf8'), mineText);
    const config = readJson(t.mcpFile);
    assert.deepEqual(config.mcpServers.theirs, theirs);
    assert.deepEqual(config.otherKey, { keep: true });
    assert.deepEqual(Object.keys(config.mcpServers).sort(), ['baton', 'theirs']);
    assert.equal(fs.statSync(t.mcpFile).mode & 0o777, 0o640, "the file's mode is kept");
  });

  it("refuses a baton.json that is not Baton's, leaving it as it was", () => {
    const t = setup();
    fs.mkdirSync(t.hooksDir, { recursive: true });
    for (const foreign of [
      JSON.stringify({ version: 1, hooks: { sessionStart: [{ type: 'command', bash: 'echo my own baton' }] } }),
      // Baton's hook command for another harness is not ours either.
      JSON.stringify({ version: 1, hooks: { sessionStart: [{ type: 'command', bash: `${process.execPath} /x/dist/hook.js copilot` }] } }),
      'not json {',
    ]) {
      fs.writeFileSync(t.hookFile, foreign);
      assert.throws(
        () => installCopilotCli({ scope: 'user', command: t.command }, t.env, t.home),
        (err: Error) => err.message.includes(t.hookFile) && err.message.includes("not Baton's hook file"),
      );
      assert.equal(fs.readFileSync(t.hookFile, 'utf8'), foreign);
    }
    assert.ok(!fs.existsSync(t.mcpFile), 'nothing else is written after a refusal');
  });

  it('leaves a malformed mcp-config.json untouched, with a message, and still installs the hooks', () => {
    const t = setup();
    fs.mkdirSync(path.dirname(t.mcpFile), { recursive: true });
    for (const malformed of ['{"mcpServers": {', '[1, 2]', '{"mcpServers": ["x"]}']) {
      fs.writeFileSync(t.mcpFile, malformed);
      const result = installCopilotCli({ scope: 'user', command: t.command }, t.env, t.home);
      assert.equal(fs.readFileSync(t.mcpFile, 'utf8'), malformed);
      assert.ok(fs.existsSync(t.hookFile));
      assert.ok(
        result.messages.some((m) => m.startsWith(`Left ${t.mcpFile} alone:`)),
        result.messages.join('\n'),
      );
      const removal = uninstallCopilotCli('user', undefined, t.env, t.home);
      assert.equal(fs.readFileSync(t.mcpFile, 'utf8'), malformed, 'uninstall leaves it too');
      assert.ok(removal.messages.some((m) => m.startsWith(`Left ${t.mcpFile} alone:`)));
    }
    assert.ok(!fs.existsSync(`${t.mcpFile}.baton-backup`));
  });

  it('keeps a "baton" MCP server that is not Baton\'s', () => {
    const t = setup();
    fs.mkdirSync(path.dirname(t.mcpFile), { recursive: true });
    const text = JSON.stringify({ mcpServers: { baton: { type: 'http', url: 'http://127.0.0.1:9/mcp' } } });
    fs.writeFileSync(t.mcpFile, text);
    const result = installCopilotCli({ scope: 'user', command: t.command }, t.env, t.home);
    assert.equal(fs.readFileSync(t.mcpFile, 'utf8'), text);
    assert.ok(result.messages.some((m) => m.includes('already has a "baton" server of its own')));
    uninstallCopilotCli('user', undefined, t.env, t.home);
    assert.equal(fs.readFileSync(t.mcpFile, 'utf8'), text);
  });

  it('project scope writes <repo>/.github/hooks/baton.json and says repo hooks need a trusted folder (--trust-folder)', () => {
    const t = setup();
    const repo = path.join(t.root, 'repo');
    fs.mkdirSync(repo);
    const result = installCopilotCli({ scope: 'project', projectDir: repo, command: t.command }, t.env, t.home);
    const file = path.join(repo, '.github', 'hooks', 'baton.json');
    assert.equal(result.file, file);
    assert.deepEqual(Object.keys(readJson(file).hooks), [...COPILOT_CLI_EVENTS]);
    assert.equal(result.mcpFile, undefined);
    assert.ok(!fs.existsSync(t.mcpFile), 'project scope leaves the user MCP config alone');
    assert.ok(!fs.existsSync(t.hookFile));
    assert.ok(
      result.messages.some((m) => m.includes('trusted folder') && m.includes('`--trust-folder`') && m.includes('copilot -p')),
      result.messages.join('\n'),
    );
  });

  it("uninstall removes only Baton's hook file and MCP server", () => {
    const t = setup();
    fs.mkdirSync(t.hooksDir, { recursive: true });
    const mine = path.join(t.hooksDir, 'mine.json');
    fs.writeFileSync(mine, '{"version":1,"hooks":{}}');
    fs.writeFileSync(t.mcpFile, JSON.stringify({ mcpServers: { theirs: { type: 'local', command: 'x', args: [] } }, otherKey: 1 }));
    installCopilotCli({ scope: 'user', command: t.command }, t.env, t.home);
    const result = uninstallCopilotCli('user', undefined, t.env, t.home);
    assert.equal(result.file, t.hookFile);
    assert.equal(result.removed, true);
    assert.ok(!fs.existsSync(t.hookFile));
    assert.equal(fs.readFileSync(mine, 'utf8'), '{"version":1,"hooks":{}}');
    assert.deepEqual(readJson(t.mcpFile), { mcpServers: { theirs: { type: 'local', command: 'x', args: [] } }, otherKey: 1 });
    assert.deepEqual(result.messages, [`Removed the Baton MCP server from ${t.mcpFile}`]);
    // Again: nothing of Baton's left to remove.
    assert.deepEqual(uninstallCopilotCli('user', undefined, t.env, t.home), { file: t.hookFile, removed: false, messages: [] });
  });

  it("uninstall leaves a baton.json that is not Baton's", () => {
    const t = setup();
    const repo = path.join(t.root, 'repo');
    const file = path.join(repo, '.github', 'hooks', 'baton.json');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const foreign = JSON.stringify({ version: 1, hooks: { agentStop: [{ type: 'command', bash: 'echo mine' }] } });
    fs.writeFileSync(file, foreign);
    const result = uninstallCopilotCli('project', repo, t.env, t.home);
    assert.equal(result.removed, false);
    assert.equal(fs.readFileSync(file, 'utf8'), foreign);
    assert.ok(result.messages.some((m) => m.startsWith(`Left ${file} alone`)));
  });

  it('the harness install entry: user scope first, both menu items, a notice and a never-fired hint; wired to $COPILOT_HOME', () => {
    assert.deepEqual(COPILOT_CLI_INSTALL.scopes, ['user', 'project']);
    assert.deepEqual(
      COPILOT_CLI_INSTALL.menu.map((m) => [m.scope, m.label]),
      [
        ['user', 'GitHub Copilot CLI — user hooks ($COPILOT_HOME/hooks/baton.json)'],
        ['project', 'GitHub Copilot CLI — this repository (.github/hooks/baton.json)'],
      ],
    );
    assert.ok(COPILOT_CLI_INSTALL.notice);
    const hint = COPILOT_CLI_INSTALL.neverFiredHint ?? '';
    for (const part of ['trusted folder', 'COPILOT_HOME', 'baton install copilot-cli']) assert.ok(hint.includes(part), part);

    const t = setup();
    const saved = process.env.COPILOT_HOME;
    process.env.COPILOT_HOME = t.env.COPILOT_HOME;
    try {
      const installed = COPILOT_CLI_INSTALL.install({ scope: 'user', command: t.command }) as { file: string };
      assert.equal(installed.file, t.hookFile);
      assert.ok(fs.existsSync(t.hookFile));
      assert.equal(COPILOT_CLI_INSTALL.uninstall({ scope: 'user' }).removed, true);
      assert.ok(!fs.existsSync(t.hookFile));
    } finally {
      if (saved === undefined) delete process.env.COPILOT_HOME;
      else process.env.COPILOT_HOME = saved;
    }
  });
});
