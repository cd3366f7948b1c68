import { unitsToDecimal } from '../shared/decimal.js';
import { currencyExponent } from './billing-config.js';
import { nanosToUsdNumber } from '../metering/money.js';
import type { OrderRow } from './order-repository.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** Minor units → a JSON number in currency units; exact for any amount we accept. */
function minorToAmount(minor: number, currency: string): number {
  return Number(unitsToDecimal(minor, currencyExponent(currency)));
}

/** An order as the account API shows it. */
export function orderView(order: OrderRow) {
  return {
    order_id: order.id,
    status: order.status,
    amount: minorToAmount(order.amount_minor, order.currency),
    fee: minorToAmount(order.fee_minor, order.currency),
    total: minorToAmount(order.total_minor, order.currency),
    // ISO 4217 in capitals, as every account response spells currencies (orders store Stripe's lower case).
    currency: order.currency.toUpperCase(),
    credits: nanosToUsdNumber(order.credit_nanos),
    payment_provider: order.payment_provider,
    checkout_url: order.status === 'pending' ? order.checkout_url : null,
    created_at: iso(order.created_at)!,
    paid_at: iso(order.paid_at),
    closed_at: iso(order.closed_at),
  };
}
