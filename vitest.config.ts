import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Generous: on a loaded machine (2 cores, load 10+) creating and migrating a PostgreSQL schema
    // alone took over 20 s. A limit is a hang detector here, never a speed assertion.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default', './test/summary-reporter.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'gateway',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          // Stops the run with one line when PostgreSQL or Redis is down.
          globalSetup: ['./test/setup/require-services.ts'],
          // Real sockets and real databases: files run in parallel processes, tests inside a file in order.
          pool: 'forks',
        },
      },
      {
        extends: true,
        // The web console's component and formatting tests, in a simulated DOM.
        test: { name: 'console', root: './console', include: ['src/**/*.test.{ts,tsx}'], environment: 'happy-dom' },
      },
    ],
  },
});
