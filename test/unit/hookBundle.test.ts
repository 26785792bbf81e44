// The hook command starts on every harness event, inside the harness's own turn: its bundle must
// stay small. It carries the route table and the API client, never the store, sql.js or zod.

import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import * as esbuild from 'esbuild';

const ROOT = path.resolve(__dirname, '..', '..');

describe('the hook bundle (src/hook.ts)', function () {
  this.timeout(60_000);

  it('bundles without the store, sql.js or zod, and stays under 100 KB', async () => {
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
      inputs.filter((f) => /^src\/harnesses\/.*(install|trust|jsoncSettings|settingsFile)\.ts$/.test(f)),
      [],
      'no installer in the hook bundle (the hook command loads harnesses/hookMappings.ts, not the registry)',
    );
    assert.ok(inputs.includes('src/api/routes.ts'), 'the hook names routes from the route table');
    const bytes = result.outputFiles[0].contents.byteLength;
    assert.ok(bytes < 100 * 1024, `the hook bundle is ${bytes} bytes`);
  });
});
