import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Content logging (issue 27, item 3): a key may keep the bodies of its requests and answers
 * (`log_content`, off by default). Each body is kept compressed (gzip) up to a size cap, with its
 * original size and whether it was cut. Rows are found by the user's request (user_id,
 * request_id, created_at: the usage event's own start time) and swept by age (created_at).
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .alterTable('api_keys')
    .addColumn('log_content', 'integer', (column) => column.notNull().defaultTo(0))
    .execute();
  const bytes = dialect === 'postgres' ? 'bytea' : 'blob';
  await db.schema
    .createTable('request_contents')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('user_id', 'text', (column) => column.notNull())
    .addColumn('key_id', 'text')
    .addColumn('request_id', 'text', (column) => column.notNull())
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .addColumn('encoding', 'text', (column) => column.notNull())
    .addColumn('request_body', bytes)
    .addColumn('request_bytes', 'bigint', (column) => column.notNull())
    .addColumn('request_truncated', 'integer', (column) => column.notNull())
    .addColumn('response_body', bytes)
    .addColumn('response_bytes', 'bigint', (column) => column.notNull())
    .addColumn('response_truncated', 'integer', (column) => column.notNull())
    .addColumn('response_type', 'text')
    .execute();
  await db.schema
    .createIndex('request_contents_user_request')
    .on('request_contents')
    .columns(['user_id', 'request_id', 'created_at'])
    .execute();
  await db.schema.createIndex('request_contents_created').on('request_contents').columns(['created_at']).execute();
}
