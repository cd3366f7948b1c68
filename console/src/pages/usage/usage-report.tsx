import { Link } from 'react-router';
import type { Usage } from '../../api/answers';
import { EmptyState, Stat } from '../../layout/page-states';
import { TimeSeriesChart } from '../../charts/time-series-chart';
import { formatCompact, formatCount, formatDay, formatMoney } from '../../format/format';
import { ModelLink, useRoutableModelIds } from '../../components/model-link';
import { FailuresTable } from '../../components/failures-table';
import { Money } from '../../components/money';

function Breakdown({
  title,
  rows,
  currency,
}: {
  title: string;
  rows: { id: string; label: React.ReactNode; requests: number; total_tokens: number; cost: number }[];
  currency: string;
}) {
  return (
    <section className="card">
      <h2>{title}</h2>
      {rows.length === 0 ? (
        <p className="muted">Nothing in this range.</p>
      ) : (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">{title.replace('By ', '').replace(/^\w/, (c) => c.toUpperCase())}</th>
                <th scope="col" className="number">
                  Requests
                </th>
                <th scope="col" className="number">
                  Tokens
                </th>
                <th scope="col" className="number">
                  Cost
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.id}>
                  <td>{row.label}</td>
                  <td className="number">{formatCount(row.requests)}</td>
                  <td className="number">{formatCount(row.total_tokens)}</td>
                  <td className="number">{formatMoney(row.cost, currency)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** The usage report: totals, daily chart, by model and by key, failures apart. Also the admin view of any account. */
export function UsageReport({
  usage,
  own = true,
}: {
  usage: Usage;
  /** false: an admin looking at another account. */ own?: boolean;
}) {
  const known = useRoutableModelIds();
  const failures = usage.failures.length > 0 && <FailuresTable failures={usage.failures} />;
  if (usage.totals.requests === 0)
    return (
      <>
        <EmptyState title="No requests in this range">
          {own ? (
            <p>
              Pick a wider range, or send a request with one of your <Link to="/keys">API keys</Link>.
            </p>
          ) : (
            <p>This account made no requests with its keys in this range.</p>
          )}
        </EmptyState>
        {failures}
      </>
    );
  const days = (day: string) => formatDay(day);
  const failedCount = usage.failures.reduce((sum, failure) => sum + failure.requests, 0);
  return (
    <>
      <div className="grid stats">
        <Stat
          label="Requests"
          value={formatCount(usage.totals.requests)}
          hint={failedCount > 0 ? `${formatCount(failedCount)} failed, listed below` : undefined}
        />
        <Stat label="Prompt tokens" value={formatCount(usage.totals.prompt_tokens)} />
        <Stat label="Completion tokens" value={formatCount(usage.totals.completion_tokens)} />
        <Stat label="Cost" value={<Money amount={usage.totals.cost} currency={usage.currency} />} />
      </div>
      <div className="grid two-columns section">
        <section className="card chart-card">
          <h2>Requests per day</h2>
          <TimeSeriesChart
            data={usage.daily}
            xKey="date"
            kind="bar"
            series={[{ key: 'requests', label: 'Requests' }]}
            formatX={days}
            formatY={(value) => formatCompact(value)}
            summary={`${formatCount(usage.totals.requests)} requests`}
          />
        </section>
        <section className="card chart-card">
          <h2>Tokens per day</h2>
          <TimeSeriesChart
            data={usage.daily}
            xKey="date"
            stacked
            series={[
              { key: 'prompt_tokens', label: 'Prompt' },
              { key: 'completion_tokens', label: 'Completion' },
            ]}
            formatX={days}
            formatY={(value) => formatCompact(value)}
            summary={`${formatCount(usage.totals.total_tokens)} tokens`}
          />
        </section>
        <section className="card chart-card">
          <h2>Cost per day</h2>
          <TimeSeriesChart
            data={usage.daily}
            xKey="date"
            kind="bar"
            series={[{ key: 'cost', label: 'Cost', color: 'var(--chart-3)' }]}
            integers={false}
            formatX={days}
            formatY={(value) => formatMoney(value, usage.currency)}
            summary={`${formatMoney(usage.totals.cost, usage.currency)} in all`}
          />
        </section>
      </div>
      <div className="grid two-columns">
        <Breakdown
          title="By model"
          currency={usage.currency}
          rows={usage.by_model.map((row) => ({
            ...row,
            id: row.model,
            label: <ModelLink id={row.model} known={known} />,
          }))}
        />
        <Breakdown
          title="By key"
          currency={usage.currency}
          rows={usage.by_key.map((row) => ({
            ...row,
            id: row.key_id,
            label: <Link to={`/activity?key_id=${encodeURIComponent(row.key_id)}`}>{row.name ?? row.key_id}</Link>,
          }))}
        />
      </div>
      {failures}
    </>
  );
}
