// `npm start`: Baton in a real VS Code (code-server 4.100.3, VS Code 1.100.3) on 127.0.0.1, with
// this repository loaded as the extension under development. Open the printed URL in a browser;
// Ctrl-C stops it (the store flushes on the way out). Without --folder the workbench opens demo/,
// Baton's small demo workspace. By default Baton runs on the demo data (docs/demo.md): recorded
// sessions imported into a data directory of its own, the Sessions view focused on one of them;
// --own-data runs it on your data directory instead.
//
//   npm start [-- --folder DIR] [-- --port N] [-- --own-data]
//
// code-server comes from scripts/install-vscode-host.sh (run automatically when missing).

import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { prepareStartDemo } from './startDemo';

const repoRoot = path.resolve(__dirname, '..');
const hostDir = process.env.BATON_VSCODE_HOST_DIR || path.join(os.homedir(), '.cache', 'baton-vscode-host');
const bin = path.join(hostDir, 'node_modules', '.bin', 'code-server');

function arg(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

if (!fs.existsSync(bin)) {
  console.log('Installing the VS Code host (code-server) first: about 5 minutes, once.');
  const installed = spawnSync('bash', [path.join(repoRoot, 'scripts', 'install-vscode-host.sh')], { stdio: 'inherit' });
  if (installed.status !== 0) process.exit(installed.status ?? 1);
}

const folderArg = arg('folder');
const folder = folderArg ? path.resolve(folderArg) : path.join(repoRoot, 'demo');
const port = Number(arg('port') ?? 8765);
const userData = path.join(hostDir, 'user-data');
const remote = (p: string) => `vscode-remote://127.0.0.1:${port}${p.split('/').map(encodeURIComponent).join('/')}`;
const payload = [
  ['extensionDevelopmentPath', remote(repoRoot)],
  ['skipWelcome', 'true'],
];
const url = `http://127.0.0.1:${port}/?folder=${encodeURIComponent(folder)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;

// The demo data lives beside the host's own files, never in the user's data directory.
const demo = process.argv.includes('--own-data') ? null : prepareStartDemo(repoRoot, path.join(hostDir, 'baton-demo'));
if (demo) console.log(`Baton runs on the demo data in ${demo.dataDir} (npm start -- --own-data for yours)`);

const child = spawn(
  bin,
  [
    '--auth',
    'none',
    '--bind-addr',
    `127.0.0.1:${port}`,
    '--disable-telemetry',
    '--disable-update-check',
    '--user-data-dir',
    userData,
    '--extensions-dir',
    path.join(hostDir, 'extensions'),
    ...(demo?.hostFlags ?? []),
  ],
  { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, ...demo?.env } },
);
console.log(`\nBaton in VS Code: open ${url}\n(Ctrl-C to stop)\n`);
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => child.kill('SIGTERM'));
child.on('exit', (code) => process.exit(code ?? 0));
