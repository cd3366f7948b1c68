import { sql } from 'kysely';
import type { Store } from '../store/database.js';
import { ensureUsagePartitions } from '../metering/usage-partitions.js';

const MONTHS_AHEAD = 2;

/** What the activity benchmark seeds: `rows` requests over `users` accounts within `spanMs` before `now`. */
export interface ActivitySeed {
  rows: number;
  users: number;
  now: number;
  spanMs: number;
}

/** The busiest account: every tenth request is its own, the rest spread evenly over the others. */
export const HEAVY_USER = 'u0';
/** One of the heavy account's five keys, for the filtered page. */
export const HEAVY_KEY = 'k0_1';

/** Rows per statement: one transaction each (SQLite's single writer commits less often with more). */
const CHUNK: Record<Store['dialect'], number> = { sqlite: 500_000, postgres: 250_000 };
/** PostgreSQL statements in flight at once (the pool has 4 connections; each routes rows into their month). */
const POSTGRES_PARALLEL = 2;

/**
 * Fills usage_events inside the database (generate_series on PostgreSQL, a recursive CTE on
 * SQLite), in time order as a live gateway writes them. As a restore would, the rows are loaded
 * before the secondary indexes: those of the migrations are dropped, the rows loaded, and the same
 * indexes (their definitions read back from the catalog) built once over the loaded table; the
 * primary key stays throughout. SQLite's bench file skips fsync while loading. Row g: user u0
 * when g % 10 = 0, else one of the others. Everything else is drawn from h = g / 10, so that the
 * busiest account's rows vary too: 5 keys for u0; 20 models on 6 providers; one request in 20
 * answered 429 rate_limited, one in 200 a 502 upstream_error; one in 7 sent an X-Title.
 */
export async function seedActivity(
  store: Store,
  seed: ActivitySeed,
  progress: (done: number) => void = () => {},
): Promise<void> {
  // PostgreSQL: every month of the span gets its partition first, as the usage maintenance worker makes them ahead.
  if (store.dialect === 'postgres') {
    const start = new Date(seed.now - seed.spanMs);
    const end = new Date(seed.now);
    const months =
      (end.getUTCFullYear() - start.getUTCFullYear()) * 12 + end.getUTCMonth() - start.getUTCMonth() + MONTHS_AHEAD;
    await ensureUsagePartitions(store.db, start.getTime(), months);
  }
  const indexes = await secondaryIndexes(store);
  for (const index of indexes) await sql`drop index ${sql.id(index.name)}`.execute(store.db);
  if (store.dialect === 'sqlite') await sql`pragma synchronous = off`.execute(store.db);
  const chunk = CHUNK[store.dialect];
  const chunks: number[] = [];
  for (let first = 0; first < seed.rows; first += chunk) chunks.push(first);
  let done = 0;
  const worker = async () => {
    for (let first = chunks.shift(); first !== undefined; first = chunks.shift()) {
      const last = Math.min(seed.rows, first + chunk) - 1;
      await insertChunk(store, seed, first, last);
      done += last - first + 1;
      progress(done);
    }
  };
  await Promise.all(Array.from({ length: store.dialect === 'postgres' ? POSTGRES_PARALLEL : 1 }, worker));
  if (store.dialect === 'sqlite') await sql`pragma synchronous = normal`.execute(store.db);
  // One connection, so that the session's sort memory applies to every index it builds.
  await store.db.connection().execute(async (connection) => {
    if (store.dialect === 'postgres') await sql`set maintenance_work_mem = '256MB'`.execute(connection);
    // A partitioned table's index reads back as `ON ONLY usage_events` (the parent alone): build it on every partition.
    for (const index of indexes) await sql.raw(index.definition.replace(' ON ONLY ', ' ON ')).execute(connection);
    // Fresh planner statistics after a bulk load, as autovacuum (PostgreSQL) or `PRAGMA optimize` would.
    await sql`analyze`.execute(connection);
    if (store.dialect === 'postgres') await sql`reset maintenance_work_mem`.execute(connection);
  });
}

/** The indexes of usage_events besides its primary key, with the statement that creates each. */
async function secondaryIndexes(store: Store): Promise<{ name: string; definition: string }[]> {
  const found =
    store.dialect === 'postgres'
      ? await sql<{ name: string; definition: string }>`select indexname as name, indexdef as definition
          from pg_indexes where schemaname = current_schema() and tablename = 'usage_events'
          and indexname <> 'usage_events_pkey' order by indexname`.execute(store.db)
      : await sql<{ name: string; definition: string }>`select name, sql as definition from sqlite_master
          where type = 'index' and tbl_name = 'usage_events' and sql is not null order by name`.execute(store.db);
  return found.rows;
}

async function insertChunk(store: Store, seed: ActivitySeed, first: number, last: number): Promise<void> {
  const start = seed.now - seed.spanMs;
  const step = seed.spanMs / seed.rows;
  const others = Math.max(1, seed.users - 1);
  {
    const source =
      store.dialect === 'postgres'
        ? sql`select g from generate_series(${sql.lit(first)}::bigint, ${sql.lit(last)}::bigint) as g`
        : sql`select g from seq`;
    const prefix =
      store.dialect === 'postgres'
        ? sql``
        : sql`with recursive seq(g) as (select ${sql.lit(first)} union all select g + 1 from seq where g < ${sql.lit(last)}) `;
    const user = sql`case when g % 10 = 0 then 'u0' else 'u' || (1 + g % ${sql.lit(others)}) end`;
    await sql`${prefix}insert into usage_events (id, request_id, user_id, key_id, requested_model, model_id,
        provider_id, upstream_model, prompt_tokens, completion_tokens, total_tokens, cost_nanos, latency_ms,
        time_to_first_token_ms, status, error_code, streamed, attempt_count, attempts, created_at, surface, app)
      select 'evt_' || g, 'req_' || g, ${user},
        case when g % 10 = 0 then 'k0_' || (h % 5) else 'k' || (1 + g % ${sql.lit(others)}) end,
        'model-' || (h % 20), 'model-' || (h % 20), 'provider-' || (h % 6), 'upstream-' || (h % 20),
        100 + g % 900, 20 + g % 400, 120 + g % 900 + g % 400, 1000 * (g % 5000), 200 + g % 3000,
        case when g % 2 = 0 then 80 + g % 500 else null end,
        case when h % 20 = 3 then 429 when h % 200 = 7 then 502 else 200 end,
        case when h % 20 = 3 then 'rate_limited' when h % 200 = 7 then 'upstream_error' else null end,
        g % 2, 1 + (case when h % 200 = 7 then 2 else 0 end),
        '[{"providerId":"provider-' || (h % 6) || '","modelId":"model-' || (h % 20) || '","upstreamModel":"upstream","status":200,"errorCode":null,"startedAt":0,"latencyMs":100}]',
        ${sql.lit(Math.floor(start))} + cast(g * ${sql.lit(step)} as bigint), 'chat',
        case when h % 7 = 0 then 'Plum Notes' else null end
      from (select g, g / 10 as h from (${source}) as series) as numbers`.execute(store.db);
  }
}
