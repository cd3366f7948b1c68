import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Activity (issue 27): what the per-request list shows that usage_events did not keep yet
 * (cache-write tokens, the API surface, the client app from X-Title / HTTP-Referer), and one
 * index per filter, each led by user_id and ending in (created_at, id) so that every filtered
 * page is a keyset range scan of one user's rows, newest first, whatever the table's size.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .alterTable('usage_events')
    .addColumn('cache_write_tokens', 'bigint', (column) => column.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('usage_events').addColumn('surface', 'text').execute();
  await db.schema.alterTable('usage_events').addColumn('app', 'text').execute();
  await db.schema.alterTable('usage_events').addColumn('app_url', 'text').execute();

  const indexes: Array<[string, string[]]> = [
    ['usage_events_user_page', ['user_id', 'created_at', 'id']],
    ['usage_events_user_request', ['user_id', 'request_id']],
    ['usage_events_user_key_page', ['user_id', 'key_id', 'created_at', 'id']],
    ['usage_events_user_model_page', ['user_id', 'model_id', 'created_at', 'id']],
    ['usage_events_user_provider_page', ['user_id', 'provider_id', 'created_at', 'id']],
    ['usage_events_user_status_page', ['user_id', 'status', 'created_at', 'id']],
    ['usage_events_user_error_page', ['user_id', 'error_code', 'created_at', 'id']],
    ['usage_events_user_app_page', ['user_id', 'app', 'created_at', 'id']],
  ];
  for (const [name, columns] of indexes)
    await db.schema.createIndex(name).on('usage_events').columns(columns).execute();
}
