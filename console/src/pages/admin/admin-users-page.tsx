import { useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { EmptyState, PageHeader, QueryView } from '../../layout/page-states';
import { formatCount, formatDateTime } from '../../format/format';
import { Money } from '../../components/money';
import { Pager } from '../../components/pager';

const PAGE_SIZE = 25;

/** Every account, searchable by email or name; each opens its admin page. */
export default function AdminUsersPage() {
  const [params, setParams] = useSearchParams();
  const search = params.get('search') ?? '';
  const offset = Number(params.get('offset') ?? 0) || 0;
  const [text, setText] = useState(search);
  const users = useQuery({
    queryKey: ['admin-users', search, offset],
    queryFn: () =>
      unwrap(
        api.GET('/api-account/admin/users', {
          params: { query: { limit: PAGE_SIZE, offset, ...(search ? { search } : {}) } },
        }),
      ),
    placeholderData: (previous) => previous,
  });
  const go = (next: { search?: string; offset?: number }) => {
    const query = new URLSearchParams();
    const nextSearch = next.search ?? search;
    if (nextSearch) query.set('search', nextSearch);
    if (next.offset) query.set('offset', String(next.offset));
    setParams(query);
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    go({ search: text.trim(), offset: 0 });
  };

  return (
    <>
      <PageHeader
        title="Accounts"
        description="Everyone who can sign in: roles, balances, and the actions administrators may take."
        actions={
          <Link className="button" to="/admin/invitations">
            Invite someone
          </Link>
        }
      />
      <form className="toolbar" role="search" onSubmit={submit}>
        <div className="field grow">
          <label htmlFor="admin-search">Email or name</label>
          <input id="admin-search" type="search" value={text} onChange={(event) => setText(event.target.value)} />
        </div>
        <button type="submit" className="button primary">
          Search
        </button>
      </form>
      <QueryView query={users} label="Loading accounts">
        {(page) =>
          page.total === 0 ? (
            <EmptyState title={search ? `No account matches “${search}”` : 'No accounts'} />
          ) : (
            <>
              <div className="table-wrap">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Account</th>
                      <th scope="col">Role</th>
                      <th scope="col">Status</th>
                      <th scope="col" className="number">
                        Keys
                      </th>
                      <th scope="col" className="number">
                        Balance
                      </th>
                      <th scope="col">Joined</th>
                    </tr>
                  </thead>
                  <tbody>
                    {page.data.map((user) => (
                      <tr key={user.id}>
                        <td className="wrap-anywhere">
                          <Link to={`/admin/users/${encodeURIComponent(user.id)}`}>{user.email}</Link>
                          <div className="muted">{user.name}</div>
                        </td>
                        <td>{user.role === 'admin' ? <span className="badge accent">admin</span> : 'user'}</td>
                        <td>
                          {user.disabled ? (
                            <span className="badge danger">disabled</span>
                          ) : (
                            <span className="badge success">active</span>
                          )}
                        </td>
                        <td className="number">{formatCount(user.active_keys)}</td>
                        <td className="number">
                          <Money amount={user.balance} />
                        </td>
                        <td>{formatDateTime(user.created_at)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <Pager
                label="Account pages"
                offset={offset}
                pageSize={PAGE_SIZE}
                total={page.total}
                onOffset={(next) => go({ offset: next })}
              />
            </>
          )
        }
      </QueryView>
    </>
  );
}
