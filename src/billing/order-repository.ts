import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../store/schema.js';
import type { BillingOrdersTable } from './billing-tables.js';
import { sourcesOf, type OrderStatus } from './order-state.js';
import './billing-tables.js';

export type OrderRow = Selectable<BillingOrdersTable>;

export async function insertOrder(db: Kysely<Database>, order: OrderRow): Promise<void> {
  await db.insertInto('billing_orders').values(order).execute();
}

export async function attachSession(
  db: Kysely<Database>,
  orderId: string,
  sessionId: string,
  checkoutUrl: string,
  now: number,
): Promise<void> {
  await db
    .updateTable('billing_orders')
    .set({ session_id: sessionId, checkout_url: checkoutUrl, updated_at: now })
    .where('id', '=', orderId)
    .execute();
}

/** The user's order, or undefined: another user's order is as good as missing. */
export async function findUserOrder(
  db: Kysely<Database>,
  userId: string,
  orderId: string,
): Promise<OrderRow | undefined> {
  return db
    .selectFrom('billing_orders')
    .selectAll()
    .where('id', '=', orderId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
}

export async function findOrder(db: Kysely<Database>, orderId: string): Promise<OrderRow | undefined> {
  return db.selectFrom('billing_orders').selectAll().where('id', '=', orderId).executeTakeFirst();
}

export async function findOrderBySession(db: Kysely<Database>, sessionId: string): Promise<OrderRow | undefined> {
  return db.selectFrom('billing_orders').selectAll().where('session_id', '=', sessionId).executeTakeFirst();
}

export async function findOrderByPaymentReference(
  db: Kysely<Database>,
  reference: string,
): Promise<OrderRow | undefined> {
  return db.selectFrom('billing_orders').selectAll().where('payment_reference', '=', reference).executeTakeFirst();
}

/** The credits the user's pending orders created since `since` (ms) would add, in nano-USD. */
export async function pendingCreditNanos(db: Kysely<Database>, userId: string, since: number): Promise<number> {
  const rows = await db
    .selectFrom('billing_orders')
    .select('credit_nanos')
    .where('user_id', '=', userId)
    .where('status', '=', 'pending')
    .where('created_at', '>=', since)
    .execute();
  return rows.reduce((sum, row) => sum + Number(row.credit_nanos), 0);
}

export async function listUserOrders(
  db: Kysely<Database>,
  userId: string,
  limit: number,
  offset: number,
): Promise<{ rows: OrderRow[]; total: number }> {
  const rows = await db
    .selectFrom('billing_orders')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
  const { total } = await db
    .selectFrom('billing_orders')
    .select((eb) => eb.fn.countAll<number | string>().as('total'))
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
  return { rows, total: Number(total) };
}

export async function listPaidOrders(db: Kysely<Database>, userId: string, limit: number): Promise<OrderRow[]> {
  return db
    .selectFrom('billing_orders')
    .selectAll()
    .where('user_id', '=', userId)
    .where('status', 'in', ['paid', 'refunded'])
    .orderBy('created_at', 'desc')
    .limit(limit)
    .execute();
}

/**
 * Compare-and-set: moves the order to `to` only from a state allowed to reach it. Of two
 * concurrent confirmations exactly one sees `true`; the other finds the order already moved.
 */
export async function moveOrder(
  db: Kysely<Database>,
  orderId: string,
  to: OrderStatus,
  now: number,
  extra: { payment_reference?: string | null } = {},
): Promise<boolean> {
  const result = await db
    .updateTable('billing_orders')
    .set({
      status: to,
      updated_at: now,
      ...(to === 'paid' ? { paid_at: now } : { closed_at: now }),
      ...(extra.payment_reference ? { payment_reference: extra.payment_reference } : {}),
    })
    .where('id', '=', orderId)
    .where('status', 'in', sourcesOf(to))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Records a payment-provider event id; false when it was seen before. */
export async function recordEvent(db: Kysely<Database>, id: string, type: string, now: number): Promise<boolean> {
  const result = await db
    .insertInto('billing_events')
    .values({ id, type, received_at: now })
    .onConflict((conflict) => conflict.column('id').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
}

export async function forgetEvent(db: Kysely<Database>, id: string): Promise<void> {
  await db.deleteFrom('billing_events').where('id', '=', id).execute();
}
