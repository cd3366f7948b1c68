import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Stops the run with one line when PostgreSQL or Redis is down.
    globalSetup: ['./test/setup/require-services.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Real sockets and real databases: files run in parallel processes, tests inside a file in order.
    pool: 'forks',
    reporters: ['default', './test/summary-reporter.ts'],
  },
});
