import { Type } from '@sinclair/typebox';

/**
 * An order as `orderView` presents it: the body of the account API's order routes and of the
 * sandbox checkout's confirm and cancel, so the OpenAPI document describes all of them alike.
 */
export const OrderSchema = Type.Object({
  order_id: Type.String(),
  status: Type.Union(
    ['pending', 'paid', 'failed', 'expired', 'canceled', 'refunded'].map((status) => Type.Literal(status)),
  ),
  amount: Type.Number(),
  fee: Type.Number(),
  total: Type.Number(),
  currency: Type.String(),
  credits: Type.Number({ description: 'USD credits a paid order adds' }),
  payment_provider: Type.String(),
  checkout_url: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String(),
  paid_at: Type.Union([Type.String(), Type.Null()]),
  closed_at: Type.Union([Type.String(), Type.Null()]),
});
