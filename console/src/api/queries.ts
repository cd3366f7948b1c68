import { api, unwrapAs } from './client';
import type { Balance, Usage } from './responses';

/** Query keys and fetchers shared by several pages, so they share one cache entry. */
export const balanceQuery = {
  queryKey: ['balance'],
  queryFn: () => unwrapAs<Balance>(api.GET('/api-account/user/balance')),
};

export function usageQuery(start: string, end: string) {
  return {
    queryKey: ['usage', start, end],
    queryFn: () =>
      unwrapAs<Usage>(api.GET('/api-account/user/usage', { params: { query: { start_date: start, end_date: end } } })),
  };
}
