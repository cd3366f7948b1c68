import { Link, useSearchParams } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { EmptyState, PageHeader, QueryView } from '../../layout/page-states';
import { formatDateTime } from '../../format/format';
import { Pager } from '../../components/pager';

const PAGE_SIZE = 50;
/** The actions docs/admin.md lists (the API takes any name and answers an empty page for others). */
const ACTIONS = [
  'user.disable',
  'user.enable',
  'user.set_role',
  'credits.grant',
  'credits.deduct',
  'order.refund',
  'invitation.create',
  'invitation.revoke',
];

function detailsText(details: Record<string, unknown>): string {
  return Object.entries(details)
    .map(([name, value]) => `${name}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(' · ');
}

/** What administrators did, newest first, by action and by account. */
export default function AdminAuditPage() {
  const [params, setParams] = useSearchParams();
  const action = params.get('action') ?? '';
  const target = params.get('target_user_id') ?? '';
  const offset = Number(params.get('offset') ?? 0) || 0;
  const log = useQuery({
    queryKey: ['admin-audit', action, target, offset],
    queryFn: () =>
      unwrap(
        api.GET('/api-account/admin/audit-log', {
          params: {
            query: {
              limit: PAGE_SIZE,
              offset,
              ...(action ? { action } : {}),
              ...(target ? { target_user_id: target } : {}),
            },
          },
        }),
      ),
    placeholderData: (previous) => previous,
  });
  const set = (name: string, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(name, value);
    else next.delete(name);
    if (name !== 'offset') next.delete('offset');
    setParams(next);
  };

  return (
    <>
      <PageHeader title="Audit log" description="Every change an administrator made, with who, to whom and why." />
      <div className="toolbar" role="group" aria-label="Filter">
        <div className="field">
          <label htmlFor="audit-action">Action</label>
          <select id="audit-action" value={action} onChange={(event) => set('action', event.target.value)}>
            <option value="">All actions</option>
            {ACTIONS.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </div>
        {target && (
          <button type="button" className="button" onClick={() => set('target_user_id', '')}>
            Every account
          </button>
        )}
      </div>
      <QueryView query={log} label="Loading the audit log">
        {(page) =>
          page.total === 0 ? (
            <EmptyState title="Nothing recorded" />
          ) : (
            <>
              <div className="table-wrap">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">When</th>
                      <th scope="col">Action</th>
                      <th scope="col">By</th>
                      <th scope="col">Account</th>
                      <th scope="col">Details</th>
                    </tr>
                  </thead>
                  <tbody>
                    {page.data.map((entry) => (
                      <tr key={entry.id}>
                        <td>{formatDateTime(entry.created_at)}</td>
                        <td className="mono">{entry.action}</td>
                        <td className="wrap-anywhere">
                          {entry.actor_email ?? (entry.actor_user_id ? entry.actor_user_id : 'command line')}
                        </td>
                        <td className="wrap-anywhere">
                          {entry.target_user_id ? (
                            <Link to={`/admin/users/${encodeURIComponent(entry.target_user_id)}`}>
                              {entry.target_email ?? entry.target_user_id}
                            </Link>
                          ) : (
                            '—'
                          )}
                        </td>
                        <td className="wrap-anywhere">{detailsText(entry.details)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <Pager
                label="Audit log pages"
                offset={offset}
                pageSize={PAGE_SIZE}
                total={page.total}
                onOffset={(next) => set('offset', next ? String(next) : '')}
              />
            </>
          )
        }
      </QueryView>
    </>
  );
}
