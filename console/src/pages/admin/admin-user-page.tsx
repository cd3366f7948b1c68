import { lazy, Suspense, useState } from 'react';
import { Link, useParams } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { LoadingState, PageHeader, QueryView, Stat } from '../../layout/page-states';
import { formatCount, formatDateTime, lastDaysRange } from '../../format/format';
import { Money } from '../../components/money';
import { AccessForm, CreditsForm } from './admin-user-actions';
import { AdminUserOrders } from './admin-user-orders';

// The usage report brings the chart library: loaded after the account's own figures and actions,
// so this page's first load stays within the 250 kB budget (test/console/bundle-size.test.ts).
const UsageReport = lazy(() => import('../usage/usage-report').then((module) => ({ default: module.UsageReport })));

function AdminUsage({ userId }: { userId: string }) {
  const [days, setDays] = useState(30);
  const range = lastDaysRange(days);
  const usage = useQuery({
    queryKey: ['admin-usage', userId, range.start, range.end],
    queryFn: () =>
      unwrap(
        api.GET('/api-account/admin/users/{user_id}/usage', {
          params: { path: { user_id: userId }, query: { start_date: range.start, end_date: range.end } },
        }),
      ),
  });
  return (
    <section className="section">
      <h2>Usage</h2>
      <div className="toolbar" role="group" aria-label="Usage range">
        {[7, 30, 90].map((option) => (
          <button
            key={option}
            type="button"
            className="button"
            aria-pressed={days === option}
            onClick={() => setDays(option)}
          >
            Last {option} days
          </button>
        ))}
      </div>
      <QueryView query={usage} label="Loading usage">
        {(data) => (
          <Suspense fallback={<LoadingState label="Loading the usage report" />}>
            <UsageReport usage={data} own={false} />
          </Suspense>
        )}
      </QueryView>
    </section>
  );
}

/** One account as administrators see it: its figures, role and access, credits, orders and usage. */
export default function AdminUserPage() {
  const userId = useParams().id ?? '';
  const user = useQuery({
    queryKey: ['admin-user', userId],
    queryFn: () => unwrap(api.GET('/api-account/admin/users/{user_id}', { params: { path: { user_id: userId } } })),
  });
  return (
    <QueryView query={user} label="Loading the account">
      {(account) => (
        <>
          <PageHeader
            title={account.email}
            description={`${account.name} · joined ${formatDateTime(account.created_at)}`}
            actions={
              <>
                <Link className="button" to="/admin/users">
                  All accounts
                </Link>
                <Link className="button" to={`/admin/audit-log?target_user_id=${encodeURIComponent(account.id)}`}>
                  Audit log
                </Link>
              </>
            }
          />
          <div className="grid stats">
            <Stat label="Balance" value={<Money amount={account.balance} />} />
            <Stat label="Role" value={account.role === 'admin' ? 'Administrator' : 'User'} />
            <Stat label="Status" value={account.disabled ? 'Disabled' : 'Active'} />
            <Stat label="Active keys" value={formatCount(account.active_keys)} />
          </div>
          <div className="grid two-columns section">
            <AccessForm user={account} />
            <CreditsForm user={account} />
          </div>
          <AdminUserOrders userId={account.id} />
          <AdminUsage userId={account.id} />
        </>
      )}
    </QueryView>
  );
}
