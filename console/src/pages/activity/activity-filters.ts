/** The Activity page's filters, kept in the address so a link (from a key, from usage) opens them. */
export interface ActivityFilters {
  start_date?: string;
  end_date?: string;
  key_id?: string;
  model?: string;
  provider?: string;
  status?: string;
  app?: string;
}

const FILTER_NAMES = ['start_date', 'end_date', 'key_id', 'model', 'provider', 'status', 'app'] as const;

/** The filters in a URL query (pure): blanks are absent, unknown parameters ignored. */
export function filtersFromSearch(search: URLSearchParams): ActivityFilters {
  const filters: ActivityFilters = {};
  for (const name of FILTER_NAMES) {
    const value = search.get(name)?.trim();
    if (value) filters[name] = value;
  }
  return filters;
}

/** The filters as a query string, for the address bar and the export links (pure). */
export function searchFromFilters(filters: ActivityFilters, extra: Record<string, string> = {}): string {
  const search = new URLSearchParams();
  for (const name of FILTER_NAMES) {
    const value = filters[name];
    if (value) search.set(name, value);
  }
  for (const [name, value] of Object.entries(extra)) search.set(name, value);
  return search.toString();
}
