// The layer rules of docs/architecture.md, checked by `npm run lint` (dependency-cruiser): each
// folder of src/ may import only the folders below it, no modules import each other in a circle
// (src, test, bench, scripts), and scripts/ and test/ meet only in test/shared/. What a layer may
// import from outside src/ (src/core stays pure, only src/vscode imports `vscode`) is
// scripts/dev/check-layers.mjs's part of the lint step. test/unit/dependencyRules.test.ts proves
// that a violation fails.

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

/**
 * scripts/ (developer tooling, demo recording) and test/ share helpers (the VS Code host, the
 * scripted model servers, the harness CLIs) through test/shared/ only (docs/architecture.md,
 * "scripts/ and test/").
 */
const sharedRules = [
  {
    name: 'scripts-reach-test-only-through-shared',
    comment: 'scripts/ imports nothing of test/ but test/shared/ (docs/architecture.md)',
    severity: 'error',
    from: { path: '^scripts/' },
    to: { path: '^test/', pathNot: '^test/shared/' },
  },
  {
    name: 'test-shared-stands-alone',
    comment: 'test/shared/ imports neither the rest of test/ nor scripts/, so scripts/ reaches nothing else of test/ through it (docs/architecture.md)',
    severity: 'error',
    from: { path: '^test/shared/' },
    to: { path: '^(test|scripts)/', pathNot: '^test/shared/' },
  },
  {
    name: 'only-tests-import-scripts',
    comment: 'In test/, only a test file (*.test.ts) imports scripts/: the script it tests; helpers both use live in test/shared/ (docs/architecture.md)',
    severity: 'error',
    from: { path: '^test/', pathNot: ['^test/shared/', '[.]test[.]ts$'] },
    to: { path: '^scripts/' },
  },
];

module.exports = {
  forbidden: [
    ...layerRules,
    ...sharedRules,
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
