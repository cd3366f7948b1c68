import type { ReactNode } from 'react';
import { EmptyState } from '../layout/page-states';
import { useSession } from './session';

/**
 * Admin pages for administrators only. The API refuses a non-admin anyway (403 admin_required);
 * this says so plainly instead of drawing a page of errors.
 */
export function RequireAdmin({ children }: { children: ReactNode }) {
  const { user } = useSession();
  if (user?.role !== 'admin')
    return (
      <EmptyState title="Administrators only">
        <p>This page is for the gateway’s administrators. Ask one to give your account the admin role.</p>
      </EmptyState>
    );
  return <>{children}</>;
}
