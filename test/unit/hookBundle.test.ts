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

/** The bundle the build makes of `entry` (in memory): its inputs and its size. */
async function bundle(entry: string, withMappings = true): Promise<{ inputs: string[]; bytes: number }> {
  const result = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    write: false,
    metafile: true,
    outfile: 'out.js',
    logLevel: 'silent',
    plugins: withMappings ? [(await pluginModule()).hookMappingsPlugin(ROOT)] : [],
  });
  return { inputs: Object.keys(result.metafile.inputs), bytes: result.outputFiles[0].contents.byteLength };
}

describe('the hook bundles (src/hookMain.ts, which dist/hook.js loads, and the mappings it loads when an event runs in the hook)', function () {
  this.timeout(60_000);

  it('the relaying hook command (src/hookMain.ts) carries no harness mapping, no HTTP client library and no schema library: under 24 KB', async () => {
    const { inputs, bytes } = await bundle('src/hookMain.ts');
    assert.deepEqual(
      inputs.filter((f) => f.startsWith('node_modules/') || /^src\/harnesses\/(\w+\/|claudeStyleHooks|hookMappings|registry)/.test(f)),
      [],
      `the relay loads no mapping and no dependency: ${inputs.join(', ')}`,
    );
    assert.ok(inputs.includes('src/connectors/hookRelay.ts'));
    assert.ok(bytes < 24 * 1024, `the relaying hook command is ${bytes} bytes`);
  });

  it('the mappings (src/hookLocal.ts) bundle without the store, sql.js or zod, and stay under 100 KB', async () => {
    const { inputs, bytes } = await bundle('src/hookLocal.ts');
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
    assert.ok(bytes < 100 * 1024, `the hook bundle is ${bytes} bytes`);
  });

  it('the launcher (src/hook.ts, dist/hook.js) bundles nothing of the hook command: it loads it as a module of its own, after the compile cache is on', async () => {
    const { inputs, bytes } = await bundle('src/hook.ts', false);
    assert.deepEqual(inputs, ['src/hook.ts']);
    assert.ok(bytes < 4 * 1024, `the launcher is ${bytes} bytes`);
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
