import { api, unwrap } from './client';

/** Query keys and fetchers shared by several pages, so they share one cache entry. */
export const balanceQuery = {
  queryKey: ['balance'],
  queryFn: () => unwrap(api.GET('/api-account/user/balance')),
};

export function usageQuery(start: string, end: string) {
  return {
    queryKey: ['usage', start, end],
    queryFn: () =>
      unwrap(api.GET('/api-account/user/usage', { params: { query: { start_date: start, end_date: end } } })),
  };
}
