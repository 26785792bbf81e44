// `npm start`: Baton in a real VS Code (code-server 4.139.1 = VS Code 1.139.1, on Node 24) on
// 127.0.0.1, with this repository loaded as the extension under development. Open the printed URL
// in a browser; Ctrl-C stops it (the store flushes on the way out, and code-server's whole process
// group goes with it). Without --folder the workbench opens demo/, Baton's small demo workspace.
// By default Baton runs on the demo data (docs/demo.md): recorded sessions imported into a data
// directory of its own, the folder trusted for this run, the Sessions view focused on the featured
// session; --own-data runs it on your data directory instead. The Chat view gets an offline demo
// model (no account, no network) so `@baton` can be tried at once (docs/vscode.md, "The Chat view").
//
//   npm start [-- --folder DIR] [-- --port N] [-- --own-data] [-- --profile DIR]
//
// --profile names where this run keeps its VS Code profile, extensions and demo data (default:
// beside the installed host); the test that runs `npm start` like a user gives it a fresh one.
// code-server comes from scripts/install-vscode-host.sh (run automatically when missing).

import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { bundleScriptedModel } from '../test/vscode/bundleSuite';
import { prepareStartDemo } from './startDemo';
import { hostDir, hostInstalled, HOST_SETTINGS, installScript, killTree, remoteUri, startCodeServer, workbenchUrl, writeUserSettings } from './vscodeHost';

const repoRoot = path.resolve(__dirname, '..');

function arg(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

async function main(): Promise<void> {
  if (!hostInstalled()) {
    console.log('Installing the VS Code host (code-server and its Node 24) first: a few minutes, once.');
    const installed = spawnSync('bash', [installScript], { stdio: 'inherit' });
    if (installed.status !== 0) process.exit(installed.status ?? 1);
  }

  const folderArg = arg('folder');
  const folder = folderArg ? path.resolve(folderArg) : path.join(repoRoot, 'demo');
  const port = Number(arg('port') ?? 8765);
  const profile = path.resolve(arg('profile') ?? hostDir);
  const userDataDir = path.join(profile, 'user-data');
  const extensionsDir = path.join(profile, 'extensions');
  // Anonymous chat access: the Chat view sends with an extension's model, nobody signs in.
  writeUserSettings(userDataDir, { ...HOST_SETTINGS, 'chat.allowAnonymousAccess': true });

  // The offline demo model: the scripted test model, installed (unpacked into the extensions
  // folder) because the workbench keeps one extension under development, Baton. With no script
  // server named it answers by echoing; `@baton`'s commands answer from the store without it.
  await bundleScriptedModel(path.join(extensionsDir, 'baton-test.scripted-model-0.0.1'));

  // The demo data lives beside the profile, never in the user's data directory.
  const demo = process.argv.includes('--own-data') ? null : prepareStartDemo(repoRoot, path.join(profile, 'baton-demo'));
  if (demo) console.log(`Baton runs on the demo data in ${demo.dataDir} (npm start -- --own-data for yours)`);

  const url = workbenchUrl(port, folder, [
    ['extensionDevelopmentPath', remoteUri(port, repoRoot)],
    ['skipWelcome', 'true'],
  ]);
  const child = startCodeServer({
    port,
    userDataDir,
    extensionsDir,
    disableWorkspaceTrust: demo !== null,
    env: { ...process.env, ...demo?.env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  console.log(`\nBaton in VS Code: open ${url}\n(Ctrl-C to stop)`);
  console.log('Chat view: pick the model "Scripted" (the offline demo model) and ask `@baton /parent`.\n');
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => void killTree(child).then(() => process.exit(0)));
  child.on('exit', (code) => {
    // The extension host and agentHost outlive the server: take the rest of the group along.
    void killTree(child).then(() => process.exit(code ?? 0));
  });
}

void main().catch((err: Error) => {
  console.error(`npm start: ${err.message}`);
  process.exit(1);
});
