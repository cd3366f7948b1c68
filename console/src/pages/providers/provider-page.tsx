import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Tabs } from 'radix-ui';
import { api, unwrap } from '../../api/client';
import { PageHeader, QueryView, Stat } from '../../layout/page-states';
import { StatusBadge } from '../../components/status-badge';
import { TimeSeriesChart } from '../../charts/time-series-chart';
import {
  formatCompact,
  formatContext,
  formatCount,
  formatDuration,
  formatPercent,
  formatPricePerMillion,
  formatTokensPerSecond,
} from '../../format/format';

const WINDOWS = ['1h', '24h', '7d'] as const;
type StatsWindow = (typeof WINDOWS)[number];

function bucketLabel(iso: string, window: StatsWindow): string {
  const date = new Date(iso);
  return new Intl.DateTimeFormat(
    undefined,
    window === '7d' ? { month: 'short', day: 'numeric', hour: '2-digit' } : { hour: '2-digit', minute: '2-digit' },
  ).format(date);
}

function StatsPanel({ id, window }: { id: string; window: StatsWindow }) {
  const stats = useQuery({
    queryKey: ['provider-stats', id, window],
    queryFn: () =>
      unwrap(api.GET('/api-account/providers/{id}/stats', { params: { path: { id }, query: { window } } })),
    placeholderData: keepPreviousData,
    refetchInterval: 30_000,
  });
  return (
    <QueryView query={stats} label="Loading statistics">
      {(data) => {
        const points = data.buckets.map((bucket) => ({
          start: bucket.start,
          requests: bucket.requests,
          tokens: bucket.total_tokens,
          latency: bucket.latency_ms.p50,
          success: bucket.success_rate === null ? null : Math.round(bucket.success_rate * 1000) / 10,
        }));
        const x = (value: string) => bucketLabel(value, window);
        return (
          <>
            <div className="grid stats">
              <Stat label="Requests" value={formatCount(data.totals.requests)} />
              <Stat label="Success rate" value={formatPercent(data.totals.success_rate)} />
              <Stat
                label="Latency p50 / p95"
                value={`${formatDuration(data.totals.latency_ms.p50)} / ${formatDuration(data.totals.latency_ms.p95)}`}
              />
              <Stat label="Throughput" value={formatTokensPerSecond(data.totals.tokens_per_second)} />
            </div>
            <div className="grid two-columns">
              <section className="card chart-card">
                <h3>Requests</h3>
                <TimeSeriesChart
                  data={points}
                  xKey="start"
                  kind="bar"
                  series={[{ key: 'requests', label: 'Requests' }]}
                  formatX={x}
                  formatY={(value) => formatCompact(value)}
                  summary={`${formatCount(data.totals.requests)} requests in ${window}`}
                  height={220}
                />
              </section>
              <section className="card chart-card">
                <h3>Tokens</h3>
                <TimeSeriesChart
                  data={points}
                  xKey="start"
                  series={[{ key: 'tokens', label: 'Tokens', color: 'var(--chart-2)' }]}
                  formatX={x}
                  formatY={(value) => formatCompact(value)}
                  summary={`${formatCount(data.totals.total_tokens)} tokens in ${window}`}
                  height={220}
                />
              </section>
              <section className="card chart-card">
                <h3>Latency p50 (ms)</h3>
                <TimeSeriesChart
                  data={points}
                  xKey="start"
                  series={[{ key: 'latency', label: 'Latency p50', color: 'var(--chart-3)' }]}
                  formatX={x}
                  formatY={(value) => formatDuration(value)}
                  summary={`Median latency ${formatDuration(data.totals.latency_ms.p50)}`}
                  height={220}
                />
              </section>
              <section className="card chart-card">
                <h3>Success rate (%)</h3>
                <TimeSeriesChart
                  data={points}
                  xKey="start"
                  series={[{ key: 'success', label: 'Success %', color: 'var(--chart-4)' }]}
                  formatX={x}
                  formatY={(value) => `${value}%`}
                  summary={`Success rate ${formatPercent(data.totals.success_rate)}`}
                  height={220}
                />
              </section>
            </div>
          </>
        );
      }}
    </QueryView>
  );
}

/** One provider: its models and prices, and its statistics over 1h, 24h or 7d. */
export default function ProviderPage() {
  const id = useParams().id ?? '';
  const [window, setWindow] = useState<StatsWindow>('24h');
  const provider = useQuery({
    queryKey: ['provider', id],
    queryFn: () => unwrap(api.GET('/api-account/providers/{id}', { params: { path: { id } } })),
  });
  return (
    <>
      <p>
        <Link to="/providers">← All providers</Link>
      </p>
      <QueryView query={provider} label="Loading the provider">
        {(data) => (
          <>
            <PageHeader
              title={data.name}
              description={
                <>
                  <span className="mono">{data.id}</span> · {data.type} protocol · <StatusBadge status={data.status} />
                </>
              }
            />
            <Tabs.Root value={window} onValueChange={(value) => setWindow(value as StatsWindow)} className="section">
              <Tabs.List className="tabs-list" aria-label="Statistics window">
                {WINDOWS.map((item) => (
                  <Tabs.Trigger key={item} value={item}>
                    Last {item}
                  </Tabs.Trigger>
                ))}
              </Tabs.List>
              {WINDOWS.map((item) => (
                <Tabs.Content key={item} value={item}>
                  {item === window && <StatsPanel id={id} window={item} />}
                </Tabs.Content>
              ))}
            </Tabs.Root>
            <section className="section">
              <h2>Models</h2>
              <div className="table-wrap">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Model</th>
                      <th scope="col">Upstream name</th>
                      <th scope="col" className="number">
                        Input
                      </th>
                      <th scope="col" className="number">
                        Output
                      </th>
                      <th scope="col" className="number">
                        Context
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.models.map((model) => (
                      <tr key={model.id}>
                        <td>
                          <Link to={`/models/${model.id}`}>{model.name}</Link>
                        </td>
                        <td className="mono">{model.upstream_model}</td>
                        <td className="number">{formatPricePerMillion(model.pricing?.prompt)}</td>
                        <td className="number">{formatPricePerMillion(model.pricing?.completion)}</td>
                        <td className="number">{formatContext(model.context_length)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </section>
          </>
        )}
      </QueryView>
    </>
  );
}
