// Where VS Code keeps each workspace's storage (agent mode's transcripts and chat sessions live there).

import * as path from 'node:path';

/** VS Code flavours whose user data lives in `<config>/<name>/User` on Linux. */
const VSCODE_FLAVOURS = ['Code', 'Code - Insiders', 'Code - OSS', 'VSCodium'];

/**
 * Where agent mode's transcripts and chat sessions live: each VS Code user data folder's
 * `User/workspaceStorage` (desktop VS Code's flavours, code-server), plus the user data folders in
 * $BATON_VSCODE_USER_DATA_DIRS (path-list: a `--user-data-dir` VS Code or code-server was started with).
 */
export function vscodeWorkspaceStorageRoots(env: NodeJS.ProcessEnv, home: string): string[] {
  const config = env.XDG_CONFIG_HOME || path.join(home, '.config');
  const data = env.XDG_DATA_HOME || path.join(home, '.local', 'share');
  const userDataDirs = [
    ...VSCODE_FLAVOURS.map((name) => path.join(config, name)),
    ...VSCODE_FLAVOURS.map((name) => path.join(home, 'Library', 'Application Support', name)),
    path.join(data, 'code-server'),
    ...(env.BATON_VSCODE_USER_DATA_DIRS ?? '').split(path.delimiter).filter((d) => d.trim() !== ''),
  ];
  return userDataDirs.map((dir) => path.join(path.resolve(dir), 'User', 'workspaceStorage'));
}
