import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('billing_orders')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('user_id', 'text', (column) => column.notNull())
    .addColumn('status', 'text', (column) => column.notNull())
    .addColumn('payment_provider', 'text', (column) => column.notNull())
    .addColumn('currency', 'text', (column) => column.notNull())
    .addColumn('amount_minor', 'bigint', (column) => column.notNull())
    .addColumn('fee_minor', 'bigint', (column) => column.notNull())
    .addColumn('fee_rate_ppm', 'bigint', (column) => column.notNull())
    .addColumn('total_minor', 'bigint', (column) => column.notNull())
    .addColumn('credit_nanos', 'bigint', (column) => column.notNull())
    .addColumn('session_id', 'text', (column) => column.unique())
    .addColumn('checkout_url', 'text')
    .addColumn('payment_reference', 'text')
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .addColumn('updated_at', 'bigint', (column) => column.notNull())
    .addColumn('paid_at', 'bigint')
    .addColumn('closed_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('billing_orders_user_created')
    .on('billing_orders')
    .columns(['user_id', 'created_at'])
    .execute();
  await db.schema
    .createIndex('billing_orders_payment_reference')
    .on('billing_orders')
    .column('payment_reference')
    .execute();

  await db.schema
    .createTable('billing_documents')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('order_id', 'text', (column) => column.notNull())
    .addColumn('type', 'text', (column) => column.notNull())
    .addColumn('number', 'bigint', (column) => column.notNull())
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .addUniqueConstraint('billing_documents_order_type', ['order_id', 'type'])
    .addUniqueConstraint('billing_documents_type_number', ['type', 'number'])
    .execute();

  await db.schema
    .createTable('billing_events')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('type', 'text', (column) => column.notNull())
    .addColumn('received_at', 'bigint', (column) => column.notNull())
    .execute();

  await db.schema
    .createTable('billing_customers')
    .addColumn('user_id', 'text', (column) => column.notNull())
    .addColumn('payment_provider', 'text', (column) => column.notNull())
    .addColumn('customer_id', 'text', (column) => column.notNull())
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .addPrimaryKeyConstraint('billing_customers_pk', ['user_id', 'payment_provider'])
    .execute();
}
