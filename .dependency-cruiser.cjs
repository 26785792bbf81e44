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

/**
 * The store's engine (src/store/engine/) still reaches its domain in two files: the engine applies
 * write commands and answers reads from their tables, and loading replays journal records and
 * migrates the schema. Those edges, and only those, are allowed (docs/architecture.md, "store/").
 */
const STORE_ENGINE_DOMAIN_SEAMS = ['^src/store/engine/(engine|load)[.]ts$'];
const STORE_DOMAIN_ENTRY_POINTS = ['commands', 'writeCommands', 'reads', 'records', 'schema', 'searchIndex', 'db'];

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
      name: 'store-engine-knows-no-domain',
      comment:
        'src/store/engine/ (journal, snapshots, worker, sql.js) imports nothing of the store\'s domain modules in src/store/ (docs/architecture.md, "store/"); engine.ts and load.ts are the two known exceptions, below.',
      severity: 'error',
      from: { path: '^src/store/engine/', pathNot: STORE_ENGINE_DOMAIN_SEAMS },
      to: { path: '^src/store/', pathNot: '^src/store/engine/' },
    },
    {
      name: 'store-engine-seams-stay-narrow',
      comment:
        'engine.ts and load.ts reach the domain only through the write/read tables, the record applier, the schema and the search index catch-up (docs/architecture.md, "store/"); nothing more.',
      severity: 'error',
      from: { path: STORE_ENGINE_DOMAIN_SEAMS },
      to: { path: '^src/store/', pathNot: ['^src/store/engine/', `^src/store/(${STORE_DOMAIN_ENTRY_POINTS.join('|')})[.]ts$`] },
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
