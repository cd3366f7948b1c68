/** The catalog page's filters ↔ the URL's search string, so a filtered view can be shared or reloaded. */
export interface CatalogFiltersState {
  q: string;
  author: string;
  provider: string;
  capability: string;
  input_modality: string;
  /** Only the models this gateway serves. */
  available: boolean;
  sort: string;
  order: 'asc' | 'desc';
  page: number;
}

export const PAGE_SIZE = 24;

/** Each sort's natural direction (the API's): most used, longest context and newest come first. */
const NATURAL_ORDER: Record<string, 'asc' | 'desc'> = {
  popularity: 'desc',
  context: 'desc',
  newest: 'desc',
  name: 'asc',
  price: 'asc',
};
export const naturalOrder = (sort: string): 'asc' | 'desc' => NATURAL_ORDER[sort] ?? 'asc';

export function readCatalogFilters(params: URLSearchParams): CatalogFiltersState {
  const page = Number(params.get('page') ?? '1');
  const sort = params.get('sort') ?? 'popularity';
  const order = params.get('order');
  return {
    q: params.get('q') ?? '',
    author: params.get('author') ?? '',
    provider: params.get('provider') ?? '',
    capability: params.get('capability') ?? '',
    input_modality: params.get('input_modality') ?? '',
    available: params.get('available') === '1',
    sort,
    order: order === 'desc' || order === 'asc' ? order : naturalOrder(sort),
    page: Number.isInteger(page) && page > 0 ? page : 1,
  };
}

export function writeCatalogFilters(state: CatalogFiltersState): URLSearchParams {
  const params = new URLSearchParams();
  for (const name of ['q', 'author', 'provider', 'capability', 'input_modality'] as const)
    if (state[name]) params.set(name, state[name]);
  if (state.available) params.set('available', '1');
  if (state.sort !== 'popularity') params.set('sort', state.sort);
  if (state.order !== naturalOrder(state.sort)) params.set('order', state.order);
  if (state.page > 1) params.set('page', String(state.page));
  return params;
}
