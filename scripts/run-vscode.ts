// `npm start`: Baton in a real VS Code (code-server 4.139.1 = VS Code 1.139.1, on Node 24) on
// 127.0.0.1, with this repository loaded as the extension under development, on the embedded store
// in your data directory. Open the printed URL in a browser; Ctrl-C stops it (the store flushes on
// the way out, and code-server's whole process group goes with it). Without --folder the workbench
// opens demo/, Baton's small demo workspace, on the demo data (docs/demo.md) unless --own-data. The Chat view is there too: `@baton` answers in it
// once a chat model is picked (see docs/vscode.md, "The Chat view").
//
//   npm start [-- --folder DIR] [-- --port N] [-- --own-data]
//
// code-server comes from scripts/install-vscode-host.sh (run automatically when missing).

import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { prepareStartDemo } from './startDemo';
import { hostDir, hostInstalled, HOST_SETTINGS, installScript, killTree, remoteUri, startCodeServer, workbenchUrl, writeUserSettings } from './vscodeHost';

const repoRoot = path.resolve(__dirname, '..');

function arg(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

if (!hostInstalled()) {
  console.log('Installing the VS Code host (code-server and its Node 24) first: a few minutes, once.');
  const installed = spawnSync('bash', [installScript], { stdio: 'inherit' });
  if (installed.status !== 0) process.exit(installed.status ?? 1);
}

const folderArg = arg('folder');
const folder = folderArg ? path.resolve(folderArg) : path.join(repoRoot, 'demo');
const port = Number(arg('port') ?? 8765);
const userDataDir = path.join(hostDir, 'user-data');
writeUserSettings(userDataDir, { ...HOST_SETTINGS });
const url = workbenchUrl(port, folder, [
  ['extensionDevelopmentPath', remoteUri(port, repoRoot)],
  ['skipWelcome', 'true'],
]);

// The demo data lives beside the host's own files, never in the user's data directory.
const demo = process.argv.includes('--own-data') ? null : prepareStartDemo(repoRoot, path.join(hostDir, 'baton-demo'));
if (demo) console.log(`Baton runs on the demo data in ${demo.dataDir} (npm start -- --own-data for yours)`);

const child = startCodeServer({
  port,
  userDataDir,
  extensionsDir: path.join(hostDir, 'extensions'),
  stdio: ['ignore', 'inherit', 'inherit'],
  disableWorkspaceTrust: demo?.hostFlags.includes('--disable-workspace-trust'),
  env: { ...process.env, ...demo?.env },
});
console.log(`\nBaton in VS Code: open ${url}\n(Ctrl-C to stop)\n`);
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => void killTree(child).then(() => process.exit(0)));
child.on('exit', (code) => {
  // The extension host and agentHost outlive the server: take the rest of the group along.
  void killTree(child).then(() => process.exit(code ?? 0));
});
