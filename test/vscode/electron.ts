// Runs test/vscode/suite in desktop VS Code (Electron) with @vscode/test-electron: the same suite
// entry as runner.ts (code-server), bundled the same way. test-electron downloads VS Code from
// update.code.visualstudio.com into .vscode-test/ on first use, so this needs internet access; on
// an offline machine use `npm run test:vscode` instead. Not part of `npm test`.
//
//   npm run test:electron
//
// Environment: BATON_VSCODE_VERSION (VS Code version to download, default 'stable'),
// BATON_VSCODE_GREP (mocha grep), BATON_VSCODE_KEEP=1 (keep the temp folder). The UI probe
// (suite/ui.test.ts) needs the code-server runner's Playwright side: it is skipped here.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { bundleSuite } from '../shared/bundleSuite';
import { runTests } from '@vscode/test-electron';

const repoRoot = path.resolve(__dirname, '..', '..');

function say(line: string): void {
  process.stdout.write(`[vscode-electron] ${line}\n`);
}

async function main(): Promise<number> {
  if (!fs.existsSync(path.join(repoRoot, 'dist', 'extension.js'))) {
    say('dist/extension.js is missing: run `npm run build` (npm run test:electron does).');
    return 2;
  }
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-electron-'));
  const workspace = path.join(tmp, 'workspace');
  const batonData = path.join(tmp, 'baton-data');
  for (const dir of [workspace, batonData]) fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(workspace, 'README.md'), '# Baton extension test workspace\n');
  let code = 1;
  try {
    const extensionTestsPath = await bundleSuite(path.join(tmp, 'suite'));
    say(`running the suite in VS Code ${process.env.BATON_VSCODE_VERSION || 'stable'} (temp ${tmp})`);
    code = await runTests({
      version: process.env.BATON_VSCODE_VERSION || undefined,
      extensionDevelopmentPath: repoRoot,
      extensionTestsPath,
      launchArgs: [workspace, '--disable-extensions', '--user-data-dir', path.join(tmp, 'user-data'), '--disable-workspace-trust'],
      extensionTestsEnv: {
        BATON_DATA_DIR: batonData,
        BATON_VSCODE_UI: '0',
        ...(process.env.BATON_VSCODE_GREP ? { BATON_VSCODE_GREP: process.env.BATON_VSCODE_GREP } : {}),
      },
    });
  } catch (err) {
    const message = (err as Error)?.message ?? String(err);
    say(`FAILED: ${message}`);
    if (/download|ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|getaddrinfo|fetch failed|update\.code\.visualstudio\.com/i.test(message)) {
      say('Could not download VS Code: @vscode/test-electron needs internet access (update.code.visualstudio.com).');
      say('Offline, run the same suite in code-server instead: `npm run test:vscode`.');
    }
    code = typeof err === 'number' ? err : 1;
  } finally {
    if (code === 0 && process.env.BATON_VSCODE_KEEP !== '1') fs.rmSync(tmp, { recursive: true, force: true });
    else say(`kept ${tmp}`);
  }
  say(code === 0 ? 'passed' : `FAILED (exit ${code})`);
  return code;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    say(`FAILED: ${(err as Error).stack ?? err}`);
    process.exit(1);
  },
);
