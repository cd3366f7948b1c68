import { Type, type Static } from '@sinclair/typebox';
import { limitParameter, offsetParameter } from '../paging-schemas.js';

/** `adjustment`: credits an administrator deducted (POST /api-account/admin/users/{id}/credits). */
const LEDGER_KINDS = ['grant', 'purchase', 'usage', 'refund', 'adjustment'] as const;
const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

export const TransactionsQuerySchema = Type.Object(
  {
    type: Type.Optional(
      Type.Union(
        LEDGER_KINDS.map((kind) => Type.Literal(kind)),
        { description: 'only this kind: grant, purchase, usage, refund or adjustment' },
      ),
    ),
    start_date: Type.Optional(Type.String({ format: 'date', description: 'YYYY-MM-DD (UTC), included' })),
    end_date: Type.Optional(Type.String({ format: 'date', description: 'YYYY-MM-DD (UTC), included' })),
    limit: limitParameter(
      500,
      undefined,
      'rows per page: default 50 (JSON); CSV without a limit exports every row, up to 100000',
    ),
    offset: offsetParameter(),
    format: Type.Optional(
      Type.Union([Type.Literal('json'), Type.Literal('csv')], {
        description: 'csv answers text/csv (so does Accept: text/csv without a format); default json',
      }),
    ),
  },
  { additionalProperties: false },
);
export type TransactionsQuery = Static<typeof TransactionsQuerySchema>;

const TransactionSchema = Type.Object({
  id: Type.String({ description: 'entry-<ledger id>, or usage-<date>-<key id> for a usage line' }),
  type: Type.Union(
    LEDGER_KINDS.map((kind) => Type.Literal(kind)),
    {
      description:
        'grant, purchase, usage (one line per UTC day and key), refund or adjustment (an administrator’s deduction)',
    },
  ),
  amount: Type.Number({ description: 'USD, signed: credits added are positive, charges and refunds negative' }),
  amount_nanos: Type.Integer({ description: 'the exact amount, in nano-USD' }),
  currency: Type.Literal('USD'),
  description: Type.String(),
  date: Type.String({ description: 'UTC day, YYYY-MM-DD' }),
  created_at: Type.String({ description: 'when it was written; a usage line: its latest charge' }),
  key_id: Nullable(Type.String({ description: 'usage lines: the key charged' })),
  key_name: Nullable(Type.String()),
  requests: Type.Union([Type.Integer(), Type.Null()], { description: 'usage lines: charges summed (one per request)' }),
  order_id: Nullable(Type.String({ description: 'purchases and their refunds: the order' })),
  reference: Nullable(Type.String({ description: 'the ledger entry’s unique reference; null for usage lines' })),
});

export const TransactionPageSchema = Type.Object({
  data: Type.Array(TransactionSchema),
  total: Type.Integer(),
  limit: Type.Integer(),
  offset: Type.Integer(),
  currency: Type.Literal('USD'),
  balance: Type.Number({ description: 'the current balance, USD: the sum of every transaction' }),
  balance_nanos: Type.Integer(),
});
