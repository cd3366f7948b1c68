import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';

/** Months ahead of the current one that get their partition now; the usage maintenance worker keeps this up. */
const MONTHS_AHEAD = 2;

/**
 * PostgreSQL: usage_events becomes a table range-partitioned by month on created_at (epoch ms,
 * UTC months), so that an old month is dropped as one file (retention) and a time-bounded scan
 * reads only its months. PostgreSQL wants the partition key in every unique constraint: the
 * primary key becomes (id, created_at), which still leads with id for the joins on id (ledger
 * references `usage:<id>`). Every index of the table is created again, unchanged, on the
 * partitioned table (and so on each partition). A DEFAULT partition takes a row whose month has
 * no partition yet, so that an insert never fails; the worker moves such rows into their month.
 * The rows are copied once before the indexes are built. SQLite stays one table.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect !== 'postgres') return;
  const indexes = await sql<{ indexname: string; indexdef: string }>`
    select indexname, indexdef from pg_indexes
    where schemaname = current_schema() and tablename = 'usage_events' and indexname <> 'usage_events_pkey'
    order by indexname`.execute(db);
  for (const index of indexes.rows) await sql`drop index ${sql.id(index.indexname)}`.execute(db);
  await sql`alter table usage_events drop constraint usage_events_pkey`.execute(db);
  await sql`alter table usage_events rename to usage_events_unpartitioned`.execute(db);
  await sql`create table usage_events (like usage_events_unpartitioned including defaults)
    partition by range (created_at)`.execute(db);
  await sql`alter table usage_events add constraint usage_events_pkey primary key (id, created_at)`.execute(db);

  const present = await sql<{ month: number | string }>`
    select distinct cast(extract(year from at) * 12 + extract(month from at) - 1 as integer) as month
    from (select to_timestamp(created_at / 1000.0) at time zone 'UTC' as at from usage_events_unpartitioned) as rows`.execute(
    db,
  );
  const current = new Date();
  const thisMonth = current.getUTCFullYear() * 12 + current.getUTCMonth();
  const months = new Set(present.rows.map((row) => Number(row.month)));
  for (let month = thisMonth; month <= thisMonth + MONTHS_AHEAD; month++) months.add(month);
  for (const month of [...months].sort((a, b) => a - b)) {
    const year = Math.floor(month / 12);
    const monthOfYear = month % 12;
    const name = `usage_events_p${year}${String(monthOfYear + 1).padStart(2, '0')}`;
    const from = Date.UTC(year, monthOfYear, 1);
    const to = Date.UTC(year, monthOfYear + 1, 1);
    await sql`create table ${sql.id(name)} partition of usage_events
      for values from (${sql.lit(from)}) to (${sql.lit(to)})`.execute(db);
  }
  await sql`create table usage_events_default partition of usage_events default`.execute(db);

  await sql`insert into usage_events select * from usage_events_unpartitioned`.execute(db);
  await sql`drop table usage_events_unpartitioned`.execute(db);
  for (const index of indexes.rows) await sql.raw(index.indexdef).execute(db);
}
