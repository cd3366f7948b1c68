import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Distinct users per model per day as a count, kept up to date by the rollup writer, so the users
 * chart reads one row per model and day instead of counting every (day, model, user) row. Filled
 * from the rows already recorded.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('usage_model_users_day_count')
    .addColumn('day_start', 'bigint', (column) => column.notNull())
    .addColumn('model_id', 'text', (column) => column.notNull())
    .addColumn('users', 'bigint', (column) => column.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('usage_model_users_day_count_pk', ['day_start', 'model_id'])
    .execute();
  await sql`insert into usage_model_users_day_count (day_start, model_id, users) select day_start, model_id, count(*) from usage_model_users_day group by day_start, model_id`.execute(
    db,
  );
}
