// The layer rules of docs/architecture.md, checked by `npm run lint` (dependency-cruiser): each
// folder of src/ may import only the folders below it, and no modules import each other in a
// circle (src, test, bench, scripts). What a layer may import from outside src/ (src/core stays
// pure, only src/vscode imports `vscode`) is scripts/check-layers.mjs's part of the lint step.
// test/unit/dependencyRules.test.ts proves that a violation fails.

/** Folders of src/ and the folders each may import (besides itself). */
const LAYERS = {
  core: [],
  api: ['core'],
  node: ['core'],
  harnesses: ['core', 'api', 'node'],
  store: ['core', 'node'],
  runs: ['core', 'api', 'node'],
  server: ['core', 'api', 'node', 'harnesses', 'store', 'runs'],
  connectors: ['core', 'api', 'node', 'harnesses'],
  client: ['core', 'api', 'node'],
  cli: ['core', 'api', 'node', 'harnesses', 'store', 'server', 'connectors', 'client', 'runs'],
  vscode: ['core', 'api', 'node', 'harnesses', 'store', 'server', 'client', 'runs'],
};

const layerRules = Object.entries(LAYERS).map(([layer, allowed]) => ({
  name: `layer-${layer}`,
  comment: `src/${layer} may import only ${allowed.length ? allowed.map((l) => `src/${l}`).join(', ') : 'itself'} (docs/architecture.md)`,
  severity: 'error',
  from: { path: `^src/${layer}/` },
  to: { path: '^src/', pathNot: [`^src/${layer}/`, ...allowed.map((l) => `^src/${l}/`)] },
}));

module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'harness-folders-private',
      comment:
        'Only src/harnesses/ imports a harness folder src/harnesses/<name>/; the rest of src/ goes through src/harnesses/registry.ts (docs/architecture.md, "Add a harness").',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/harnesses/' },
      to: { path: '^src/harnesses/[^/]+/' },
    },
    {
      name: 'no-circular',
      comment: 'Modules never import each other in a circle.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(node_modules|dist)/' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
