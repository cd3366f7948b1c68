import { lazy, Suspense, type ComponentType, type ReactNode } from 'react';
import { createBrowserRouter } from 'react-router';
import { AppShell } from './layout/app-shell';
import { LoadingState, EmptyState } from './layout/page-states';
import { RequireSession } from './session/require-session';
import { RequireAdmin } from './session/require-admin';
import { SignInPage } from './pages/sign-in/sign-in-page';

/** Each page is its own chunk, so the first load carries only the shell and the page asked for. */
function page(load: () => Promise<{ default: ComponentType }>, access: boolean | 'admin'): ReactNode {
  const Page = lazy(load);
  const content = (
    <Suspense fallback={<LoadingState label="Loading page" />}>
      <Page />
    </Suspense>
  );
  if (access === 'admin')
    return (
      <RequireSession>
        <RequireAdmin>{content}</RequireAdmin>
      </RequireSession>
    );
  return access ? <RequireSession>{content}</RequireSession> : content;
}

export const router = createBrowserRouter([
  { path: '/sign-in', element: <SignInPage mode="sign-in" /> },
  { path: '/sign-up', element: <SignInPage mode="sign-up" /> },
  {
    element: <AppShell />,
    children: [
      { index: true, element: page(() => import('./pages/dashboard/dashboard-page'), true) },
      { path: 'keys', element: page(() => import('./pages/keys/keys-page'), true) },
      { path: 'usage', element: page(() => import('./pages/usage/usage-page'), true) },
      { path: 'activity', element: page(() => import('./pages/activity/activity-page'), true) },
      { path: 'credits', element: page(() => import('./pages/credits/credits-page'), true) },
      { path: 'credits/result', element: page(() => import('./pages/credits/checkout-result-page'), true) },
      { path: 'credits/history', element: page(() => import('./pages/credits/credit-history-page'), true) },
      { path: 'account', element: page(() => import('./pages/account/account-page'), true) },
      { path: 'admin/users', element: page(() => import('./pages/admin/admin-users-page'), 'admin') },
      { path: 'admin/users/:id', element: page(() => import('./pages/admin/admin-user-page'), 'admin') },
      { path: 'admin/invitations', element: page(() => import('./pages/admin/admin-invitations-page'), 'admin') },
      { path: 'admin/audit-log', element: page(() => import('./pages/admin/admin-audit-page'), 'admin') },
      { path: 'playground', element: page(() => import('./pages/playground/playground-page'), true) },
      { path: 'models', element: page(() => import('./pages/models/models-page'), false) },
      { path: 'models/*', element: page(() => import('./pages/models/model-page'), false) },
      { path: 'providers', element: page(() => import('./pages/providers/providers-page'), false) },
      { path: 'providers/:id', element: page(() => import('./pages/providers/provider-page'), false) },
      { path: 'rankings', element: page(() => import('./pages/rankings/rankings-page'), false) },
      {
        path: '*',
        element: (
          <EmptyState title="Page not found">
            <p>There is nothing at this address. Use the navigation to find your way.</p>
          </EmptyState>
        ),
      },
    ],
  },
]);
