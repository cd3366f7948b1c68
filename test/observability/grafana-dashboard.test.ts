import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GatewayMetrics } from '../../src/observability/gateway-metrics.js';

const dashboard = JSON.parse(
  readFileSync(resolve(import.meta.dirname, '../../deploy/grafana/gateway-dashboard.json'), 'utf8'),
) as {
  uid: string;
  templating: { list: Array<{ name: string; type: string }> };
  panels: Array<{
    id: number;
    title: string;
    gridPos: { x: number; y: number; w: number; h: number };
    targets: Array<{ expr: string }>;
  }>;
};

describe('the Grafana dashboard', () => {
  it('queries only metrics, and labels, that the gateway exports', async () => {
    const { registry } = new GatewayMetrics();
    const labelsOf = new Map<string, Set<string>>();
    for (const metric of await registry.getMetricsAsJSON()) {
      const declared = (registry.getSingleMetric(metric.name) as unknown as { labelNames?: string[] }).labelNames;
      labelsOf.set(metric.name, new Set(declared ?? []));
    }
    // Histograms are queried through their _bucket series.
    const known = (name: string) => labelsOf.get(name) ?? labelsOf.get(name.replace(/_bucket$/, ''));
    expect(dashboard.panels.length).toBeGreaterThanOrEqual(10);
    for (const panel of dashboard.panels)
      for (const { expr } of panel.targets) {
        const names = [...expr.matchAll(/\b((?:gateway|process|nodejs)_[a-z0-9_]+)/g)].map((match) => match[1]);
        expect(names.length, `${panel.title}: ${expr}`).toBeGreaterThan(0);
        for (const name of names) expect(known(name), `${panel.title}: ${name}`).toBeDefined();
        const grouped = [...expr.matchAll(/by \(([^)]*)\)/g)].flatMap((match) => match[1].split(/,\s*/));
        for (const label of grouped) {
          if (label === 'le' || label === 'instance') continue;
          expect(
            names.some((name) => known(name)!.has(label)),
            `${panel.title}: label ${label}`,
          ).toBe(true);
        }
      }
  });

  it('covers traffic, latency, tokens, cost, refusals, breakers, backlog and the process, on a grid', () => {
    const all = dashboard.panels.flatMap((panel) => panel.targets.map((target) => target.expr)).join('\n');
    for (const name of [
      'gateway_http_requests_total',
      'gateway_chat_requests_total',
      'gateway_chat_request_duration_seconds',
      'gateway_chat_time_to_first_token_seconds',
      'gateway_upstream_latency_seconds',
      'gateway_tokens_total',
      'gateway_cost_nano_usd_total',
      'gateway_refusals_total',
      'gateway_circuit_breaker_state',
      'gateway_usage_backlog',
      'process_cpu_seconds_total',
    ])
      expect(all).toContain(name);
    expect(dashboard.templating.list).toContainEqual(
      expect.objectContaining({ name: 'datasource', type: 'datasource' }),
    );
    expect(new Set(dashboard.panels.map((panel) => panel.id)).size).toBe(dashboard.panels.length);
    const cells = new Set<string>();
    for (const { gridPos } of dashboard.panels) {
      expect(gridPos.x + gridPos.w).toBeLessThanOrEqual(24);
      for (let x = gridPos.x; x < gridPos.x + gridPos.w; x++)
        for (let y = gridPos.y; y < gridPos.y + gridPos.h; y++) {
          expect(cells.has(`${x},${y}`)).toBe(false);
          cells.add(`${x},${y}`);
        }
    }
  });
});
