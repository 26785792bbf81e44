// The integrated terminal's environment: a new terminal gets BATON_DATA_DIR and BATON_URL from
// the extension's environmentVariableCollection, and never the endpoint token.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { api, waitFor } from './helpers';

describe('Terminal environment', () => {
  let tmp: string;
  let terminal: vscode.Terminal | undefined;

  before(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-vs-term-'));
  });

  after(() => {
    terminal?.dispose();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('a new integrated terminal has BATON_DATA_DIR and BATON_URL, and no token anywhere in its environment', async function () {
    this.timeout(30_000);
    const a = await api();
    const out = path.join(tmp, 'env.txt');
    // The shell writes its whole environment, then a marker file once the write is complete.
    terminal = vscode.window.createTerminal({
      name: 'Baton env probe',
      shellPath: '/bin/sh',
      shellArgs: ['-c', `env > '${out}.tmp' && mv '${out}.tmp' '${out}'; sleep 30`],
    });
    terminal.show(true);
    const text = await waitFor(() => fs.existsSync(out) && fs.readFileSync(out, 'utf8'), 20_000, 'the terminal wrote its environment');
    const env = new Map(
      text
        .split('\n')
        .filter((l) => l.includes('='))
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)] as const),
    );
    assert.equal(env.get('BATON_DATA_DIR'), a.host.dataDir);
    assert.equal(env.get('BATON_URL'), `http://127.0.0.1:${a.host.port}`);
    const token = a.host.client!.endpoint.token;
    assert.ok(token.length >= 16);
    assert.ok(!text.includes(token), 'the endpoint token is in the terminal environment');
    for (const name of env.keys()) assert.ok(!/^BATON_.*TOKEN/.test(name), `unexpected ${name}`);
  });
});
