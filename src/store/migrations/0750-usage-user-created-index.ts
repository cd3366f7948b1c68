import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * `usage_events_user_created (user_id, created_at)` (0200) is a prefix of
 * `usage_events_user_page (user_id, created_at, id)` (0700): every query it served reads the same
 * range from the wider index at the same cost (SQLite, 1M rows, `INDEXED BY` alternated: the
 * usage report's totals, days and keys within a few %), and each settled request wrote both
 * (issue 31: the settlement batch's store write). The one plan that depended on it, the usage
 * report's per-key totals, reads its range through a CTE now (usage-report.ts). On PostgreSQL
 * dropping the partitioned table's index drops each partition's too. Only an index goes: no data.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.dropIndex('usage_events_user_created').ifExists().execute();
}
