import { Link, useSearchParams } from 'react-router';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { FilterValue } from '../../api/answers';
import type { paths } from '../../api/schema';
import { EmptyState, PageHeader, QueryView } from '../../layout/page-states';
import { formatContext, formatCount, formatPricePerMillion } from '../../format/format';
import {
  naturalOrder,
  PAGE_SIZE,
  readCatalogFilters,
  writeCatalogFilters,
  type CatalogFiltersState,
} from './catalog-query';

type CatalogQuery = NonNullable<paths['/api-account/models']['get']['parameters']['query']>;

const SORT_LABELS: Record<string, string> = {
  popularity: 'Most used',
  name: 'Name',
  price: 'Price',
  context: 'Context length',
  newest: 'Newest',
};

function Select({
  id,
  label,
  value,
  options,
  onChange,
  all,
}: {
  id: string;
  label: string;
  value: string;
  options: FilterValue[];
  onChange: (value: string) => void;
  all: string;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(event) => onChange(event.target.value)}>
        <option value="">{all}</option>
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.value} ({formatCount(option.count)})
          </option>
        ))}
      </select>
    </div>
  );
}

/** The public catalog: search, filters and sort from /models/filters, paged. */
export default function ModelsPage() {
  const [params, setParams] = useSearchParams();
  const state = readCatalogFilters(params);
  const update = (change: Partial<CatalogFiltersState>) =>
    setParams(writeCatalogFilters({ ...state, page: 1, ...change }), { replace: true });

  const filters = useQuery({
    queryKey: ['catalog-filters'],
    queryFn: () => unwrap(api.GET('/api-account/models/filters')),
    staleTime: 300_000,
  });
  const query: CatalogQuery = {
    q: state.q || undefined,
    author: state.author || undefined,
    provider: state.provider || undefined,
    capability: state.capability ? [state.capability as NonNullable<CatalogQuery['capability']>[number]] : undefined,
    input_modality: state.input_modality
      ? [state.input_modality as NonNullable<CatalogQuery['input_modality']>[number]]
      : undefined,
    available: state.available || undefined,
    sort: state.sort as CatalogQuery['sort'],
    order: state.order,
    limit: PAGE_SIZE,
    offset: (state.page - 1) * PAGE_SIZE,
  };
  const models = useQuery({
    queryKey: ['catalog', query],
    queryFn: () => unwrap(api.GET('/api-account/models', { params: { query } })),
    placeholderData: keepPreviousData,
  });
  const sorts = filters.data?.sorts ?? ['name', 'price', 'context'];

  return (
    <>
      <PageHeader
        title="Models"
        description="Every model the catalog knows: prices, context and who serves it here. The models you can call here come first."
      />
      <div className="toolbar" role="search">
        <div className="field grow">
          <label htmlFor="catalog-search">Search</label>
          <input
            id="catalog-search"
            type="search"
            placeholder="Name, id or author"
            value={state.q}
            onChange={(event) => update({ q: event.target.value })}
          />
        </div>
        <Select
          id="catalog-author"
          label="Author"
          all="All authors"
          value={state.author}
          options={filters.data?.authors ?? []}
          onChange={(author) => update({ author })}
        />
        <Select
          id="catalog-provider"
          label="Provider"
          all="All providers"
          value={state.provider}
          options={filters.data?.providers ?? []}
          onChange={(provider) => update({ provider })}
        />
        <Select
          id="catalog-capability"
          label="Capability"
          all="Any capability"
          value={state.capability}
          options={filters.data?.capabilities ?? []}
          onChange={(capability) => update({ capability })}
        />
        <Select
          id="catalog-input"
          label="Input"
          all="Any input"
          value={state.input_modality}
          options={filters.data?.input_modalities ?? []}
          onChange={(input_modality) => update({ input_modality })}
        />
        <div className="field">
          <label htmlFor="catalog-sort">Sort by</label>
          <select
            id="catalog-sort"
            value={state.sort}
            onChange={(event) => update({ sort: event.target.value, order: naturalOrder(event.target.value) })}
          >
            {['popularity', ...sorts.filter((sort) => sort !== 'popularity')].map((sort) => (
              <option key={sort} value={sort}>
                {SORT_LABELS[sort] ?? sort}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="catalog-order">Order</label>
          <select
            id="catalog-order"
            value={state.order}
            onChange={(event) => update({ order: event.target.value as 'asc' | 'desc' })}
          >
            <option value="asc">Ascending</option>
            <option value="desc">Descending</option>
          </select>
        </div>
        <label className="inline-check toolbar-check">
          <input
            type="checkbox"
            checked={state.available}
            onChange={(event) => update({ available: event.target.checked })}
          />
          Available here
        </label>
      </div>
      <QueryView query={models} label="Loading models">
        {(page) =>
          page.total === 0 ? (
            <EmptyState title="No model matches">
              <button type="button" className="button" onClick={() => setParams(new URLSearchParams())}>
                Clear filters
              </button>
            </EmptyState>
          ) : (
            <>
              <p className="muted" aria-live="polite">
                {formatCount(page.total)} models
              </p>
              <ul className="model-list" aria-label="Models">
                {page.data.map((model) => (
                  <li key={model.id}>
                    <Link className="card model-row" to={`/models/${model.id}`}>
                      <div>
                        <h2>{model.name}</h2>
                        <div className="model-meta">
                          <span className="mono">{model.id}</span>
                          {model.context_length !== null && <span>{formatContext(model.context_length)} context</span>}
                          {model.routable && <span className="badge success">available here</span>}
                        </div>
                      </div>
                      <div className="model-prices">
                        <div>In {formatPricePerMillion(model.pricing?.prompt)}</div>
                        <div>Out {formatPricePerMillion(model.pricing?.completion)}</div>
                      </div>
                    </Link>
                  </li>
                ))}
              </ul>
              <nav className="pager" aria-label="Catalog pages">
                <span className="muted">
                  Page {state.page} of {Math.max(1, Math.ceil(page.total / PAGE_SIZE))}
                </span>
                <button
                  type="button"
                  className="button small"
                  disabled={state.page <= 1}
                  onClick={() => update({ page: state.page - 1 })}
                >
                  Previous
                </button>
                <button
                  type="button"
                  className="button small"
                  disabled={state.page * PAGE_SIZE >= page.total}
                  onClick={() => update({ page: state.page + 1 })}
                >
                  Next
                </button>
              </nav>
            </>
          )
        }
      </QueryView>
    </>
  );
}
