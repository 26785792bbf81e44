// Entry of dist/hook.js, the command harness hooks run: `node dist/hook.js <harness> [--event E] [--data-dir DIR]`.
// It only turns on Node's compile cache where Node has one (22.1 and later), then loads the hook
// command (dist/hookMain.js): a module loaded after that reuses the code V8 compiled for it on an
// earlier event instead of compiling it again. On Node 20 it loads the hook command as it is
// (docs/harnesses.md, "What a hook costs").

import * as nodeModule from 'node:module';
import * as path from 'node:path';
import * as os from 'node:os';

type CompileCacheModule = { enableCompileCache?: (dir?: string) => unknown };

/** The user's own cache folder (never a shared temp folder another user could fill first). */
function compileCacheDir(): string {
  const base = process.env.XDG_CACHE_HOME && path.isAbsolute(process.env.XDG_CACHE_HOME) ? process.env.XDG_CACHE_HOME : path.join(os.homedir(), '.cache');
  return path.join(base, 'baton', 'node-compile-cache');
}

try {
  // Node's own NODE_COMPILE_CACHE, when set, already decided.
  const { enableCompileCache } = nodeModule as CompileCacheModule;
  if (typeof enableCompileCache === 'function' && !process.env.NODE_COMPILE_CACHE) enableCompileCache(compileCacheDir());
} catch {
  // No cache: the hook runs the same, compiled afresh.
}
// Not bundled into this file (a path, not a name the bundler follows): loaded as a module of its
// own, so the cache applies to it. dist/hookMain.js beside this bundle; src/hookMain.ts from source.
try {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a run-time path on purpose (see above)
  require(path.join(__dirname, 'hookMain'));
} catch (err) {
  // A broken install (the hook command missing beside this file) must not fail the harness's turn either.
  process.stderr.write(`baton hook: could not load the hook command: ${(err as Error).message}\n`);
  process.exit(0);
}
