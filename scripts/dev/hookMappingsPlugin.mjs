// The hook command's harnesses, derived from the harness folders at build time: every
// src/harnesses/<folder>/hooks.ts, which exports the harness id as HARNESS and its hook mapping as
// `hooks`. dist/hook.js runs on every harness event, so it must not load the registry (installers,
// settings editors, zod…); this esbuild plugin gives src/harnesses/hookMappings.ts (which reads
// the registry when run from source) the contents that import only the hooks.ts files. Adding a
// harness with hooks adds nothing here (docs/architecture.md, "Add a harness").
import * as fs from 'node:fs';
import * as path from 'node:path';

/** The harness folders with a hooks.ts, in name order. */
export function hookMappingFolders(root) {
  const dir = path.join(root, 'src', 'harnesses');
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && fs.existsSync(path.join(dir, e.name, 'hooks.ts')))
    .map((e) => e.name)
    .sort();
}

/** The esbuild plugin: src/harnesses/hookMappings.ts, generated from the folders. */
export function hookMappingsPlugin(root) {
  return {
    name: 'hook-mappings',
    setup(build) {
      build.onLoad({ filter: /[\\/]src[\\/]harnesses[\\/]hookMappings\.ts$/ }, () => {
        const folders = hookMappingFolders(root);
        const imports = folders.map((f, i) => `import { HARNESS as id${i}, hooks as hooks${i} } from './${f}/hooks';`);
        const list = folders.map((_, i) => `{ id: id${i}, hooks: hooks${i} }`).join(', ');
        return { contents: `${imports.join('\n')}\nexport const HOOK_MAPPINGS = [${list}];\n`, loader: 'ts', resolveDir: path.join(root, 'src', 'harnesses') };
      });
    },
  };
}
