import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main, parseArguments, type ActivityBenchReport } from '../../src/bench/activity-bench.js';
import { TEST_POSTGRES_URL } from '../helpers/test-store.js';

describe('activity benchmark (--smoke)', () => {
  it('parses its options and refuses unknown ones', () => {
    expect(parseArguments([])).toMatchObject({ rows: 1_000_000, users: 1000, databases: ['sqlite', 'postgres'] });
    expect(parseArguments(['--smoke', '--rows', '5_000', '--databases', 'sqlite'])).toMatchObject({
      rows: 5000,
      databases: ['sqlite'],
    });
    expect(() => parseArguments(['--rows', '0'])).toThrow(/--rows/);
    expect(() => parseArguments(['--fast'])).toThrow(/unknown option --fast/);
    expect(() => parseArguments(['--databases', 'mysql'])).toThrow(/mysql/);
  });

  // No timing assertions: the machine is shared. Every figure must exist, on both databases.
  it('seeds 20k requests and measures every query on SQLite and PostgreSQL', { timeout: 300_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'activity-bench-smoke-'));
    try {
      const output = join(dir, 'activity.json');
      await main(['--smoke', '--output', output, '--postgres-url', TEST_POSTGRES_URL], () => {});
      const written = JSON.parse(readFileSync(output, 'utf8')) as ActivityBenchReport;
      expect(written.databases.map((database) => [database.database, database.rows])).toEqual([
        ['sqlite', 20_000],
        ['postgres', 20_000],
      ]);
      for (const database of written.databases) expect(database.heavyRows).toBe(2000);
      expect(written.results).toHaveLength(12);
      for (const result of written.results) {
        expect(result.count).toBe(5);
        expect(Number.isFinite(result.p99)).toBe(true);
        // Every query finds something: a filter matching no row would measure an empty index seek.
        expect(result.returned, `${result.database} ${result.query}`).toBeGreaterThan(0);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
