import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runBench, type BenchReport } from '../../src/bench/bench-runner.js';
import { SMOKE_PLAN } from '../../src/bench/bench-plan.js';
import { TARGET_IDS } from '../../src/bench/bench-targets.js';
import type { Figure } from '../../src/bench/bench-report.js';

/**
 * The benchmark's smoke mode end to end: the fake upstream, the floor, our gateway on SQLite and
 * on PostgreSQL + Redis (metering on, and off as the CPU reference), and Portkey's gateway, each a
 * real process under real load. It asserts
 * that every figure is produced, never how fast anything was (the machine is shared).
 */
describe('npm run bench -- --smoke', () => {
  const folder = mkdtempSync(join(tmpdir(), 'bench-smoke-'));
  const outFile = join(folder, 'latest.json');
  const lines: string[] = [];
  let report: BenchReport;
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('measures every target and writes the results file', { timeout: 200_000 }, async () => {
    report = await runBench({
      plan: SMOKE_PLAN,
      targets: [...TARGET_IDS],
      outFile,
      log: (line) => lines.push(line),
    });
    expect(report.results.map((result) => [result.id, result.error])).toEqual(TARGET_IDS.map((id) => [id, undefined]));
    expect(report.failed).toBe(false);
    const written = JSON.parse(readFileSync(outFile, 'utf8'));
    expect(written).toMatchObject({
      version: 1,
      mode: 'smoke',
      metering: { on: expect.any(String), off: expect.any(String) },
      machine: { cores: expect.any(Number) },
      streamChunkCost: { chatTranslated: expect.any(Number), chatNative: expect.any(Number) },
    });
    expect(written.figures).toEqual(JSON.parse(JSON.stringify(report.json.figures)));
  });

  it('produces every figure for every target it applies to', () => {
    const figures = new Map((report.json.figures as Figure[]).map((figure) => [figure.id, figure]));
    const gateways = ['floor', 'gateway-sqlite', 'gateway-postgres', 'portkey'];
    const meteringOff = ['gateway-sqlite-off', 'gateway-postgres-off'];
    const expected: Record<string, string[]> = {
      throughput: ['direct', ...gateways, ...meteringOff],
      throughput_vs_direct: ['direct', ...gateways, ...meteringOff],
      throughput_vs_portkey: ['floor', 'gateway-sqlite', 'gateway-postgres', ...meteringOff],
      throughput_vs_floor: ['gateway-sqlite', 'gateway-postgres', 'portkey', ...meteringOff],
      one_at_a_time_added_p50: gateways,
      one_at_a_time_added_p99: gateways,
      one_at_a_time_vs_floor: ['gateway-sqlite', 'gateway-postgres', 'portkey'],
      one_at_a_time_vs_portkey: ['floor', 'gateway-sqlite', 'gateway-postgres'],
      sustained_rate: gateways,
      cpu_per_chunk_vs_floor: ['gateway-sqlite', 'gateway-postgres', 'portkey', ...meteringOff],
      cpu_vs_floor: ['gateway-sqlite', 'gateway-postgres', 'portkey', ...meteringOff],
      cpu_metering_on_vs_off: ['gateway-sqlite', 'gateway-postgres'],
      cpu_postgres_vs_sqlite: ['gateway-postgres'],
      stream_throughput: ['direct', ...gateways, ...meteringOff],
      added_latency_p50: gateways,
      added_latency_p99: gateways,
      cpu_per_request: [...gateways, ...meteringOff],
      cpu_per_chunk: [...gateways, ...meteringOff],
      added_first_token_p50: gateways,
      added_first_token_p99: gateways,
      rss_open_streams: gateways,
    };
    expect([...figures.keys()].sort()).toEqual(Object.keys(expected).sort());
    for (const [id, targets] of Object.entries(expected)) {
      const figure = figures.get(id)!;
      for (const target of targets)
        expect({ id, target, value: Number.isFinite(figure.values[target]) }).toEqual({ id, target, value: true });
      // Our gateways (metering on) are judged against every figure that has a target (and applies
      // to them); metering off is a reference, never judged.
      if (figure.target)
        for (const ours of ['gateway-sqlite', 'gateway-postgres'].filter((ours) => targets.includes(ours)))
          expect(typeof figure.met[ours]).toBe('boolean');
      for (const reference of meteringOff) expect(figure.met[reference] ?? null).toBeNull();
    }
    // Every absolute figure of our gateways is also shown as a multiple of the floor's.
    for (const id of ['throughput', 'stream_throughput', 'cpu_per_request', 'rss_open_streams'])
      for (const ours of ['gateway-sqlite', 'gateway-postgres'])
        expect({ id, ours, ratio: Number.isFinite(figures.get(id)!.floorRatio[ours]) }).toEqual({
          id,
          ours,
          ratio: true,
        });
  });

  it('measures real work: answers arrived, streams were open at once, memory and CPU were read', () => {
    for (const result of report.results) {
      expect(result.saturation!.successes).toBeGreaterThan(0);
      expect(result.streamSaturation!.successes).toBeGreaterThan(0);
      if (result.id.endsWith('-off')) {
        // The CPU reference: saturation only.
        expect([result.saturation!.failures, result.streamSaturation!.failures]).toEqual([0, 0]);
        expect(result.saturation!.cpuMicrosPerRequest).toBeGreaterThan(0);
        expect(result.fixedRate).toBeUndefined();
        continue;
      }
      // Metering on: every request was admitted against the granted credits and the key's limits.
      expect([
        result.id,
        result.saturation!.failures,
        result.streamSaturation!.failures,
        result.fixedRate!.failures,
      ]).toEqual([result.id, 0, 0, 0]);
      expect(result.fixedRate!.latency.count).toBeGreaterThan(0);
      if (result.id !== 'direct') {
        // One at a time and the sustained rate: answers arrived, each beside direct's.
        expect(result.oneAtATime!.failures).toBe(0);
        expect(result.oneAtATime!.samples).toBeGreaterThan(0);
        expect(result.sustainedRate!.steps.length).toBeGreaterThan(0);
      }
      expect(result.firstToken!.failures).toBe(0);
      // role, 50 content chunks, finish, usage, [DONE]
      expect(result.firstToken!.eventsPerStream).toBeGreaterThanOrEqual(53);
      if (result.id === 'direct') continue;
      expect(result.openStreams!.failures).toBe(0);
      expect(result.openStreams!.peakOpen).toBeGreaterThan(1);
      expect(result.openStreams!.peakRssBytes).toBeGreaterThan(20 * 1024 * 1024);
      expect(result.saturation!.cpuMicrosPerRequest).toBeGreaterThan(0);
    }
  });

  it('prints a table with each figure next to its target', () => {
    for (const label of [
      'Throughput as a share of direct',
      'Added latency p99',
      'Gateway CPU per whole request',
      'Gateway RSS with the open streams',
    ]) {
      expect(report.table).toContain(label);
    }
    expect(report.table).toContain('× floor]');
    // Issue 14's and issue 31's targets, each beside its figure.
    for (const target of [
      '≥ 5 ×',
      '≥ 0.5 × SQLite, ≥ 0.4 × PG',
      '≤ 2 × SQLite, ≤ 3 × PG',
      '≤ 0.33 ×',
      '≤ 3 ×',
      '≤ 2.5 ×',
      '≤ 1.5 ×',
      '≤ 1.3 ×',
      '≤ 0.6 ms',
      '≤ 5 ms',
      '≤ 150 MB',
    ])
      expect(report.table).toContain(target);
    expect(report.table).toContain('ours, SQLite, metering off');
    expect(lines.some((line) => line.includes('gateway-postgres:'))).toBe(true);
  });
});
