// Bundles the extension, the CLI and the store workers into dist/, with sql.js's .wasm beside them,
// so the packaged extension and `baton` need nothing from node_modules at run time.
import * as esbuild from 'esbuild';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createRequire } from 'node:module';
import { hookMappingsPlugin } from './hookMappingsPlugin.mjs';
import { lazyBuiltins } from './lazyBuiltins.mjs';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
const dist = path.join(root, 'dist');
fs.mkdirSync(dist, { recursive: true });

const entries = {
  extension: 'src/extension.ts',
  cli: 'src/cli.ts',
  hook: 'src/hook.ts',
  hookMain: 'src/hookMain.ts',
  hookLocal: 'src/hookLocal.ts',
  storeWorker: 'src/store/engine/storeWorker.ts',
  compactorWorker: 'src/store/engine/compactorWorker.ts',
  transcriptWorker: 'src/server/transcriptWorker.ts',
};
const present = Object.fromEntries(Object.entries(entries).filter(([, file]) => fs.existsSync(path.join(root, file))));

await esbuild.build({
  absWorkingDir: root,
  entryPoints: present,
  outdir: dist,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: true,
  external: ['vscode'],
  logLevel: 'warning',
  // sqljs.ts falls back to require.resolve only when running from source; the bundle finds the .wasm beside it.
  logOverride: { 'require-resolve-not-external': 'silent' },
  // sql.js probes for `fs`/`path` only in environments we never run in; keep them as node built-ins.
  define: { 'process.env.NODE_ENV': '"production"' },
  // The hook command's harnesses, from the folders with a hooks.ts (keeps dist/hook.js free of the registry).
  plugins: [hookMappingsPlugin(root)],
});

// The OpenCode plugin: an ES module OpenCode (Bun) loads, bundled with the Baton code it uses
// (data-directory resolution); `baton install opencode` writes it behind a generated header
// (src/harnesses/openCode/install.ts, docs/harnesses.md).
await esbuild.build({
  absWorkingDir: root,
  entryPoints: { 'opencode-plugin': 'src/harnesses/openCode/plugin.ts' },
  outdir: dist,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  logLevel: 'warning',
});

// Webview scripts run in the browser sandbox of a webview: bundled separately, for the browser.
await esbuild.build({
  absWorkingDir: root,
  entryPoints: { transcript: 'media/transcript.ts', inherited: 'media/inherited.ts', spend: 'media/spend.ts' },
  outdir: path.join(dist, 'webview'),
  bundle: true,
  platform: 'browser',
  target: 'es2022',
  format: 'iife',
  sourcemap: true,
  logLevel: 'warning',
});
fs.copyFileSync(path.join(root, 'media', 'baton.css'), path.join(dist, 'webview', 'baton.css'));
const codicons = path.dirname(require.resolve('@vscode/codicons/dist/codicon.css'));
fs.mkdirSync(path.join(dist, 'codicons'), { recursive: true });
for (const file of ['codicon.css', 'codicon.ttf']) fs.copyFileSync(path.join(codicons, file), path.join(dist, 'codicons', file));

fs.copyFileSync(require.resolve('sql.js/dist/sql-wasm.wasm'), path.join(dist, 'sql-wasm.wasm'));
// Node looks for the nearest package.json of every module it loads, to tell CommonJS from ES
// modules; one beside the bundles answers at once (the manifest above is 30 KB to read and parse
// on every hook start).
fs.writeFileSync(path.join(dist, 'package.json'), '{ "type": "commonjs" }\n');
// The hook command loads each built-in only when an event uses it (scripts/dev/lazyBuiltins.mjs).
for (const name of ['hook.js', 'hookMain.js', 'hookLocal.js']) {
  const file = path.join(dist, name);
  if (fs.existsSync(file)) fs.writeFileSync(file, lazyBuiltins(fs.readFileSync(file, 'utf8')));
}
const cli = path.join(dist, 'cli.js');
if (fs.existsSync(cli)) {
  const text = fs.readFileSync(cli, 'utf8');
  if (!text.startsWith('#!')) fs.writeFileSync(cli, '#!/usr/bin/env node\n' + text);
  fs.chmodSync(cli, 0o755);
}
