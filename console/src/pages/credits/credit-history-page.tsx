import { useState } from 'react';
import { Link } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { Answer } from '../../api/answers';
import { EmptyState, PageHeader, QueryView, Stat } from '../../layout/page-states';
import { formatCount, formatDateTime, formatDay } from '../../format/format';
import { Money } from '../../components/money';
import { Pager } from '../../components/pager';

type TransactionPage = Exclude<Answer<'/api-account/user/transactions', 'get'>, string>;
type TransactionType = TransactionPage['data'][number]['type'];

const PAGE_SIZE = 25;
const TYPES: { value: TransactionType | ''; label: string }[] = [
  { value: '', label: 'All' },
  { value: 'purchase', label: 'Purchases' },
  { value: 'grant', label: 'Grants' },
  { value: 'usage', label: 'Usage' },
  { value: 'refund', label: 'Refunds' },
  { value: 'adjustment', label: 'Adjustments' },
];

/** The ledger as the user sees it: every credit in and out, with the running balance, as CSV too. */
export default function CreditHistoryPage() {
  const [type, setType] = useState<TransactionType | ''>('');
  const [offset, setOffset] = useState(0);
  const history = useQuery({
    queryKey: ['transactions', type, offset],
    queryFn: async (): Promise<TransactionPage> => {
      const page = await unwrap(
        api.GET('/api-account/user/transactions', {
          params: { query: { limit: PAGE_SIZE, offset, ...(type ? { type } : {}) } },
        }),
      );
      // The route answers CSV only when asked for it (format=csv); this call asks for JSON.
      if (typeof page === 'string') throw new Error('The credit history answered text where JSON was asked for.');
      return page;
    },
    placeholderData: (previous) => previous,
  });
  const csvHref = `/api-account/user/transactions?format=csv${type ? `&type=${type}` : ''}`;

  return (
    <>
      <PageHeader
        title="Credit history"
        description="Every credit in and out: purchases, grants, refunds, adjustments, and usage per day and key."
        actions={
          <>
            <Link className="button" to="/credits">
              Add credits
            </Link>
            <a className="button" href={csvHref} download="credit-history.csv">
              Export CSV
            </a>
          </>
        }
      />
      <div className="toolbar" role="group" aria-label="Filter">
        <div className="field">
          <label htmlFor="history-type">Kind</label>
          <select
            id="history-type"
            value={type}
            onChange={(event) => {
              setType(event.target.value as TransactionType | '');
              setOffset(0);
            }}
          >
            {TYPES.map((option) => (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ))}
          </select>
        </div>
      </div>
      <QueryView query={history} label="Loading credit history">
        {(page) => (
          <>
            <div className="grid stats">
              <Stat label="Balance" value={<Money amount={page.balance} currency={page.currency} />} />
              <Stat label="Entries" value={formatCount(page.total)} />
            </div>
            {page.total === 0 ? (
              <EmptyState title="Nothing here yet">
                <p>Credits you buy or are granted, and what your requests cost, appear here.</p>
              </EmptyState>
            ) : (
              <div className="table-wrap section">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Date</th>
                      <th scope="col">Kind</th>
                      <th scope="col">Description</th>
                      <th scope="col" className="number">
                        Amount
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {page.data.map((entry) => (
                      <tr key={entry.id}>
                        <td>
                          <span title={formatDateTime(entry.created_at)}>{formatDay(entry.date)}</span>
                        </td>
                        <td>{entry.type}</td>
                        <td>{entry.description}</td>
                        <td className="number">
                          <Money amount={entry.amount} currency={entry.currency} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
            <Pager
              label="Credit history pages"
              offset={offset}
              pageSize={PAGE_SIZE}
              total={page.total}
              onOffset={setOffset}
            />
          </>
        )}
      </QueryView>
    </>
  );
}
