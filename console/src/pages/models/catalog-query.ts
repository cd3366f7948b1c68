/** The catalog page's filters ↔ the URL's search string, so a filtered view can be shared or reloaded. */
export interface CatalogFiltersState {
  q: string;
  author: string;
  provider: string;
  capability: string;
  input_modality: string;
  sort: string;
  order: 'asc' | 'desc';
  page: number;
}

export const PAGE_SIZE = 24;

export function readCatalogFilters(params: URLSearchParams): CatalogFiltersState {
  const page = Number(params.get('page') ?? '1');
  return {
    q: params.get('q') ?? '',
    author: params.get('author') ?? '',
    provider: params.get('provider') ?? '',
    capability: params.get('capability') ?? '',
    input_modality: params.get('input_modality') ?? '',
    sort: params.get('sort') ?? 'popularity',
    order: params.get('order') === 'desc' ? 'desc' : 'asc',
    page: Number.isInteger(page) && page > 0 ? page : 1,
  };
}

export function writeCatalogFilters(state: CatalogFiltersState): URLSearchParams {
  const params = new URLSearchParams();
  for (const name of ['q', 'author', 'provider', 'capability', 'input_modality'] as const)
    if (state[name]) params.set(name, state[name]);
  if (state.sort !== 'popularity') params.set('sort', state.sort);
  if (state.order === 'desc') params.set('order', 'desc');
  if (state.page > 1) params.set('page', String(state.page));
  return params;
}
