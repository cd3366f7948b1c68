import { Link } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { balanceQuery, usageQuery } from '../../api/queries';
import { EmptyState, ErrorState, LoadingState, PageHeader, Stat } from '../../layout/page-states';
import { TimeSeriesChart } from '../../charts/time-series-chart';
import {
  formatCompact,
  formatCount,
  formatDay,
  formatMoney,
  lastDaysRange,
  monthToDateRange,
} from '../../format/format';
import { useSession } from '../../session/session';
import { Money } from '../../components/money';
import { ModelLink, useRoutableModelIds } from '../../components/model-link';

/** Balance, this month's spend, the last 30 days of traffic and the models it went to. */
export default function DashboardPage() {
  const { user } = useSession();
  const known = useRoutableModelIds();
  const last30 = lastDaysRange(30);
  const month = monthToDateRange();
  const balance = useQuery(balanceQuery);
  const usage = useQuery(usageQuery(last30.start, last30.end));
  const monthUsage = useQuery(usageQuery(month.start, month.end));

  return (
    <>
      <PageHeader
        title="Dashboard"
        description={user ? `Signed in as ${user.email}` : undefined}
        actions={
          <>
            <Link className="button" to="/activity">
              Recent requests
            </Link>
            <Link className="button" to="/keys">
              Create an API key
            </Link>
            <Link className="button primary" to="/credits">
              Add credits
            </Link>
          </>
        }
      />
      <div className="grid stats">
        <Stat
          label="Credit balance"
          value={
            balance.data ? (
              <Money amount={balance.data.available} currency={balance.data.currency} />
            ) : balance.error ? (
              '—'
            ) : (
              '…'
            )
          }
          hint={
            balance.data && balance.data.held > 0
              ? `${formatMoney(balance.data.held, balance.data.currency)} held by requests in flight`
              : 'Available for API requests'
          }
        />
        <Stat
          label="Spend this month"
          value={monthUsage.data ? formatMoney(monthUsage.data.totals.cost, monthUsage.data.currency) : '…'}
          hint={`Since ${formatDay(month.start)}`}
        />
        <Stat label="Requests, last 30 days" value={usage.data ? formatCount(usage.data.totals.requests) : '…'} />
        <Stat label="Tokens, last 30 days" value={usage.data ? formatCount(usage.data.totals.total_tokens) : '…'} />
      </div>
      {usage.isPending ? (
        <LoadingState label="Loading usage" />
      ) : usage.error || !usage.data ? (
        <ErrorState error={usage.error} retry={() => void usage.refetch()} />
      ) : usage.data.totals.requests === 0 ? (
        <EmptyState title="No requests yet">
          <p>
            Create an <Link to="/keys">API key</Link> and send a request, or try a model in the{' '}
            <Link to="/playground">playground</Link>. Traffic shows up here within seconds.
          </p>
        </EmptyState>
      ) : (
        <div className="grid two-columns">
          <section className="card chart-card">
            <h2>Requests per day</h2>
            <TimeSeriesChart
              data={usage.data.daily}
              xKey="date"
              kind="bar"
              series={[{ key: 'requests', label: 'Requests' }]}
              formatX={(day) => formatDay(day)}
              formatY={(value) => formatCompact(value)}
              summary={`${formatCount(usage.data.totals.requests)} requests over the last 30 days`}
            />
          </section>
          <section className="card chart-card">
            <h2>Tokens per day</h2>
            <TimeSeriesChart
              data={usage.data.daily}
              xKey="date"
              stacked
              series={[
                { key: 'prompt_tokens', label: 'Prompt' },
                { key: 'completion_tokens', label: 'Completion' },
              ]}
              formatX={(day) => formatDay(day)}
              formatY={(value) => formatCompact(value)}
              summary={`${formatCount(usage.data.totals.total_tokens)} tokens over the last 30 days`}
            />
          </section>
          <section className="card full-row">
            <h2>Top models</h2>
            <div className="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Model</th>
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
                  {[...usage.data.by_model]
                    .sort((a, b) => b.cost_nanos - a.cost_nanos || b.requests - a.requests)
                    .slice(0, 5)
                    .map((row) => (
                      <tr key={row.model}>
                        <td>
                          <ModelLink id={row.model} known={known} />
                        </td>
                        <td className="number">{formatCount(row.requests)}</td>
                        <td className="number">{formatCount(row.total_tokens)}</td>
                        <td className="number">{formatMoney(row.cost, usage.data.currency)}</td>
                      </tr>
                    ))}
                </tbody>
              </table>
            </div>
          </section>
        </div>
      )}
    </>
  );
}
