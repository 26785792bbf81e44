// The layer table, the no-circle rule and the scripts/–test/ boundary of .dependency-cruiser.cjs
// (docs/architecture.md), run by the real dependency-cruiser on small trees with and without a
// violation, and on this repository.

import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const REPO = path.resolve(__dirname, '..', '..');
const DEPCRUISE = path.join(REPO, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
const CONFIG = path.join(REPO, '.dependency-cruiser.cjs');
const roots: string[] = [];

function tree(files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-deps-'));
  roots.push(root);
  const all = {
    'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'commonjs', moduleResolution: 'node' }, include: ['src', 'test', 'scripts'] }),
    ...files,
  };
  for (const [rel, text] of Object.entries(all)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  return root;
}

function cruise(cwd: string, targets = ['src']): { status: number | null; out: string } {
  const res = spawnSync(process.execPath, [DEPCRUISE, '--config', CONFIG, ...targets], { cwd, encoding: 'utf8' });
  return { status: res.status, out: res.stdout + res.stderr };
}

describe('dependency rules (.dependency-cruiser.cjs)', function () {
  this.timeout(60_000);
  after(() => {
    for (const root of roots) fs.rmSync(root, { recursive: true, force: true });
  });

  it('passes a tree where each layer imports only the layers below it', () => {
    const res = cruise(
      tree({
        'src/core/a.ts': 'export const a = 1;\n',
        'src/node/n.ts': "import { a } from '../core/a';\nexport const n = a;\n",
        'src/store/s.ts': "import { n } from '../node/n';\nexport const s = n;\n",
        'src/server/v.ts': "import { s } from '../store/s';\nexport const v = s;\n",
      }),
    );
    assert.equal(res.status, 0, res.out);
  });

  it('fails when a layer imports one above it (store → server), naming the rule', () => {
    const res = cruise(
      tree({
        'src/server/v.ts': 'export const v = 1;\n',
        'src/store/s.ts': "import { v } from '../server/v';\nexport const s = v;\n",
      }),
    );
    assert.notEqual(res.status, 0, res.out);
    assert.match(res.out, /layer-store/);
    assert.match(res.out, /src\/store\/s\.ts/);
  });

  it('fails when src/core imports any other folder of src', () => {
    const res = cruise(tree({ 'src/api/r.ts': 'export const r = 1;\n', 'src/core/a.ts': "import { r } from '../api/r';\nexport const a = r;\n" }));
    assert.notEqual(res.status, 0, res.out);
    assert.match(res.out, /layer-core/);
  });

  it('fails when the store imports src/harnesses: it may import only src/core and src/node', () => {
    const res = cruise(
      tree({
        'src/harnesses/registry.ts': 'export const HARNESSES = [];\n',
        'src/store/s.ts': "import { HARNESSES } from '../harnesses/registry';\nexport const s = HARNESSES;\n",
      }),
    );
    assert.notEqual(res.status, 0, res.out);
    assert.match(res.out, /layer-store/);
  });

  it('fails when a file outside src/harnesses/ imports a harness folder, and passes through the registry', () => {
    const files = {
      'src/harnesses/codex/hooks.ts': "export const HARNESS = 'codex';\n",
      'src/harnesses/registry.ts': "import { HARNESS } from './codex/hooks';\nexport const HARNESSES = [HARNESS];\n",
    };
    const direct = cruise(tree({ ...files, 'src/cli/c.ts': "import { HARNESS } from '../harnesses/codex/hooks';\nexport const c = HARNESS;\n" }));
    assert.notEqual(direct.status, 0, direct.out);
    assert.match(direct.out, /harness-folders-private/);
    assert.match(direct.out, /src\/cli\/c\.ts/);
    const viaRegistry = cruise(tree({ ...files, 'src/cli/c.ts': "import { HARNESSES } from '../harnesses/registry';\nexport const c = HARNESSES;\n" }));
    assert.equal(viaRegistry.status, 0, viaRegistry.out);
  });

  it('fails when a file of src/store/engine/ imports a domain module of src/store/, and passes engine-to-engine imports', () => {
    const files = {
      'src/store/queries.ts': 'export const q = 1;\n',
      'src/store/engine/journal.ts': 'export const j = 1;\n',
    };
    const domain = cruise(tree({ ...files, 'src/store/engine/snapshot.ts': "import { q } from '../queries';\nexport const s = q;\n" }));
    assert.notEqual(domain.status, 0, domain.out);
    assert.match(domain.out, /store-engine-knows-no-domain/);
    assert.match(domain.out, /src\/store\/engine\/snapshot\.ts/);
    const seam = cruise(tree({ ...files, 'src/store/engine/engine.ts': "import { q } from '../queries';\nexport const e = q;\n" }));
    assert.notEqual(seam.status, 0, seam.out);
    assert.match(seam.out, /store-engine-seams-stay-narrow/);
    const engineOnly = cruise(
      tree({
        ...files,
        'src/store/engine/snapshot.ts': "import { j } from './journal';\nexport const s = j;\n",
        'src/store/s.ts': "import { j } from './engine/journal';\nexport const d = j;\n",
      }),
    );
    assert.equal(engineOnly.status, 0, engineOnly.out);
  });

  it('fails on an import circle inside one layer, even through type-only imports', () => {
    const res = cruise(
      tree({
        'src/store/a.ts': "import type { B } from './b';\nexport interface A { b?: B }\n",
        'src/store/b.ts': "import type { A } from './a';\nexport interface B { a?: A }\n",
      }),
    );
    assert.notEqual(res.status, 0, res.out);
    assert.match(res.out, /no-circular/);
  });

  it('passes scripts/ and test/ that meet only in test/shared/ (and a test file importing the script it tests)', () => {
    const res = cruise(
      tree({
        'test/shared/host.ts': "import { a } from '../../src/core/a';\nexport const host = a;\n",
        'src/core/a.ts': 'export const a = 1;\n',
        'scripts/dev/start.ts': "import { host } from '../../test/shared/host';\nexport const start = host;\n",
        'test/helpers/h.ts': "import { host } from '../shared/host';\nexport const h = host;\n",
        'test/unit/start.test.ts': "import { start } from '../../scripts/dev/start';\nimport { h } from '../helpers/h';\nexport const t = start + h;\n",
      }),
      ['src', 'test', 'scripts'],
    );
    assert.equal(res.status, 0, res.out);
  });

  it('fails when scripts/ imports a test helper outside test/shared/, naming the rule', () => {
    const res = cruise(
      tree({
        'test/helpers/h.ts': 'export const h = 1;\n',
        'scripts/demo/record.ts': "import { h } from '../../test/helpers/h';\nexport const r = h;\n",
      }),
      ['test', 'scripts'],
    );
    assert.notEqual(res.status, 0, res.out);
    assert.match(res.out, /scripts-reach-test-only-through-shared/);
    assert.match(res.out, /scripts\/demo\/record\.ts/);
  });

  it('fails when a test helper (not a *.test.ts) imports scripts/', () => {
    const res = cruise(
      tree({
        'scripts/dev/host.ts': 'export const host = 1;\n',
        'test/vscode/runner.ts': "import { host } from '../../scripts/dev/host';\nexport const r = host;\n",
      }),
      ['test', 'scripts'],
    );
    assert.notEqual(res.status, 0, res.out);
    assert.match(res.out, /only-tests-import-scripts/);
  });

  it('fails when test/shared/ imports the rest of test/ or scripts/', () => {
    const res = cruise(
      tree({
        'test/helpers/child.ts': 'export const ROOT = 1;\n',
        'scripts/dev/env.ts': 'export const env = 1;\n',
        'test/shared/cli.ts': "import { ROOT } from '../helpers/child';\nimport { env } from '../../scripts/dev/env';\nexport const cli = ROOT + env;\n",
      }),
      ['test', 'scripts'],
    );
    assert.notEqual(res.status, 0, res.out);
    assert.match(res.out, /test-shared-stands-alone[\s\S]*test-shared-stands-alone/);
  });

  it('passes this repository (src, test, bench, scripts)', () => {
    const res = cruise(REPO, ['src', 'test', 'bench', 'scripts']);
    assert.equal(res.status, 0, res.out);
  });
});
