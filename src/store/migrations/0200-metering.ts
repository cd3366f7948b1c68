import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import { autoIncrementId } from '../column-types.js';

/** Metering: usage events, the credit ledger with balances, and running spend per key. */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('usage_events')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('request_id', 'text', (column) => column.notNull())
    .addColumn('user_id', 'text')
    .addColumn('key_id', 'text')
    .addColumn('requested_model', 'text', (column) => column.notNull())
    .addColumn('model_id', 'text')
    .addColumn('provider_id', 'text')
    .addColumn('upstream_model', 'text')
    .addColumn('prompt_tokens', 'bigint', (column) => column.notNull().defaultTo(0))
    .addColumn('completion_tokens', 'bigint', (column) => column.notNull().defaultTo(0))
    .addColumn('cached_tokens', 'bigint', (column) => column.notNull().defaultTo(0))
    .addColumn('reasoning_tokens', 'bigint', (column) => column.notNull().defaultTo(0))
    .addColumn('total_tokens', 'bigint', (column) => column.notNull().defaultTo(0))
    .addColumn('tokens_estimated', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('cost_nanos', 'bigint', (column) => column.notNull().defaultTo(0))
    .addColumn('latency_ms', 'bigint', (column) => column.notNull().defaultTo(0))
    .addColumn('time_to_first_token_ms', 'bigint')
    .addColumn('tokens_per_second', 'double precision')
    .addColumn('status', 'integer', (column) => column.notNull())
    .addColumn('error_code', 'text')
    .addColumn('streamed', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('client_aborted', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('attempt_count', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('attempts', 'text', (column) => column.notNull().defaultTo('[]'))
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .execute();
  await db.schema
    .createIndex('usage_events_user_created')
    .on('usage_events')
    .columns(['user_id', 'created_at'])
    .execute();
  await db.schema
    .createIndex('usage_events_key_created')
    .on('usage_events')
    .columns(['key_id', 'created_at'])
    .execute();
  await db.schema.createIndex('usage_events_created').on('usage_events').column('created_at').execute();

  await db.schema
    .createTable('credit_ledger')
    .addColumn('id', autoIncrementId(dialect), (column) => column.primaryKey())
    .addColumn('user_id', 'text', (column) => column.notNull())
    .addColumn('kind', 'text', (column) => column.notNull())
    .addColumn('amount_nanos', 'bigint', (column) => column.notNull())
    .addColumn('reference', 'text', (column) => column.notNull().unique())
    .addColumn('description', 'text', (column) => column.notNull().defaultTo(''))
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .execute();
  await db.schema
    .createIndex('credit_ledger_user_created')
    .on('credit_ledger')
    .columns(['user_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('credit_balances')
    .addColumn('user_id', 'text', (column) => column.primaryKey())
    .addColumn('balance_nanos', 'bigint', (column) => column.notNull().defaultTo(0))
    .addColumn('updated_at', 'bigint', (column) => column.notNull())
    .execute();

  await db.schema
    .createTable('key_spend')
    .addColumn('key_id', 'text', (column) => column.primaryKey())
    .addColumn('month', 'text', (column) => column.notNull())
    .addColumn('month_spend_nanos', 'bigint', (column) => column.notNull().defaultTo(0))
    .addColumn('total_spend_nanos', 'bigint', (column) => column.notNull().defaultTo(0))
    .addColumn('updated_at', 'bigint', (column) => column.notNull())
    .execute();
}
