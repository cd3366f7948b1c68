/** Billing's tables, merged into the store's Database type (see store/schema.ts). Money in minor units (cents). */
import type { OrderStatus } from './order-state.js';

export interface BillingOrdersTable {
  id: string;
  user_id: string;
  status: OrderStatus;
  /** 'stripe' or 'sandbox': who confirms this order's payment. */
  payment_provider: string;
  currency: string;
  amount_minor: number;
  fee_minor: number;
  /** The fee rate in force when the order was made, parts per million. */
  fee_rate_ppm: number;
  total_minor: number;
  /** What a paid order adds to the balance, nano-USD. */
  credit_nanos: number;
  session_id: string | null;
  checkout_url: string | null;
  /** Stripe's payment intent, to find the order again from a charge.refunded event. */
  payment_reference: string | null;
  created_at: number;
  updated_at: number;
  paid_at: number | null;
  closed_at: number | null;
}

export interface BillingDocumentsTable {
  id: string;
  order_id: string;
  type: 'invoice' | 'receipt';
  /** Sequential per type: INV-000001, RCT-000001. */
  number: number;
  created_at: number;
}

/** Payment-provider events already handled, so a replay is recognised before any work. */
interface BillingEventsTable {
  id: string;
  type: string;
  received_at: number;
}

interface BillingCustomersTable {
  user_id: string;
  payment_provider: string;
  customer_id: string;
  created_at: number;
}

declare module '../store/schema.js' {
  interface Database {
    billing_orders: BillingOrdersTable;
    billing_documents: BillingDocumentsTable;
    billing_events: BillingEventsTable;
    billing_customers: BillingCustomersTable;
  }
}
