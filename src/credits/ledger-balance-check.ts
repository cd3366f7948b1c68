import { sql, type Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import './credits-schema.js';

/** A user whose running balance is not the sum of their ledger entries. */
export interface BalanceMismatch {
  userId: string;
  balance: number;
  ledgerSum: number;
}

/** Every balance row checked against its ledger (one aggregate query; for reconcile, not the request path). */
export async function balanceMismatches(db: Kysely<Database>): Promise<BalanceMismatch[]> {
  const rows = await db
    .selectFrom('credit_balances as balance')
    .leftJoin('credit_ledger as entry', 'entry.user_id', 'balance.user_id')
    .select([
      'balance.user_id as user_id',
      'balance.balance_nanos as balance_nanos',
      sql<number>`cast(coalesce(sum(entry.amount_nanos), 0) as bigint)`.as('ledger_sum'),
    ])
    .groupBy(['balance.user_id', 'balance.balance_nanos'])
    .having(sql<boolean>`balance.balance_nanos <> coalesce(sum(entry.amount_nanos), 0)`)
    .execute();
  return rows.map((row) => ({
    userId: row.user_id,
    balance: Number(row.balance_nanos),
    ledgerSum: Number(row.ledger_sum),
  }));
}
