// The hook command starts on every harness event, inside the harness's own turn: its bundle must
// stay small. It carries the route table and the API client, never the store, sql.js or zod.

import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { hookHarnesses } from '../../src/harnesses/registry';

const ROOT = path.resolve(__dirname, '..', '..');

interface HookMappingsPluginModule {
  hookMappingsPlugin(root: string): esbuild.Plugin;
  hookMappingFolders(root: string): string[];
}

/** The build's plugin that gives the hook command its harness list (scripts/dev/build.mjs). */
async function pluginModule(): Promise<HookMappingsPluginModule> {
  return (await import(pathToFileURL(path.join(ROOT, 'scripts', 'dev', 'hookMappingsPlugin.mjs')).href)) as HookMappingsPluginModule;
}

describe('the hook bundle (src/hookMain.ts, which dist/hook.js loads)', function () {
  this.timeout(60_000);

  it('bundles without the store, sql.js or zod, and stays under 100 KB', async () => {
    const result = await esbuild.build({
      absWorkingDir: ROOT,
      entryPoints: ['src/hookMain.ts'],
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      write: false,
      metafile: true,
      outfile: 'hook.js',
      logLevel: 'silent',
      plugins: [(await pluginModule()).hookMappingsPlugin(ROOT)],
    });
    const inputs = Object.keys(result.metafile.inputs);
    assert.deepEqual(
      inputs.filter((f) => /node_modules\/(zod|sql\.js)\//.test(f)),
      [],
      'no zod or sql.js in the hook bundle',
    );
    assert.deepEqual(
      inputs.filter((f) => f.startsWith('src/store/') || f.startsWith('src/server/')),
      [],
      'no store or server code in the hook bundle',
    );
    assert.deepEqual(
      inputs.filter((f) => /^src\/harnesses\/.*(install|trust|jsoncSettings)\.ts$/.test(f)),
      [],
      'no installer in the hook bundle (the hook command loads harnesses/hookMappings.ts, not the registry)',
    );
    // The one settings writer it carries: Claude Code's SessionStart hook points Baton's HTTP hook
    // entries at a server that came back on another port (claudeCode/httpHookUrl.ts).
    assert.deepEqual(
      inputs.filter((f) => /^src\/harnesses\/.*settingsFile\.ts$/.test(f)),
      inputs.includes('src/harnesses/claudeCode/httpHookUrl.ts') ? ['src/harnesses/settingsFile.ts'] : [],
    );
    assert.ok(inputs.includes('src/api/routes.ts'), 'the hook names routes from the route table');
    const bytes = result.outputFiles[0].contents.byteLength;
    assert.ok(bytes < 100 * 1024, `the hook bundle is ${bytes} bytes`);
  });

  it('the launcher (src/hook.ts, dist/hook.js) bundles nothing of the hook command: it loads it as a module of its own, after the compile cache is on', async () => {
    const result = await esbuild.build({
      absWorkingDir: ROOT,
      entryPoints: ['src/hook.ts'],
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      write: false,
      metafile: true,
      outfile: 'hook.js',
      logLevel: 'silent',
    });
    assert.deepEqual(Object.keys(result.metafile.inputs), ['src/hook.ts']);
    assert.ok(result.outputFiles[0].contents.byteLength < 4 * 1024, `the launcher is ${result.outputFiles[0].contents.byteLength} bytes`);
  });

  it("lists exactly the registry's hook harnesses, each with the registry's mapping, from the harness folders", async () => {
    const { hookMappingFolders } = await pluginModule();
    const fromFolders = await Promise.all(
      hookMappingFolders(ROOT).map(async (folder) => {
        const m = (await import(path.join(ROOT, 'src', 'harnesses', folder, 'hooks'))) as { HARNESS: string; hooks: unknown };
        return [m.HARNESS, m.hooks];
      }),
    );
    const byId = (a: unknown[], b: unknown[]) => String(a[0]).localeCompare(String(b[0]));
    assert.deepEqual(
      fromFolders.sort(byId),
      hookHarnesses()
        .map((h) => [h.id, h.hooks])
        .sort(byId),
    );
  });
});
