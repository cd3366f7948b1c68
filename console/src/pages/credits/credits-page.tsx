import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { balanceQuery } from '../../api/queries';
import type { Billing } from '../../api/answers';
import { EmptyState, ErrorState, PageHeader, QueryView, Stat } from '../../layout/page-states';
import { StatusBadge } from '../../components/status-badge';
import { formatDateTime, formatMoney, formatPercent } from '../../format/format';
import { parseCreditAmount, PENDING_ORDER_KEY } from './checkout-amount';
import { Money } from '../../components/money';
import { Pager } from '../../components/pager';

const PAGE_SIZE = 10;
const PRESETS = [10, 25, 50, 100];

function AddCredits({ billing }: { billing: Billing }) {
  const [amountText, setAmountText] = useState('25');
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const parsed = parseCreditAmount(amountText);
  const fee = parsed.amount !== null ? Math.round(parsed.amount * billing.platform_fee_rate * 100) / 100 : null;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (parsed.problem !== null) return setProblem(parsed.problem);
    setProblem(null);
    setBusy(true);
    try {
      const origin = window.location.origin;
      const checkout = await unwrap(
        api.POST('/api-account/user/billing/create-checkout', {
          body: {
            amount: parsed.amount,
            currency: billing.currency,
            success_url: `${origin}/credits/result`,
            cancel_url: `${origin}/credits/result?canceled=1`,
          },
        }),
      );
      sessionStorage.setItem(PENDING_ORDER_KEY, checkout.order_id);
      window.location.assign(checkout.checkout_url);
    } catch (error) {
      setProblem(error instanceof Error ? error.message : 'The checkout could not start.');
      setBusy(false);
    }
  };

  return (
    <form className="card form" onSubmit={(event) => void submit(event)} noValidate>
      <h2>Add credits</h2>
      <div className="page-actions" role="group" aria-label="Suggested amounts">
        {PRESETS.map((preset) => (
          <button
            key={preset}
            type="button"
            className="button"
            aria-pressed={amountText === String(preset)}
            onClick={() => setAmountText(String(preset))}
          >
            {formatMoney(preset, billing.currency)}
          </button>
        ))}
      </div>
      <div className="field">
        <label htmlFor="credit-amount">Amount ({billing.currency.toUpperCase()})</label>
        <input
          id="credit-amount"
          inputMode="decimal"
          value={amountText}
          aria-invalid={problem ? true : undefined}
          aria-describedby="credit-amount-hint"
          onChange={(event) => setAmountText(event.target.value)}
        />
        <p
          id="credit-amount-hint"
          className={problem ? 'field-problem' : 'field-hint'}
          role={problem ? 'alert' : undefined}
        >
          {problem ??
            (parsed.amount !== null && fee !== null
              ? `You pay ${formatMoney(parsed.amount + fee, billing.currency)} (platform fee ${formatPercent(billing.platform_fee_rate)}: ${formatMoney(fee, billing.currency)}).`
              : 'Between 5 and 10,000.')}
        </p>
      </div>
      <button type="submit" className="button primary" disabled={busy}>
        {busy ? 'Opening checkout…' : 'Continue to payment'}
      </button>
      <p className="field-hint">
        {billing.payment_provider === 'sandbox'
          ? 'Sandbox payments: no money moves. You confirm on the next page.'
          : 'You pay on Stripe’s secure page and come back here.'}
      </p>
    </form>
  );
}

export function DocumentButton({ orderId, type }: { orderId: string; type: 'invoice' | 'receipt' }) {
  const [failure, setFailure] = useState<string | null>(null);
  const open = async () => {
    setFailure(null);
    try {
      const link = await unwrap(api.POST('/api-account/user/billing/document', { body: { order_id: orderId, type } }));
      // A link with `download` saves the PDF under its number rather than leaving the console.
      const anchor = document.createElement('a');
      anchor.href = link.url;
      anchor.download = `${link.document_number}.pdf`;
      document.body.append(anchor);
      anchor.click();
      anchor.remove();
    } catch (error) {
      setFailure(error instanceof Error ? error.message : 'No document.');
    }
  };
  return (
    <>
      <button
        type="button"
        className="button small"
        aria-label={`Download the ${type} of order ${orderId}`}
        onClick={() => void open()}
      >
        {type === 'invoice' ? 'Invoice' : 'Receipt'}
      </button>
      {failure && <span className="field-problem">{failure}</span>}
    </>
  );
}

function Orders() {
  const [offset, setOffset] = useState(0);
  const orders = useQuery({
    queryKey: ['orders', offset],
    queryFn: () =>
      unwrap(api.GET('/api-account/user/billing/orders', { params: { query: { limit: PAGE_SIZE, offset } } })),
    placeholderData: (previous) => previous,
  });
  return (
    <section className="section">
      <h2>Orders</h2>
      <QueryView query={orders} label="Loading orders">
        {(page) =>
          page.total === 0 ? (
            <EmptyState title="No orders yet">
              <p>Credits you buy appear here, with their invoice and receipt.</p>
            </EmptyState>
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
                      <th scope="col">Documents</th>
                    </tr>
                  </thead>
                  <tbody>
                    {page.data.map((order) => (
                      <tr key={order.order_id}>
                        <td>{formatDateTime(order.created_at)}</td>
                        <td>
                          <Link className="mono" to={`/credits/result?order_id=${order.order_id}`}>
                            {order.order_id}
                          </Link>
                        </td>
                        <td>
                          <StatusBadge status={order.status} />
                        </td>
                        <td className="number">{formatMoney(order.credits)}</td>
                        <td className="number">{formatMoney(order.total, order.currency)}</td>
                        <td>
                          {order.status === 'paid' || order.status === 'refunded' ? (
                            <div className="page-actions">
                              <DocumentButton orderId={order.order_id} type="invoice" />
                              <DocumentButton orderId={order.order_id} type="receipt" />
                            </div>
                          ) : (
                            <span className="muted">—</span>
                          )}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <Pager
                label="Orders pages"
                offset={offset}
                pageSize={PAGE_SIZE}
                total={page.total}
                onOffset={setOffset}
              />
            </>
          )
        }
      </QueryView>
    </section>
  );
}

/** Credits: balance, buying more through the checkout, orders with their documents. */
export default function CreditsPage() {
  const balance = useQuery(balanceQuery);
  const billing = useQuery({
    queryKey: ['billing'],
    queryFn: () => unwrap(api.GET('/api-account/user/billing')),
  });
  return (
    <>
      <PageHeader
        title="Credits and billing"
        description="Prepaid credits pay for every request; buy more at any time."
        actions={
          <Link className="button" to="/credits/history">
            Credit history
          </Link>
        }
      />
      <div className="grid stats">
        <Stat
          label="Available balance"
          value={
            balance.data ? (
              <Money amount={balance.data.available} currency={balance.data.currency} />
            ) : balance.error ? (
              '—'
            ) : (
              '…'
            )
          }
          hint={
            balance.data && balance.data.held > 0
              ? `${formatMoney(balance.data.held)} held by requests in flight`
              : undefined
          }
        />
        <Stat
          label="Plan"
          value={billing.data?.plan ?? '…'}
          hint={billing.data ? `Platform fee ${formatPercent(billing.data.platform_fee_rate)}` : undefined}
        />
      </div>
      <div className="section">
        {billing.error ? (
          <ErrorState error={billing.error} retry={() => void billing.refetch()} />
        ) : billing.data ? (
          <AddCredits billing={billing.data} />
        ) : null}
      </div>
      <Orders />
    </>
  );
}
