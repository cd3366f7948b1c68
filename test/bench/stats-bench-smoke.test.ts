import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BENCH_PROVIDERS } from '../../src/bench/stats-bench-setup.js';
import {
  benchEndpoints,
  formatTable,
  main,
  parseArguments,
  type StatsBenchReport,
} from '../../src/bench/stats-bench.js';
import { TEST_POSTGRES_URL } from '../helpers/test-store.js';

describe('statistics benchmark (--smoke)', () => {
  it('parses its options and refuses unknown ones', () => {
    expect(parseArguments([])).toMatchObject({ events: 10_000_000, databases: ['sqlite', 'postgres'] });
    expect(
      parseArguments(['--smoke', '--events', '5_000', '--databases', 'sqlite', '--out', '/tmp/x.json']),
    ).toMatchObject({ events: 5000, databases: ['sqlite'], output: '/tmp/x.json' });
    expect(() => parseArguments(['--events', '-3'])).toThrow(/--events/);
    expect(() => parseArguments(['--fast'])).toThrow(/unknown option --fast/);
    expect(() => parseArguments(['--databases', 'mysql'])).toThrow(/mysql/);
  });

  // No timing assertions: the machine is shared. Every figure must exist, on both databases, in both modes.
  it('seeds ~20k events and produces every figure on SQLite and PostgreSQL, in the table and the JSON file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stats-bench-smoke-'));
    try {
      const output = join(dir, 'stats.json');
      const report = await main(['--smoke', '--output', output, '--postgres-url', TEST_POSTGRES_URL]);
      const written = JSON.parse(readFileSync(output, 'utf8')) as StatsBenchReport;
      expect(written.options.events).toBe(20_000);
      expect(written.databases.map((database) => database.database)).toEqual(['sqlite', 'postgres']);
      for (const database of written.databases) {
        expect(database.rows.usage_rollup_hour).toBeGreaterThan(0);
        expect(database.rows.usage_model_users_day).toBeGreaterThan(0);
      }
      const endpoints = benchEndpoints(BENCH_PROVIDERS[0]);
      expect(endpoints.filter((endpoint) => endpoint.startsWith('/rankings/')).length).toBeGreaterThanOrEqual(10);
      expect(endpoints.filter((endpoint) => endpoint.includes('/stats?window=')).length).toBe(3);
      expect(written.results).toHaveLength(2 * 2 * endpoints.length);
      for (const database of ['sqlite', 'postgres'])
        for (const mode of ['computed', 'memoised'])
          for (const endpoint of endpoints) {
            const result = written.results.find(
              (candidate) =>
                candidate.database === database && candidate.mode === mode && candidate.endpoint === endpoint,
            );
            expect(result, `${database} ${mode} ${endpoint}`).toBeDefined();
            expect(result!.samples).toBe(5);
            expect(result!.p50).toBeGreaterThan(0);
            expect(result!.p99).toBeGreaterThanOrEqual(result!.p50);
            expect(typeof result!.meetsTarget).toBe('boolean');
          }
      expect(report.results).toEqual(written.results);
      const table = formatTable(report);
      expect(table.split('\n').filter((line) => /^(sqlite|postgres) /.test(line))).toHaveLength(written.results.length);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
