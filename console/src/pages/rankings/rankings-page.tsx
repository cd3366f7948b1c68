import { useState } from 'react';
import { Link } from 'react-router';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Tabs } from 'radix-ui';
import { api, unwrap } from '../../api/client';
import type { Speed } from '../../api/answers';
import { EmptyState, QueryView, PageHeader } from '../../layout/page-states';
import { TimeSeriesChart } from '../../charts/time-series-chart';
import {
  formatCompact,
  formatCount,
  formatDay,
  formatDuration,
  formatPercent,
  formatTokensPerSecond,
} from '../../format/format';

type Window = 'day' | 'week' | 'month';
const SPANS: Record<Window, string> = { day: 'last 24 hours', week: 'last 7 days', month: 'last 30 days' };
const formatHour = (iso: string) => new Date(iso).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
type Metric = 'tokens' | 'requests' | 'users';

function LeaderboardTable({ window }: { window: Window }) {
  const board = useQuery({
    queryKey: ['rankings-models', window],
    queryFn: () => unwrap(api.GET('/api-account/rankings/models', { params: { query: { window, limit: 20 } } })),
    placeholderData: keepPreviousData,
  });
  return (
    <QueryView query={board} label="Loading the leaderboard">
      {(data) =>
        data.data.length === 0 ? (
          <EmptyState title="No traffic in this window yet" />
        ) : (
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col" className="number">
                    #
                  </th>
                  <th scope="col">Model</th>
                  <th scope="col" className="number">
                    Tokens
                  </th>
                  <th scope="col" className="number">
                    Requests
                  </th>
                  <th scope="col" className="number">
                    Change
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.data.map((row) => (
                  <tr key={row.model_id}>
                    <td className="number">{row.rank}</td>
                    <td>
                      <Link to={`/models/${row.model_id}`}>{row.name}</Link>
                      <div className="muted">{row.author}</div>
                    </td>
                    <td className="number">{formatCount(row.tokens)}</td>
                    <td className="number">{formatCount(row.requests)}</td>
                    <td className="number">{row.change === null ? 'new' : formatPercent(row.change)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )
      }
    </QueryView>
  );
}

function MetricChart({ window }: { window: Window }) {
  const [metric, setMetric] = useState<Metric>('tokens');
  // Each window charts its own span: today by hour. Distinct users are counted per day only, so that
  // metric shows the last 7 days for "Today" and says so in the heading.
  const chartWindow: Window = metric === 'users' && window === 'day' ? 'week' : window;
  const hourly = chartWindow === 'day';
  const chart = useQuery({
    queryKey: ['rankings-chart', metric, chartWindow],
    queryFn: () =>
      unwrap(api.GET('/api-account/rankings/charts', { params: { query: { metric, window: chartWindow, top: 5 } } })),
    placeholderData: keepPreviousData,
  });
  return (
    <section className="card chart-card section">
      <div className="page-header" style={{ marginBottom: '0.5rem' }}>
        <h2>
          {hourly ? 'Hourly' : 'Daily'} {metric} by model, {SPANS[chartWindow]}
        </h2>
        <div className="field">
          <label htmlFor="rankings-metric">Metric</label>
          <select id="rankings-metric" value={metric} onChange={(event) => setMetric(event.target.value as Metric)}>
            <option value="tokens">Tokens</option>
            <option value="requests">Requests</option>
            <option value="users">Users</option>
          </select>
        </div>
      </div>
      <QueryView query={chart} label="Loading the chart">
        {(data) => {
          if (data.series.length === 0) return <EmptyState title="Nothing measured yet" />;
          const dates = data.series[0].points.map((point) => (hourly ? point.start : point.date));
          const rows = dates.map((date, index) =>
            Object.fromEntries([
              ['date', date],
              ...data.series.map((series) => [series.model_id, series.points[index]?.value ?? 0]),
            ]),
          );
          return (
            <TimeSeriesChart
              data={rows}
              xKey="date"
              stacked
              series={data.series.map((series) => ({ key: series.model_id, label: series.name }))}
              formatX={(value) => (hourly ? formatHour(value) : formatDay(value))}
              formatY={(value) => formatCompact(value)}
              summary={`${hourly ? 'Hourly' : 'Daily'} ${metric} of the top ${data.series.length} models, ${SPANS[chartWindow]}`}
            />
          );
        }}
      </QueryView>
    </section>
  );
}

function SpeedTables({ window }: { window: Window }) {
  const speed = useQuery({
    queryKey: ['rankings-speed', window],
    queryFn: () => unwrap(api.GET('/api-account/rankings/speed', { params: { query: { window, limit: 10 } } })),
  });
  return (
    <QueryView query={speed} label="Loading speed">
      {(data) =>
        data.by_throughput.length === 0 && data.by_latency.length === 0 ? (
          <EmptyState title="Not enough traffic measured">
            <p>A model is ranked once it has {data.min_requests} successful requests in the window.</p>
          </EmptyState>
        ) : (
          <div className="grid two-columns">
            {(
              [
                [
                  'Fastest throughput',
                  data.by_throughput,
                  (row: Speed['by_throughput'][number]) => formatTokensPerSecond(row.tokens_per_second),
                ],
                [
                  'Fastest first token (p50)',
                  data.by_latency,
                  (row: Speed['by_latency'][number]) => formatDuration(row.ttft_ms.p50),
                ],
              ] as const
            ).map(([title, rows, value]) => (
              <section key={title} className="card">
                <h3>{title}</h3>
                <ol>
                  {rows.map((row) => (
                    <li key={row.model_id}>
                      <Link to={`/models/${row.model_id}`}>{row.name}</Link> — {value(row)}
                    </li>
                  ))}
                </ol>
              </section>
            ))}
          </div>
        )
      }
    </QueryView>
  );
}

function BenchmarkTables() {
  const benchmarks = useQuery({
    queryKey: ['rankings-benchmarks'],
    queryFn: () => unwrap(api.GET('/api-account/rankings/benchmarks')),
    staleTime: 3_600_000,
  });
  return (
    <QueryView query={benchmarks} label="Loading benchmarks">
      {(data) => (
        <div className="grid two-columns">
          {data.data.flatMap((category) =>
            category.benchmarks.map((benchmark) => (
              <section key={benchmark.id} className="card">
                <h3>{benchmark.name}</h3>
                <p className="muted">{benchmark.description}</p>
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Model</th>
                      <th scope="col" className="number">
                        Score
                      </th>
                      <th scope="col">Source</th>
                    </tr>
                  </thead>
                  <tbody>
                    {benchmark.scores.slice(0, 5).map((score) => (
                      <tr key={score.model_id}>
                        <td>{score.name}</td>
                        <td className="number">
                          {benchmark.unit === 'percent' ? `${score.score.toFixed(1)}%` : formatCount(score.score)}
                        </td>
                        <td>
                          <a href={score.source} target="_blank" rel="noreferrer">
                            {score.date}
                          </a>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </section>
            )),
          )}
        </div>
      )}
    </QueryView>
  );
}

/** Rankings from measured traffic: leaderboard, daily charts by metric, speed, and curated benchmarks. */
export default function RankingsPage() {
  const [window, setWindow] = useState<Window>('week');
  return (
    <>
      <PageHeader
        title="Rankings"
        description="What people use through this gateway, measured from real traffic."
        actions={
          <div className="field">
            <label htmlFor="rankings-window">Window</label>
            <select id="rankings-window" value={window} onChange={(event) => setWindow(event.target.value as Window)}>
              <option value="day">Today</option>
              <option value="week">This week</option>
              <option value="month">This month</option>
            </select>
          </div>
        }
      />
      <MetricChart window={window} />
      <Tabs.Root defaultValue="leaderboard">
        <Tabs.List className="tabs-list" aria-label="Rankings">
          <Tabs.Trigger value="leaderboard">Leaderboard</Tabs.Trigger>
          <Tabs.Trigger value="speed">Speed</Tabs.Trigger>
          <Tabs.Trigger value="benchmarks">Benchmarks</Tabs.Trigger>
        </Tabs.List>
        <Tabs.Content value="leaderboard">
          <LeaderboardTable window={window} />
        </Tabs.Content>
        <Tabs.Content value="speed">
          <SpeedTables window={window} />
        </Tabs.Content>
        <Tabs.Content value="benchmarks">
          <BenchmarkTables />
        </Tabs.Content>
      </Tabs.Root>
    </>
  );
}
