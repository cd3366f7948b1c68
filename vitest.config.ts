import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 30_000,
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
