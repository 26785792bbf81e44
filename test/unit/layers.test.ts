import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const REPO = path.resolve(__dirname, '..', '..');
const SCRIPT = 'scripts/dev/check-layers.mjs';

const roots: string[] = [];

/** Writes a temporary tree (paths relative to its root) and returns the root. */
function tree(files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-layers-'));
  roots.push(root);
  for (const [rel, text] of Object.entries(files)) {
    const full = path.join(root, rel);
    fs.mkdirSync(path.dirname(full), { recursive: true });
    fs.writeFileSync(full, text);
  }
  return root;
}

function check(root?: string): { status: number | null; stdout: string; stderr: string } {
  const args = root === undefined ? [SCRIPT] : [SCRIPT, root];
  const res = spawnSync(process.execPath, args, { cwd: REPO, encoding: 'utf8' });
  return { status: res.status, stdout: res.stdout, stderr: res.stderr };
}

function assertViolation(files: Record<string, string>, file: string, spec: string): void {
  const res = check(tree(files));
  assert.equal(res.status, 1, res.stdout + res.stderr);
  assert.match(res.stderr, /Layering violations:/);
  assert.ok(res.stderr.includes(path.join(...file.split('/'))), `stderr should name ${file}: ${res.stderr}`);
  assert.ok(res.stderr.includes(`'${spec}'`), `stderr should name '${spec}': ${res.stderr}`);
  assert.equal(res.stdout, '');
}

function assertClean(files: Record<string, string>): void {
  const res = check(tree(files));
  assert.equal(res.status, 0, res.stdout + res.stderr);
  assert.equal(res.stdout.trim(), 'layers ok');
  assert.equal(res.stderr, '');
}

describe('scripts/dev/check-layers.mjs', function () {
  this.timeout(30_000);

  after(() => {
    for (const root of roots) fs.rmSync(root, { recursive: true, force: true });
  });

  it('passes a clean tree where src/core imports its sibling', () => {
    assertClean({
      'src/core/a.ts': "import { b } from './b';\nexport const a = b + 1;\n",
      'src/core/b.ts': 'export const b = 1;\n',
    });
  });

  it('passes src/core importing within src/core from a subfolder', () => {
    assertClean({
      'src/core/sub/a.ts': "import { b } from '../b';\nimport type { T } from '../types';\n",
      'src/core/b.ts': 'export const b = 1;\n',
      'src/core/types.ts': 'export type T = 1;\n',
    });
  });

  it('fails when src/core imports node:fs, naming the file', () => {
    assertViolation({ 'src/core/a.ts': "import * as fs from 'node:fs';\n" }, 'src/core/a.ts', 'node:fs');
  });

  it('fails when src/core imports fs without the node: prefix', () => {
    assertViolation({ 'src/core/a.ts': "import { readFileSync } from 'fs';\n" }, 'src/core/a.ts', 'fs');
  });

  it('fails when src/core imports a subpath of a forbidden module (fs/promises)', () => {
    assertViolation({ 'src/core/a.ts': "import { readFile } from 'node:fs/promises';\n" }, 'src/core/a.ts', 'node:fs/promises');
  });

  it('fails when src/core imports vscode, even as a type', () => {
    assertViolation({ 'src/core/a.ts': "import type * as vscode from 'vscode';\n" }, 'src/core/a.ts', 'vscode');
  });

  it('fails when src/core imports sql.js', () => {
    assertViolation({ 'src/core/a.ts': "import initSqlJs from 'sql.js';\n" }, 'src/core/a.ts', 'sql.js');
  });

  it('fails when src/core imports ../store/x', () => {
    assertViolation({ 'src/core/a.ts': "import { x } from '../store/x';\n", 'src/store/x.ts': 'export const x = 1;\n' }, 'src/core/a.ts', '../store/x');
  });

  it('fails on require(), dynamic import() and re-exports from src/core', () => {
    for (const [text, spec] of [
      ["const cp = require('child_process');\n", 'child_process'],
      ["export async function f() { return import('node:os'); }\n", 'node:os'],
      ["export * from 'node:path';\n", 'node:path'],
      ["export { createHash } from 'crypto';\n", 'crypto'],
    ] as const) {
      assertViolation({ 'src/core/a.ts': text }, 'src/core/a.ts', spec);
    }
  });

  it('fails when src/store imports vscode', () => {
    assertViolation({ 'src/store/x.ts': "import * as vscode from 'vscode';\n" }, 'src/store/x.ts', 'vscode');
  });

  it('passes src/vscode and src/extension.ts importing vscode', () => {
    assertClean({
      'src/vscode/x.ts': "import * as vscode from 'vscode';\n",
      'src/vscode/deep/y.ts': "import { window } from 'vscode';\n",
      'src/extension.ts': "import * as vscode from 'vscode';\n",
    });
  });

  it('allows src/store to use Node I/O and sql.js', () => {
    assertClean({ 'src/store/x.ts': "import * as fs from 'node:fs';\nimport initSqlJs from 'sql.js';\n" });
  });

  it('allows src/core to import packages that are not forbidden', () => {
    assertClean({ 'src/core/a.ts': "import { z } from 'zod';\n" });
  });

  it('ignores files that are not .ts', () => {
    assertClean({ 'src/core/a.js': "const fs = require('fs');\n", 'src/core/b.md': "import fs from 'fs'\n" });
  });

  it('reports every violation, one per line', () => {
    const res = check(
      tree({
        'src/core/a.ts': "import * as fs from 'node:fs';\nimport * as vscode from 'vscode';\n",
        'src/server/s.ts': "import * as vscode from 'vscode';\n",
      }),
    );
    assert.equal(res.status, 1);
    const lines = res.stderr
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.trim())
      .sort();
    assert.deepEqual(lines, [
      `${path.join('src', 'core', 'a.ts')}: src/core must stay pure but imports 'node:fs'`,
      `${path.join('src', 'core', 'a.ts')}: src/core must stay pure but imports 'vscode'`,
      `${path.join('src', 'server', 's.ts')}: only src/vscode may import 'vscode'`,
    ]);
  });

  it('passes the real repository (no argument)', () => {
    const res = check();
    assert.equal(res.status, 0, res.stdout + res.stderr);
    assert.equal(res.stdout.trim(), 'layers ok');
  });

  // "Stays inside src/core" must compare whole path segments: a string prefix check let
  // src/core/a.ts import '../core2/x' (a different folder).
  it('fails when src/core imports a sibling folder whose name starts with "core"', () => {
    assertViolation(
      { 'src/core/a.ts': "import { x } from '../core2/x';\n", 'src/core2/x.ts': "import * as fs from 'node:fs';\nexport const x = 1;\n" },
      'src/core/a.ts',
      '../core2/x',
    );
  });

  // Side-effect imports (`import 'node:fs';`, `import 'vscode';`) have no `from`; an import pattern
  // that required one never checked them.
  it('fails on side-effect imports of forbidden modules', () => {
    assertViolation({ 'src/core/a.ts': "import 'node:fs';\n" }, 'src/core/a.ts', 'node:fs');
    assertViolation({ 'src/store/x.ts': "import 'vscode';\n" }, 'src/store/x.ts', 'vscode');
  });
});
