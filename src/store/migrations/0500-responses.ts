import type { Kysely } from 'kysely';

/**
 * Stored Responses (store: true), per user: the Response as answered (GET /v1/responses/{id}) and
 * the chat conversation it ends, which previous_response_id continues. Frozen: imports nothing
 * from feature code.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('stored_responses')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('user_id', 'text', (column) => column.notNull())
    .addColumn('key_id', 'text')
    .addColumn('model', 'text', (column) => column.notNull())
    .addColumn('response', 'text', (column) => column.notNull())
    .addColumn('conversation', 'text', (column) => column.notNull())
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .execute();
  await db.schema
    .createIndex('stored_responses_user_created')
    .on('stored_responses')
    .columns(['user_id', 'created_at'])
    .execute();
}
