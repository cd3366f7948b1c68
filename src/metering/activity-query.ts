import { sql, type ExpressionBuilder, type Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import type { AttemptRecord } from '../routing/completion-outcome.js';
import type { ActivityCursor } from './activity-cursor.js';
import './metering-schema.js';

/** Which rows of one user's activity: every field optional; `status` is ok, error, an HTTP status or an error code. */
export interface ActivityFilter {
  /** Epoch ms, inclusive. */
  from?: number;
  /** Epoch ms, exclusive. */
  to?: number;
  keyId?: string;
  model?: string;
  provider?: string;
  status?: string;
  app?: string;
}

/** One request as the activity list shows it; money in integer nano-USD. */
export interface ActivityRow {
  id: string;
  requestId: string;
  createdAt: number;
  keyId: string | null;
  keyName: string | null;
  requestedModel: string;
  modelId: string | null;
  providerId: string | null;
  upstreamModel: string | null;
  surface: string | null;
  app: string | null;
  appUrl: string | null;
  streamed: boolean;
  promptTokens: number;
  cachedTokens: number;
  cacheWriteTokens: number;
  completionTokens: number;
  reasoningTokens: number;
  totalTokens: number;
  tokensEstimated: boolean;
  costNanos: number;
  latencyMs: number;
  timeToFirstTokenMs: number | null;
  tokensPerSecond: number | null;
  status: number;
  errorCode: string | null;
  clientAborted: boolean;
  attemptCount: number;
}

export interface ActivityDetail extends ActivityRow {
  attempts: AttemptRecord[];
}

type Db = Kysely<Database>;

const COLUMNS = [
  'usage_events.id',
  'usage_events.request_id',
  'usage_events.created_at',
  'usage_events.key_id',
  'api_keys.name as key_name',
  'usage_events.requested_model',
  'usage_events.model_id',
  'usage_events.provider_id',
  'usage_events.upstream_model',
  'usage_events.surface',
  'usage_events.app',
  'usage_events.app_url',
  'usage_events.streamed',
  'usage_events.prompt_tokens',
  'usage_events.cached_tokens',
  'usage_events.cache_write_tokens',
  'usage_events.completion_tokens',
  'usage_events.reasoning_tokens',
  'usage_events.total_tokens',
  'usage_events.tokens_estimated',
  'usage_events.cost_nanos',
  'usage_events.latency_ms',
  'usage_events.time_to_first_token_ms',
  'usage_events.tokens_per_second',
  'usage_events.status',
  'usage_events.error_code',
  'usage_events.client_aborted',
  'usage_events.attempt_count',
] as const;

/**
 * One page of a user's requests, newest first, after `cursor` (exclusive). Every filter is an
 * equality or range on a column that an index of migration 0700 leads with (user_id, column),
 * so the page is one range scan; `limit + 1` rows are read to know whether another page exists.
 */
export async function listActivity(
  db: Db,
  userId: string,
  filter: ActivityFilter,
  page: { limit: number; cursor?: ActivityCursor },
): Promise<{ rows: ActivityRow[]; next: ActivityCursor | null }> {
  let query = filtered(db, userId, filter);
  if (page.cursor) {
    const { createdAt, id } = page.cursor;
    // `created_at <= c` alone bounds the index range; the OR then drops the rows of c at or after
    // the cursor's id. Without the bound, PostgreSQL walked the index from the newest row and
    // filtered its way down to the cursor (deep page p50 29 ms, 10,000 rows in).
    query = query
      .where('usage_events.created_at', '<=', createdAt)
      .where((eb) =>
        eb.or([
          eb('usage_events.created_at', '<', createdAt),
          eb.and([eb('usage_events.created_at', '=', createdAt), eb('usage_events.id', '<', id)]),
        ]),
      );
  }
  const found = await query
    .orderBy('usage_events.created_at', 'desc')
    .orderBy('usage_events.id', 'desc')
    .limit(page.limit + 1)
    .execute();
  const rows = found.slice(0, page.limit).map(toActivityRow);
  const last = rows.at(-1);
  return { rows, next: found.length > page.limit && last ? { createdAt: last.createdAt, id: last.id } : null };
}

/**
 * Every matching row, newest first, read `batch` rows at a time by keyset: an export of a
 * million rows holds one batch in memory, and the stream's consumer sets the pace.
 */
export async function* iterateActivity(
  db: Db,
  userId: string,
  filter: ActivityFilter,
  batch = 1000,
): AsyncGenerator<ActivityRow> {
  let cursor: ActivityCursor | undefined;
  for (;;) {
    const page = await listActivity(db, userId, filter, { limit: batch, cursor });
    yield* page.rows;
    if (!page.next) return;
    cursor = page.next;
  }
}

/**
 * One of the user's requests with its attempts, by the request id the gateway answered with
 * (x-request-id) or by the event's own id. A client may send the same x-request-id twice: the
 * newest such request is the one returned.
 */
export async function findActivity(db: Db, userId: string, requestId: string): Promise<ActivityDetail | null> {
  const base = () => selectRows(db).where('usage_events.user_id', '=', userId);
  const row =
    (await base()
      .select('usage_events.attempts')
      .where('usage_events.request_id', '=', requestId)
      .orderBy('usage_events.created_at', 'desc')
      .orderBy('usage_events.id', 'desc')
      .limit(1)
      .executeTakeFirst()) ??
    (await base().select('usage_events.attempts').where('usage_events.id', '=', requestId).executeTakeFirst());
  if (!row) return null;
  return { ...toActivityRow(row), attempts: parseAttempts(row.attempts) };
}

function selectRows(db: Db) {
  return db.selectFrom('usage_events').leftJoin('api_keys', 'api_keys.id', 'usage_events.key_id').select(COLUMNS);
}

function filtered(db: Db, userId: string, filter: ActivityFilter) {
  let query = selectRows(db).where('usage_events.user_id', '=', userId);
  if (filter.from !== undefined) query = query.where('usage_events.created_at', '>=', filter.from);
  if (filter.to !== undefined) query = query.where('usage_events.created_at', '<', filter.to);
  if (filter.keyId !== undefined) query = query.where('usage_events.key_id', '=', filter.keyId);
  if (filter.model !== undefined) query = query.where('usage_events.model_id', '=', filter.model);
  if (filter.provider !== undefined) query = query.where('usage_events.provider_id', '=', filter.provider);
  if (filter.app !== undefined) query = query.where('usage_events.app', '=', filter.app);
  if (filter.status !== undefined) query = query.where((eb) => statusCondition(eb, filter.status!));
  return query;
}

type Builder = ExpressionBuilder<Database & { api_keys: Database['api_keys'] }, 'usage_events' | 'api_keys'>;

/**
 * The failures as the partial index of migration 0701 states them: a literal, not a parameter,
 * so that SQLite's planner sees the query imply the index's WHERE and can use it.
 */
const FAILED = sql<boolean>`usage_events.status >= 400`;

/** ok: answered below 400; error: 400 and above; three digits: that HTTP status; anything else: that error code. */
function statusCondition(eb: Builder, status: string) {
  if (status === 'ok') return eb('usage_events.status', '<', 400);
  if (status === 'error') return FAILED;
  if (/^[1-5]\d\d$/.test(status)) {
    const code = Number(status);
    return code >= 400 ? eb.and([FAILED, eb('usage_events.status', '=', code)]) : eb('usage_events.status', '=', code);
  }
  return eb('usage_events.error_code', '=', status);
}

function parseAttempts(text: string): AttemptRecord[] {
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? (parsed as AttemptRecord[]) : [];
  } catch {
    return [];
  }
}

type Selected = Awaited<ReturnType<ReturnType<typeof selectRows>['executeTakeFirstOrThrow']>>;

// PostgreSQL returns bigint as text: every count goes through Number().
function toActivityRow(row: Selected): ActivityRow {
  return {
    id: row.id,
    requestId: row.request_id,
    createdAt: Number(row.created_at),
    keyId: row.key_id,
    keyName: row.key_name ?? null,
    requestedModel: row.requested_model,
    modelId: row.model_id,
    providerId: row.provider_id,
    upstreamModel: row.upstream_model,
    surface: row.surface ?? null,
    app: row.app ?? null,
    appUrl: row.app_url ?? null,
    streamed: Number(row.streamed) === 1,
    promptTokens: Number(row.prompt_tokens),
    cachedTokens: Number(row.cached_tokens),
    cacheWriteTokens: Number(row.cache_write_tokens ?? 0),
    completionTokens: Number(row.completion_tokens),
    reasoningTokens: Number(row.reasoning_tokens),
    totalTokens: Number(row.total_tokens),
    tokensEstimated: Number(row.tokens_estimated) === 1,
    costNanos: Number(row.cost_nanos),
    latencyMs: Number(row.latency_ms),
    timeToFirstTokenMs: row.time_to_first_token_ms === null ? null : Number(row.time_to_first_token_ms),
    tokensPerSecond: row.tokens_per_second === null ? null : Number(row.tokens_per_second),
    status: Number(row.status),
    errorCode: row.error_code,
    clientAborted: Number(row.client_aborted) === 1,
    attemptCount: Number(row.attempt_count),
  };
}
