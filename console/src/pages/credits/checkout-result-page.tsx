import { Link, useSearchParams } from 'react-router';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { api, unwrap } from '../../api/client';
import { EmptyState, PageHeader, QueryView } from '../../layout/page-states';
import { StatusBadge } from '../../components/status-badge';
import { formatDateTime, formatMoney } from '../../format/format';
import { PENDING_ORDER_KEY } from './checkout-amount';
import { DocumentButton } from './credits-page';

const MESSAGES: Record<string, string> = {
  paid: 'Payment received: the credits are on your balance.',
  pending: 'Waiting for the payment to be confirmed. This page updates by itself.',
  canceled: 'The checkout was canceled. Nothing was charged.',
  failed: 'The payment failed. Nothing was charged.',
  expired: 'The checkout expired before it was paid.',
  refunded: 'This order was refunded.',
};

/** Where the payment page sends the buyer back: the order's status, polled while it is pending. */
export default function CheckoutResultPage() {
  const [params] = useSearchParams();
  const orderId = params.get('order_id') ?? sessionStorage.getItem(PENDING_ORDER_KEY);
  const queryClient = useQueryClient();
  const order = useQuery({
    queryKey: ['order', orderId],
    enabled: orderId !== null,
    queryFn: () =>
      unwrap(
        api.GET('/api-account/user/billing/payment-status/{order_id}', { params: { path: { order_id: orderId! } } }),
      ),
    refetchInterval: (query) => (query.state.data?.status === 'pending' ? 2000 : false),
  });
  const status = order.data?.status;
  useEffect(() => {
    if (status && status !== 'pending') {
      sessionStorage.removeItem(PENDING_ORDER_KEY);
      void queryClient.invalidateQueries({ queryKey: ['balance'] });
      void queryClient.invalidateQueries({ queryKey: ['orders'] });
    }
  }, [status, queryClient]);

  if (!orderId)
    return (
      <EmptyState title="No order to show">
        <Link to="/credits">Back to credits</Link>
      </EmptyState>
    );
  return (
    <>
      <PageHeader title="Your order" />
      <QueryView query={order} label="Checking the payment">
        {(data) => (
          <section className="card" aria-live="polite">
            <p className={`callout ${data.status === 'paid' ? 'success' : data.status === 'pending' ? 'info' : ''}`}>
              {MESSAGES[data.status] ?? `Order ${data.status}.`}
            </p>
            <dl className="definition-grid">
              <div>
                <dt>Order</dt>
                <dd className="mono">{data.order_id}</dd>
              </div>
              <div>
                <dt>Status</dt>
                <dd>
                  <StatusBadge status={data.status} />
                </dd>
              </div>
              <div>
                <dt>Amount</dt>
                <dd>{formatMoney(data.amount, data.currency)}</dd>
              </div>
              <div>
                <dt>Fee</dt>
                <dd>{formatMoney(data.fee, data.currency)}</dd>
              </div>
              <div>
                <dt>Total</dt>
                <dd>{formatMoney(data.total, data.currency)}</dd>
              </div>
              <div>
                <dt>Created</dt>
                <dd>{formatDateTime(data.created_at)}</dd>
              </div>
            </dl>
            <div className="dialog-actions">
              {data.status === 'paid' && (
                <>
                  <DocumentButton orderId={data.order_id} type="invoice" />
                  <DocumentButton orderId={data.order_id} type="receipt" />
                </>
              )}
              <Link className="button primary" to="/credits">
                Back to credits
              </Link>
            </div>
          </section>
        )}
      </QueryView>
    </>
  );
}
