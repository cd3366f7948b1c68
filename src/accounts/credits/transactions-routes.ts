import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Store } from '../../store/database.js';
import { getBalance } from '../../credits/credit-ledger.js';
import { nanosToUsd, nanosToUsdNumber } from '../../metering/money.js';
import {
  formatDay,
  keyNames,
  listCreditTransactions,
  type CreditTransaction,
} from '../../billing/credit-transactions.js';
import { TransactionPageSchema, TransactionsQuerySchema, type TransactionsQuery } from './transactions-schemas.js';
import { typed } from '../../shared/typebox-type-provider.js';

const DAY_MS = 86_400_000;
const JSON_PAGE = 50;
/** A CSV export without a limit: every row, up to this many. */
const CSV_MAX_ROWS = 100_000;
const CSV_COLUMNS = [
  'id',
  'date',
  'created_at',
  'type',
  'amount_usd',
  'amount_nanos',
  'currency',
  'key_id',
  'key_name',
  'requests',
  'order_id',
  'reference',
  'description',
] as const;

const errors = { 400: { $ref: 'ErrorEnvelope#' }, 401: { $ref: 'ErrorEnvelope#' } };

function wantsCsv(request: FastifyRequest, query: TransactionsQuery): boolean {
  if (query.format !== undefined) return query.format === 'csv';
  const accept = request.headers.accept ?? '';
  return /\btext\/csv\b/i.test(accept) && !/\bapplication\/json\b/i.test(accept);
}

/**
 * RFC 4180: quoted when it holds a comma, quote or line break. Text a user wrote (key names,
 * descriptions) starting with = + - @ is prefixed with ' so a spreadsheet does not run it.
 */
function csvField(value: string | number | null, userText = false): string {
  if (value === null) return '';
  let text = String(value);
  if (userText && /^[=+\-@]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function present(row: CreditTransaction, names: Map<string, string>) {
  const date = formatDay(row.day);
  const usage = row.type === 'usage';
  const keyName = row.keyId === null ? null : (names.get(row.keyId) ?? null);
  return {
    id: row.id,
    type: row.type,
    amount: nanosToUsdNumber(row.amountNanos),
    amount_nanos: row.amountNanos,
    currency: 'USD' as const,
    description: usage
      ? `usage on ${date}${keyName === null ? '' : ` with key ${keyName}`} (${row.entries} request${row.entries === 1 ? '' : 's'})`
      : row.description,
    date,
    created_at: new Date(row.createdAt).toISOString(),
    key_id: row.keyId,
    key_name: keyName,
    requests: usage ? row.entries : null,
    order_id: row.reference?.match(/^order:([^:]+)/)?.[1] ?? null,
    reference: row.reference,
  };
}

/**
 * GET /api-account/user/transactions: the user's credit ledger, newest first. Grants, purchases
 * and refunds are one line each; usage charges are summed per UTC day and key. Paged with
 * limit/offset (like the orders list); `format=csv` or `Accept: text/csv` exports it.
 */
export function registerTransactionsRoutes(app: FastifyInstance, deps: { store: Store }): void {
  typed(app).get(
    '/user/transactions',
    {
      schema: {
        summary: 'Your credit history: grants, purchases, refunds, and usage charges per day and key (JSON or CSV)',
        tags: ['billing'],
        querystring: TransactionsQuerySchema,
        response: {
          200: {
            description: 'A page of transactions (JSON), or every matching one as CSV',
            content: {
              'application/json': { schema: TransactionPageSchema },
              'text/csv': { schema: { type: 'string', description: `columns: ${CSV_COLUMNS.join(',')}` } },
            },
          },
          ...errors,
        },
      },
    },
    async (request, reply) => {
      const query = request.query;
      const userId = request.user!.id;
      const csv = wantsCsv(request, query);
      const from = query.start_date === undefined ? undefined : Date.parse(`${query.start_date}T00:00:00Z`);
      const to = query.end_date === undefined ? undefined : Date.parse(`${query.end_date}T00:00:00Z`) + DAY_MS;
      const limit = query.limit ?? (csv ? CSV_MAX_ROWS : JSON_PAGE);
      const offset = query.offset ?? 0;
      const { rows, total } = await listCreditTransactions(
        deps.store,
        userId,
        { type: query.type, from, to },
        { limit, offset },
      );
      const names = await keyNames(deps.store, [...new Set(rows.flatMap((row) => (row.keyId ? [row.keyId] : [])))]);
      const data = rows.map((row) => present(row, names));
      if (csv) {
        const lines = [
          CSV_COLUMNS.join(','),
          ...data.map((row) =>
            [
              csvField(row.id),
              csvField(row.date),
              csvField(row.created_at),
              csvField(row.type),
              csvField(nanosToUsd(row.amount_nanos)),
              csvField(row.amount_nanos),
              csvField(row.currency),
              csvField(row.key_id),
              csvField(row.key_name, true),
              csvField(row.requests),
              csvField(row.order_id),
              csvField(row.reference, true),
              csvField(row.description, true),
            ].join(','),
          ),
        ];
        return reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', 'attachment; filename="transactions.csv"')
          .header('x-total-count', String(total))
          .send(`${lines.join('\r\n')}\r\n`);
      }
      const balance = await getBalance(deps.store, userId);
      return {
        data,
        total,
        limit,
        offset,
        currency: 'USD',
        balance: nanosToUsdNumber(balance),
        balance_nanos: balance,
      };
    },
  );
}
