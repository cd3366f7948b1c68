import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { PageHeader, EmptyState, ErrorState, LoadingState } from '../../layout/page-states';
import { formatCount, formatDateTime, formatDuration, formatMoney } from '../../format/format';
import { filtersFromSearch, searchFromFilters, type ActivityFilters } from './activity-filters';
import { ActivityDrawer } from './activity-drawer';
import type { ActivityPage, ActivityRow } from './activity-types';

const PAGE_SIZE = 50;

function StatusCell({ row }: { row: ActivityRow }) {
  const ok = row.status < 400;
  return (
    <span className={`badge ${ok ? 'success' : 'danger'}`} title={row.error_code ?? undefined}>
      {ok ? row.status : `${row.status} ${row.error_code ?? ''}`.trim()}
    </span>
  );
}

function Filters({ filters, onChange }: { filters: ActivityFilters; onChange: (next: ActivityFilters) => void }) {
  const keys = useQuery({ queryKey: ['api-keys'], queryFn: () => unwrap(api.GET('/api-account/user/api-keys')) });
  const text = (name: keyof ActivityFilters, label: string, placeholder: string) => (
    <div className="field">
      <label htmlFor={`activity-${name}`}>{label}</label>
      <input
        id={`activity-${name}`}
        defaultValue={filters[name] ?? ''}
        placeholder={placeholder}
        // Applied when the field is left or Enter is pressed, not on each keystroke.
        onBlur={(event) =>
          event.target.value.trim() !== (filters[name] ?? '') &&
          onChange({ ...filters, [name]: event.target.value.trim() })
        }
        onKeyDown={(event) => event.key === 'Enter' && (event.target as HTMLInputElement).blur()}
      />
    </div>
  );
  return (
    <div className="toolbar" role="group" aria-label="Filters">
      <div className="field">
        <label htmlFor="activity-start">From</label>
        <input
          id="activity-start"
          type="date"
          value={filters.start_date ?? ''}
          onChange={(event) => onChange({ ...filters, start_date: event.target.value })}
        />
      </div>
      <div className="field">
        <label htmlFor="activity-end">To</label>
        <input
          id="activity-end"
          type="date"
          value={filters.end_date ?? ''}
          onChange={(event) => onChange({ ...filters, end_date: event.target.value })}
        />
      </div>
      <div className="field">
        <label htmlFor="activity-key">Key</label>
        <select
          id="activity-key"
          value={filters.key_id ?? ''}
          onChange={(event) => onChange({ ...filters, key_id: event.target.value })}
        >
          <option value="">All keys</option>
          {(keys.data?.data ?? []).map((key) => (
            <option key={key.key_id} value={key.key_id}>
              {key.name}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="activity-status">Status</label>
        <select
          id="activity-status"
          value={['', 'ok', 'error'].includes(filters.status ?? '') ? (filters.status ?? '') : 'code'}
          onChange={(event) =>
            onChange({ ...filters, status: event.target.value === 'code' ? filters.status : event.target.value })
          }
        >
          <option value="">Any</option>
          <option value="ok">Succeeded</option>
          <option value="error">Failed</option>
          {filters.status && !['ok', 'error'].includes(filters.status) ? (
            <option value="code">{filters.status}</option>
          ) : null}
        </select>
      </div>
      {text('model', 'Model', 'e.g. openai/gpt-4o')}
      {text('provider', 'Provider', 'e.g. openai')}
      {text('app', 'App', 'X-Title')}
    </div>
  );
}

function ActivityTable({ rows, onOpen }: { rows: ActivityRow[]; onOpen: (row: ActivityRow) => void }) {
  return (
    <div className="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Model</th>
            <th scope="col">Provider</th>
            <th scope="col">Key</th>
            <th scope="col" className="number">
              Tokens in / out
            </th>
            <th scope="col" className="number">
              Cost
            </th>
            <th scope="col" className="number">
              Latency
            </th>
            <th scope="col">Status</th>
            <th scope="col">App</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.id}>
              <td>
                <button
                  type="button"
                  className="link-button"
                  onClick={() => onOpen(row)}
                  aria-label={`${formatDateTime(row.created_at)}: open request ${row.request_id}`}
                >
                  {formatDateTime(row.created_at)}
                </button>
              </td>
              <td title={row.requested_model === row.model ? undefined : `asked for ${row.requested_model}`}>
                {row.model ?? row.requested_model}
              </td>
              <td>{row.provider ?? '—'}</td>
              <td>{row.key_name ?? '—'}</td>
              <td className="number">
                {formatCount(row.prompt_tokens)} / {formatCount(row.completion_tokens)}
              </td>
              <td className="number">{formatMoney(row.cost)}</td>
              <td className="number">{formatDuration(row.latency_ms)}</td>
              <td>
                <StatusCell row={row} />
              </td>
              <td>{row.app ?? '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * Every request, newest first: filters in the address (links from keys, usage and the dashboard
 * set them), pages by the API's cursor ("Load older"), a drawer per request with its attempts,
 * and CSV / JSON Lines export streamed by the gateway (the links download with the session cookie).
 */
export default function ActivityPage() {
  const [search, setSearch] = useSearchParams();
  const filters = filtersFromSearch(search);
  const [open, setOpen] = useState<ActivityRow | null>(null);
  const pages = useInfiniteQuery({
    queryKey: ['activity', filters],
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam }) => {
      const page = await unwrap(
        api.GET('/api-account/user/activity', {
          params: { query: { ...filters, limit: PAGE_SIZE, ...(pageParam ? { cursor: pageParam } : {}) } },
        }),
      );
      // The route also answers CSV and JSON Lines (format=…), so its type admits text; without a format it is JSON.
      if (typeof page === 'string') throw new Error('The activity list answered text where JSON was asked for.');
      return page;
    },
    getNextPageParam: (last) => last.next_cursor ?? undefined,
  });
  const rows = pages.data?.pages.flatMap((page) => page.data) ?? [];
  const exportHref = (format: 'csv' | 'jsonl') =>
    `/api-account/user/activity?${searchFromFilters(filters, { format })}`;
  const filtered = Object.keys(filters).length > 0;
  return (
    <>
      <PageHeader
        title="Activity"
        description="Every request made with your keys: model, provider, tokens, cost, latency and each provider tried."
        actions={
          <>
            <a className="button" href={exportHref('csv')} download>
              Export CSV
            </a>
            <a className="button" href={exportHref('jsonl')} download>
              Export JSON Lines
            </a>
          </>
        }
      />
      <Filters key={search.toString()} filters={filters} onChange={(next) => setSearch(searchFromFilters(next))} />
      {filtered ? (
        <p className="muted">
          <button type="button" className="link-button" onClick={() => setSearch('')}>
            Clear filters
          </button>
        </p>
      ) : null}
      {pages.isPending ? (
        <LoadingState label="Loading activity" />
      ) : pages.isError ? (
        <ErrorState error={pages.error} retry={() => void pages.refetch()} />
      ) : rows.length === 0 ? (
        <EmptyState title={filtered ? 'No request matches these filters' : 'No requests yet'}>
          <p>
            Send a request with one of your <Link to="/keys">API keys</Link>, or try the{' '}
            <Link to="/playground">playground</Link>.
          </p>
        </EmptyState>
      ) : (
        <>
          <ActivityTable rows={rows} onOpen={setOpen} />
          <div className="pager">
            <span className="muted">{formatCount(rows.length)} shown</span>
            {pages.hasNextPage ? (
              <button
                type="button"
                className="button"
                disabled={pages.isFetchingNextPage}
                onClick={() => void pages.fetchNextPage()}
              >
                {pages.isFetchingNextPage ? 'Loading…' : 'Load older'}
              </button>
            ) : null}
          </div>
        </>
      )}
      <ActivityDrawer row={open} onClose={() => setOpen(null)} />
    </>
  );
}
