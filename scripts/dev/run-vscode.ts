// `npm start`: Baton in a real VS Code (code-server 4.139.1 = VS Code 1.139.1, on Node 24) on
// 127.0.0.1. Open the printed URL in a browser; Ctrl-C stops it (the store flushes on the way out,
// and code-server's whole process group goes with it). Without --folder the workbench opens demo/,
// Baton's small demo workspace, trusted.
//
//   npm start [-- --folder DIR] [-- --port N] [-- --own-data] [-- --profile DIR]
//
// By default Baton runs on the demo data (docs/demo.md): recorded sessions imported into a data
// directory of its own, never yours, with the Sessions view focused on the demo's featured
// session; --own-data runs it on your data directory instead. --profile names where this run keeps
// its VS Code profile, extensions and demo data (default: beside the installed host); the test
// that runs `npm start` like a user gives it a fresh one.
//
// Baton is packaged from this build and installed into the host (a .vsix: this host installs
// extensions from packages only) at every start, so the workbench runs as a user's would, dialogs
// included (loading it as an extension under development needs the smoke-test driver, which
// answers every dialog "cancel"). Next to it the scripted test model is installed: the offline
// demo model, which echoes the question, so the Chat view has a model to send `@baton` requests
// with and nobody has to sign in (docs/vscode-host.md, "The Chat view").
//
// code-server comes from scripts/dev/install-vscode-host.sh (run automatically when missing).

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { bundleScriptedModel } from '../../test/shared/bundleSuite';
import { prepareStartDemo } from './startDemo';
import {
  codeServerBin,
  hostDir,
  hostEnv,
  hostInstalled,
  HOST_SETTINGS,
  installScript,
  killTree,
  startCodeServer,
  workbenchUrl,
  writeUserSettings,
} from '../../test/shared/vscodeHost';

const repoRoot = path.resolve(__dirname, '..', '..');
const vsce = path.join(repoRoot, 'node_modules', '.bin', 'vsce');

/**
 * The profile settings of `npm start`: Baton is the first thing a newcomer sees, not the host's own
 * Welcome page, walkthroughs, or the git prompt that demo/ (inside this repository) would raise.
 */
const START_SETTINGS = {
  // Anonymous chat access: the Chat view sends with an extension's model without a sign-in.
  'chat.allowAnonymousAccess': true,
  'workbench.startupEditor': 'none',
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'workbench.tips.enabled': false,
  'git.openRepositoryInParentFolders': 'never',
} as const;

function arg(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

function run(command: string, args: string[], cwd: string): void {
  const done = spawnSync(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: hostEnv() });
  if (done.status !== 0) {
    process.stderr.write(`${done.stdout}${done.stderr}`);
    throw new Error(`${path.basename(command)} ${args.join(' ')} failed (${done.status ?? done.signal})`);
  }
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
  const profileDir = path.resolve(arg('profile') ?? hostDir);
  const userDataDir = path.join(profileDir, 'user-data');
  const extensionsDir = path.join(profileDir, 'extensions');
  const profile = ['--user-data-dir', userDataDir, '--extensions-dir', extensionsDir];

  console.log('Packaging Baton and the offline demo model, installing them into the host…');
  const packages = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-start-'));
  try {
    const batonVsix = path.join(packages, 'baton.vsix');
    run(vsce, ['package', '--no-dependencies', '--out', batonVsix], repoRoot);
    const model = await bundleScriptedModel(path.join(packages, 'scripted-model'));
    const modelVsix = path.join(packages, 'scripted-model.vsix');
    run(vsce, ['package', '--no-dependencies', '--allow-missing-repository', '--skip-license', '--out', modelVsix], model);
    for (const vsix of [batonVsix, modelVsix]) run(codeServerBin, [...profile, '--force', '--install-extension', vsix], repoRoot);
  } finally {
    fs.rmSync(packages, { recursive: true, force: true });
  }

  // The demo data lives in this run's profile, never in the user's data directory.
  const demo = process.argv.includes('--own-data') ? null : prepareStartDemo(repoRoot, path.join(profileDir, 'baton-demo'));
  if (demo) console.log(`Baton runs on the demo data in ${demo.dataDir} (npm start -- --own-data for yours)`);

  writeUserSettings(userDataDir, { ...HOST_SETTINGS, ...START_SETTINGS });
  const url = workbenchUrl(port, folder, []);
  // demo/ is this repository's own folder: trusted (in Restricted Mode the Chat view offers no
  // models). A folder you name gets VS Code's usual trust prompt.
  const child = startCodeServer({
    port,
    userDataDir,
    extensionsDir,
    disableWorkspaceTrust: !folderArg,
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

main().catch((err: Error) => {
  console.error(`npm start: ${err.message}`);
  process.exit(1);
});
