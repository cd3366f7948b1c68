import { sql, type Kysely } from 'kysely';
import type { Database } from '../store/schema.js';

/**
 * PostgreSQL's monthly partitions of usage_events (migration 0740): one per UTC month, named
 * usage_events_pYYYYMM, holding created_at (epoch ms) in [first ms of the month, first ms of the
 * next); usage_events_default takes a row whose month has none yet. SQLite has one table.
 */
export interface UsagePartition {
  name: string;
  /** First epoch ms of the month (inclusive). */
  from: number;
  /** First epoch ms of the next month (exclusive). */
  to: number;
}

type Db = Kysely<Database>;

const DEFAULT_PARTITION = 'usage_events_default';

/** Months are counted from year 0: year * 12 + month (0-based), as the migration does. */
function monthOf(epochMs: number): number {
  const date = new Date(epochMs);
  return date.getUTCFullYear() * 12 + date.getUTCMonth();
}

function partitionOf(month: number): UsagePartition {
  const year = Math.floor(month / 12);
  const monthOfYear = month % 12;
  return {
    name: `usage_events_p${year}${String(monthOfYear + 1).padStart(2, '0')}`,
    from: Date.UTC(year, monthOfYear, 1),
    to: Date.UTC(year, monthOfYear + 1, 1),
  };
}

/** The monthly partitions that exist, oldest first (the DEFAULT one is not listed). */
export async function listUsagePartitions(db: Db): Promise<UsagePartition[]> {
  const found = await sql<{ name: string }>`
    select child.relname as name from pg_inherits
    join pg_class child on child.oid = pg_inherits.inhrelid
    where pg_inherits.inhparent = to_regclass('usage_events')`.execute(db);
  const partitions: UsagePartition[] = [];
  for (const { name } of found.rows) {
    const match = /^usage_events_p(\d{4})(\d{2})$/.exec(name);
    if (match) partitions.push(partitionOf(Number(match[1]) * 12 + Number(match[2]) - 1));
  }
  return partitions.sort((a, b) => a.from - b.from);
}

/**
 * Creates the partitions of this month and the next `monthsAhead`, and of every month that has
 * rows in the DEFAULT partition (an insert for a month without a partition, e.g. a clock far
 * ahead or a worker that did not run): those rows move into their month, in the same transaction
 * (PostgreSQL refuses a new partition while DEFAULT holds rows of its range). Returns the names created.
 */
export async function ensureUsagePartitions(db: Db, now: number, monthsAhead = 2): Promise<string[]> {
  const existing = new Set((await listUsagePartitions(db)).map((partition) => partition.name));
  const stray = await sql<{ month: number | string }>`
    select distinct cast(extract(year from at) * 12 + extract(month from at) - 1 as integer) as month
    from (select to_timestamp(created_at / 1000.0) at time zone 'UTC' as at from ${sql.table(DEFAULT_PARTITION)}) as rows`.execute(
    db,
  );
  const months = new Set(stray.rows.map((row) => Number(row.month)));
  const current = monthOf(now);
  for (let month = current; month <= current + monthsAhead; month++) months.add(month);
  const created: string[] = [];
  for (const month of [...months].sort((a, b) => a - b)) {
    const partition = partitionOf(month);
    if (existing.has(partition.name)) continue;
    await db.transaction().execute(async (transaction) => {
      const bounds = sql`created_at >= ${sql.lit(partition.from)} and created_at < ${sql.lit(partition.to)}`;
      await sql`create temporary table usage_events_moving (like usage_events) on commit drop`.execute(transaction);
      await sql`with moved as (delete from ${sql.table(DEFAULT_PARTITION)} where ${bounds} returning *)
        insert into usage_events_moving select * from moved`.execute(transaction);
      await sql`create table ${sql.id(partition.name)} partition of usage_events
        for values from (${sql.lit(partition.from)}) to (${sql.lit(partition.to)})`.execute(transaction);
      await sql`insert into usage_events select * from usage_events_moving`.execute(transaction);
    });
    created.push(partition.name);
  }
  return created;
}

/** Drops the monthly partitions whose every row is older than `cutoff` (epoch ms); returns their names. */
export async function dropUsagePartitionsBefore(db: Db, cutoff: number): Promise<string[]> {
  const dropped: string[] = [];
  for (const partition of await listUsagePartitions(db)) {
    if (partition.to > cutoff) break;
    await sql`drop table ${sql.id(partition.name)}`.execute(db);
    dropped.push(partition.name);
  }
  return dropped;
}
