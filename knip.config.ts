// Dead-code check (`npm run knip`, part of `npm test`): unused files, exports and dependencies.
// Test files (vitest plugin) count as users, so an export a test imports is in use.
import type { KnipConfig } from 'knip';

const config: KnipConfig = {
  workspaces: {
    '.': {
      // Programs started by name rather than imported: the CLI (package.json "bin"), the
      // benchmarks and their forked children, the mock upstream's CLI, the scripts
      // and the metering benchmark run with tsx (the tests fork src/bench/gateway-child.ts too).
      entry: [
        'src/cli/main.ts',
        'src/mock-upstream/cli.ts',
        'src/bench/{run-bench,stats-bench,activity-bench,stream-chunk-cost,gc-probe,tail-probe,tail-probe-preload}.ts',
        'src/bench/*-child.ts',
        'scripts/*.{ts,mjs}',
        'test/metering/bench-metering.ts',
        // A worker_threads module started by its URL (settlement-batch-writer.ts).
        'src/metering/settlement-writer-worker.ts',
      ],
      project: ['src/**/*.ts', 'test/**/*.ts', 'scripts/**/*.{ts,mjs}', '*.{js,cjs,ts}'],
      // Found by path at run time (createRequire().resolve), which knip does not follow: the PDF
      // fonts, Portkey's gateway the benchmark starts and axe-core, whose script the console
      // accessibility test injects into the page.
      ignoreDependencies: ['dejavu-fonts-ttf', '@portkey-ai/gateway', 'openapi-typescript', 'axe-core'],
      // Programs of the system, not of npm: the tests start a private redis-server and install
      // Chromium's libraries with apt-get when missing.
      ignoreBinaries: ['redis-server', 'apt-get'],
    },
    console: {
      project: ['src/**/*.{ts,tsx}'],
      // The root vitest config runs the console's tests in happy-dom, and the root's
      // `console:api` script generates console/src/api/schema.d.ts with openapi-typescript: both
      // belong to the console and are installed by its workspace.
      ignoreDependencies: ['happy-dom', 'openapi-typescript'],
    },
  },
};

export default config;
