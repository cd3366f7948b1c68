import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import { useSession } from './session';
import { ErrorState, LoadingState } from '../layout/page-states';

/** Pages behind sign-in: a signed-out visit goes to /sign-in and comes back here afterwards. */
export function RequireSession({ children }: { children: ReactNode }) {
  const { user, loading, error } = useSession();
  const location = useLocation();
  if (loading) return <LoadingState label="Checking your session" />;
  if (error) return <ErrorState error={error} />;
  if (!user) {
    const next = `${location.pathname}${location.search}`;
    return <Navigate to={`/sign-in?next=${encodeURIComponent(next)}`} replace />;
  }
  return <>{children}</>;
}

/** Only same-site paths are followed after sign-in, never another origin ("//evil.example"). */
export function safeNextPath(next: string | null): string {
  if (!next || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return '/';
  return next;
}
