// Bundles the extension test suite, mocha included, into one CommonJS file the extension host can
// require. Shared by runner.ts (code-server) and electron.ts (desktop VS Code).

import * as path from 'node:path';
import * as esbuild from 'esbuild';

const repoRoot = path.resolve(__dirname, '..', '..');

export async function bundleSuite(outDir: string): Promise<string> {
  await esbuild.build({
    absWorkingDir: repoRoot,
    entryPoints: { index: 'test/vscode/suite/index.ts' },
    outdir: outDir,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    external: ['vscode'],
    sourcemap: 'inline', // for a debugger; the extension host's own stack traces ignore it
    logLevel: 'warning',
    // mocha's parallel mode (never used here) resolves its worker files at run time.
    logOverride: { 'require-resolve-not-external': 'silent' },
  });
  return path.join(outDir, 'index.js');
}
