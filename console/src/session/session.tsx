import { createContext, useContext, useEffect, type ReactNode } from 'react';
import { useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { api, ApiError, onUnauthorized, unwrap } from '../api/client';
import type { User } from '../api/answers';

const SESSION_QUERY = ['session'] as const;

interface Session {
  user: User | null;
  loading: boolean;
  error: Error | null;
}

const SessionContext = createContext<Session>({ user: null, loading: true, error: null });

/** Who is signed in, from GET /api-account/user/me with the session cookie; null when nobody is. */
async function fetchSessionUser(): Promise<User | null> {
  try {
    return await unwrap(api.GET('/api-account/user/me'));
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return null;
    throw error;
  }
}

/** After signing in or out: forget the previous person's data and read the session again. */
export async function refreshSession(queryClient: QueryClient): Promise<void> {
  queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== SESSION_QUERY[0] });
  await queryClient.fetchQuery({ queryKey: SESSION_QUERY, queryFn: fetchSessionUser, staleTime: 0 });
}

export function SessionProvider({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const query = useQuery({ queryKey: SESSION_QUERY, queryFn: fetchSessionUser, staleTime: 60_000, retry: 1 });
  // Any 401 (an expired or revoked session) signs the console out everywhere at once.
  useEffect(
    () =>
      onUnauthorized(() => {
        if (queryClient.getQueryData(SESSION_QUERY)) queryClient.setQueryData(SESSION_QUERY, null);
      }),
    [queryClient],
  );
  return (
    <SessionContext.Provider value={{ user: query.data ?? null, loading: query.isPending, error: query.error }}>
      {children}
    </SessionContext.Provider>
  );
}

export function useSession(): Session {
  return useContext(SessionContext);
}
