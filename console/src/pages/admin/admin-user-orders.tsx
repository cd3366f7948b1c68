import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { AlertDialog } from 'radix-ui';
import { api, unwrap } from '../../api/client';
import type { Order } from '../../api/answers';
import { EmptyState, QueryView } from '../../layout/page-states';
import { StatusBadge } from '../../components/status-badge';
import { Pager } from '../../components/pager';
import { formatDateTime, formatMoney } from '../../format/format';

const PAGE_SIZE = 10;

/** The account's credit orders; a paid one can be refunded (money back, credits off, exactly once). */
export function AdminUserOrders({ userId }: { userId: string }) {
  const queryClient = useQueryClient();
  const [offset, setOffset] = useState(0);
  const [refunding, setRefunding] = useState<Order | null>(null);
  const [reason, setReason] = useState('');
  const orders = useQuery({
    queryKey: ['admin-orders', userId, offset],
    queryFn: () =>
      unwrap(
        api.GET('/api-account/admin/users/{user_id}/orders', {
          params: { path: { user_id: userId }, query: { limit: PAGE_SIZE, offset } },
        }),
      ),
    placeholderData: (previous) => previous,
  });
  const refund = useMutation({
    mutationFn: (order: Order) =>
      unwrap(
        api.POST('/api-account/admin/orders/{order_id}/refund', {
          params: { path: { order_id: order.order_id } },
          body: reason.trim() ? { reason: reason.trim() } : {},
        }),
      ),
    onSuccess: async () => {
      setRefunding(null);
      setReason('');
      await queryClient.invalidateQueries({ queryKey: ['admin-orders', userId] });
      await queryClient.invalidateQueries({ queryKey: ['admin-user', userId] });
    },
  });

  return (
    <section className="section">
      <h2>Orders</h2>
      <QueryView query={orders} label="Loading orders">
        {(page) =>
          page.total === 0 ? (
            <EmptyState title="No orders" />
          ) : (
            <>
              <div className="table-wrap">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Date</th>
                      <th scope="col">Order</th>
                      <th scope="col">Status</th>
                      <th scope="col" className="number">
                        Credits
                      </th>
                      <th scope="col" className="number">
                        Paid
                      </th>
                      <th scope="col">
                        <span className="visually-hidden">Actions</span>
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {page.data.map((order) => (
                      <tr key={order.order_id}>
                        <td>{formatDateTime(order.created_at)}</td>
                        <td className="mono">{order.order_id}</td>
                        <td>
                          <StatusBadge status={order.status} />
                        </td>
                        <td className="number">{formatMoney(order.credits)}</td>
                        <td className="number">{formatMoney(order.total, order.currency)}</td>
                        <td>
                          {order.status === 'paid' && (
                            <button
                              type="button"
                              className="button small"
                              aria-label={`Refund order ${order.order_id}`}
                              onClick={() => {
                                refund.reset();
                                setRefunding(order);
                              }}
                            >
                              Refund
                            </button>
                          )}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <Pager label="Order pages" offset={offset} pageSize={PAGE_SIZE} total={page.total} onOffset={setOffset} />
            </>
          )
        }
      </QueryView>

      <AlertDialog.Root open={refunding !== null} onOpenChange={(open) => !open && setRefunding(null)}>
        <AlertDialog.Portal>
          <AlertDialog.Overlay className="dialog-overlay" />
          <AlertDialog.Content className="dialog narrow">
            <AlertDialog.Title>Refund {refunding?.order_id}?</AlertDialog.Title>
            <AlertDialog.Description>
              {refunding &&
                `${formatMoney(refunding.total, refunding.currency)} goes back to the buyer and ${formatMoney(refunding.credits)} of credits leave the balance (never below zero).`}
            </AlertDialog.Description>
            <div className="field">
              <label htmlFor="refund-reason">Reason (kept in the audit log)</label>
              <input
                id="refund-reason"
                value={reason}
                maxLength={500}
                onChange={(event) => setReason(event.target.value)}
              />
            </div>
            {refund.error && (
              <p className="form-failure" role="alert">
                {refund.error.message}
              </p>
            )}
            <div className="dialog-actions">
              <AlertDialog.Cancel className="button">Keep the order</AlertDialog.Cancel>
              <button
                type="button"
                className="button danger"
                disabled={refund.isPending}
                onClick={() => refunding && refund.mutate(refunding)}
              >
                {refund.isPending ? 'Refunding…' : 'Refund order'}
              </button>
            </div>
          </AlertDialog.Content>
        </AlertDialog.Portal>
      </AlertDialog.Root>
    </section>
  );
}
