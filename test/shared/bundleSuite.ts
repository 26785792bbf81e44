// Bundles the extension test suite, mocha included, into one CommonJS file the extension host can
// require (shared by runner.ts and electron.ts), and the scripted language model test extension.

import * as fs from 'node:fs';
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

/**
 * Builds the scripted language model test extension (test/shared/scriptedModel) into `outDir`:
 * its package.json and one bundled extension.js. Load `outDir` as an extension development path.
 */
export async function bundleScriptedModel(outDir: string): Promise<string> {
  const source = path.join(repoRoot, 'test', 'shared', 'scriptedModel');
  await esbuild.build({
    absWorkingDir: repoRoot,
    entryPoints: { extension: path.join(source, 'extension.ts') },
    outdir: outDir,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    external: ['vscode'],
    logLevel: 'warning',
  });
  fs.copyFileSync(path.join(source, 'package.json'), path.join(outDir, 'package.json'));
  return outDir;
}
