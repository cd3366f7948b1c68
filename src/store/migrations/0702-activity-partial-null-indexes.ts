import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * SQLite: the activity filters by error code and by app read only rows that have one, but their
 * indexes (0700) took an entry for every settled request, and most requests have neither (an
 * answered request has no error code; an app is named only by clients that send X-Title). Made
 * partial (`… is not null`), they are written only for the rows a filter can find: two index
 * updates fewer per ordinary settled request (issue 31: the settlement batch's store write).
 * `error_code = ?` and `app = ?` imply the index's WHERE for SQLite's planner, with a parameter
 * too, so the filters' plans are unchanged (docs/activity.md#indexes). PostgreSQL keeps the full
 * indexes: its settlements are written off the answer's path, and rebuilding an index of every
 * partition is a migration of its own.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect !== 'sqlite') return;
  await db.schema.dropIndex('usage_events_user_error_page').execute();
  await sql`create index usage_events_user_error_page on usage_events (user_id, error_code, created_at, id)
    where error_code is not null`.execute(db);
  await db.schema.dropIndex('usage_events_user_app_page').execute();
  await sql`create index usage_events_user_app_page on usage_events (user_id, app, created_at, id)
    where app is not null`.execute(db);
}
