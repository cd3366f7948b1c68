import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from 'react-router';
import { SessionProvider } from './session/session';
import { ApiError } from './api/client';
import { router } from './routes';
import { watchTableLabels } from './layout/table-labels';
import './styles.css';

// Dialogs lock scrolling with a <style> element they insert at run time (radix-ui, through
// react-style-singleton). The page's Content-Security-Policy allows inline styles only with the
// nonce the gateway put in this meta tag; the library reads it from `__webpack_nonce__`.
const styleNonce = document.querySelector<HTMLMetaElement>('meta[name="csp-nonce"]')?.content;
if (styleNonce) (window as unknown as { __webpack_nonce__?: string }).__webpack_nonce__ = styleNonce;

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 15_000,
      refetchOnWindowFocus: true,
      // A 4xx will not get better by asking again; network blips and 5xx get one more try.
      retry: (count, error) => count < 1 && !(error instanceof ApiError && error.status < 500),
    },
  },
});

const root = document.getElementById('root')!;
watchTableLabels(root);
createRoot(root).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <SessionProvider>
        <RouterProvider router={router} />
      </SessionProvider>
    </QueryClientProvider>
  </StrictMode>,
);
