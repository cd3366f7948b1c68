// The import-direction and no-cycle check (`npm run lint:deps`, part of `npm test`) over src, test, console and scripts.
// Layers, lowest first: a module may import its own layer and the layers below it, never above.
// docs/architecture.md explains the order.
const LAYERS = [
  ['shared'],
  ['config', 'store'],
  ['providers'],
  ['routing'],
  ['gateway'],
  // Domains: each folder holds what its name says; they may use one another, without cycles.
  ['keys', 'metering', 'credits', 'statistics', 'rankings', 'catalog', 'billing', 'users'],
  // Request hooks and the routes that watch the app from outside: health, metrics, traces.
  ['http', 'observability'],
  ['accounts'],
  // The composition root and the programs built on it.
  ['app.ts', 'composition', 'gateway-runtime.ts', 'cli', 'bench', 'mock-upstream'],
];

const pathOf = (names) => `^src/(${names.map((name) => name.replace('.', '\\.')).join('|')})(/|$)`;

const layerRules = LAYERS.slice(0, -1).map((layer, index) => ({
  name: `layer-${layer[0]}`,
  comment: `${layer.join(', ')} must not import a higher layer (${LAYERS.slice(index + 1)
    .flat()
    .join(', ')}).`,
  severity: 'error',
  from: { path: pathOf(layer) },
  to: { path: pathOf(LAYERS.slice(index + 1).flat()) },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import cycles between files.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    ...layerRules,
    {
      name: 'accounts-only-from-app',
      comment: 'accounts/ holds the account API route plugins: only the app mounts them.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/accounts/', '^src/app\\.ts$', '^src/composition/'] },
      to: { path: '^src/accounts/' },
    },
    {
      name: 'frozen-migrations',
      comment: 'A migration is frozen: it imports only the store’s types and helpers, never feature code.',
      severity: 'error',
      from: { path: '^src/store/migrations/' },
      to: { path: '^src/', pathNot: ['^src/store/migrations/', '^src/store/(database|column-types)\\.ts$'] },
    },
    {
      name: 'production-not-to-tests',
      comment:
        'Shipped code never imports test code. Test files beside their sources (*.test.ts) may use test/helpers.',
      severity: 'error',
      from: { path: '^src/', pathNot: '\\.test\\.tsx?$' },
      to: { path: '^test/' },
    },
    {
      name: 'no-test-file-imports',
      comment: 'A test file is a leaf: what two tests share lives in test/helpers.',
      severity: 'error',
      from: {},
      to: { path: '\\.test\\.tsx?$' },
    },
    {
      name: 'console-stands-alone',
      comment:
        'The console is its own bundle: it reaches the server over HTTP, with types generated into console/src/api/schema.d.ts, never by import.',
      severity: 'error',
      from: { path: '^console/' },
      to: { path: '^(src|test|scripts)/' },
    },
    {
      name: 'server-not-to-console',
      comment: 'The server serves the built console as files (http/console-static.ts); it never imports its code.',
      severity: 'error',
      from: { path: '^(src|test)/' },
      to: { path: '^console/' },
    },
    {
      name: 'production-not-to-dev-dependencies',
      comment:
        'Code the gateway runs imports only `dependencies`; the benchmark, the mock upstream and test files may use devDependencies.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['\\.test\\.tsx?$', '^src/(bench|mock-upstream)/'] },
      to: { dependencyTypes: ['npm-dev'] },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Build output (console/dist after a console build) is not source.
    exclude: { path: '^(console/)?dist/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
