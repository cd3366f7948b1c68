import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Store } from '../../store/database.js';
import { InvalidRequestError, NotFoundError } from '../../shared/errors.js';
import { nanosToUsdNumber } from '../../metering/money.js';
import { decodeActivityCursor, encodeActivityCursor } from '../../metering/activity-cursor.js';
import {
  findActivity,
  iterateActivity,
  listActivity,
  type ActivityDetail,
  type ActivityFilter,
  type ActivityRow,
} from '../../metering/activity-query.js';
import {
  ACTIVITY_PAGE_DEFAULT,
  ActivityDetailSchema,
  ActivityPageSchema,
  ActivityQuerySchema,
  RequestIdParamsSchema,
  type ActivityQuery,
} from './activity-schemas.js';
import { activityCsvHeader, activityCsvLine } from './activity-csv.js';
import { typed } from '../../shared/typebox-type-provider.js';
import type { KeptContent } from '../../metering/request-content-log.js';

/** Reads a request's kept content (content logging); null when none was kept. */
export interface ContentReader {
  read(userId: string, requestId: string, createdAt: number): Promise<KeptContent | null>;
}

const DAY_MS = 86_400_000;
const errors = { 400: { $ref: 'ErrorEnvelope#' }, 401: { $ref: 'ErrorEnvelope#' } };

/** The list route's schema, shared by the user's and the admin's route. */
export function activityListSchema(summary: string, tags: string[]) {
  return {
    summary,
    tags,
    querystring: ActivityQuerySchema,
    response: {
      200: {
        description: 'A page of requests (JSON), or every matching request as CSV or JSON Lines (streamed)',
        content: {
          'application/json': { schema: ActivityPageSchema },
          'text/csv': { schema: { type: 'string', description: 'one header line, then one line per request' } },
          'application/x-ndjson': { schema: { type: 'string', description: 'one JSON object per line' } },
        },
      },
      ...errors,
    },
  };
}

export function activityDetailSchema(summary: string, tags: string[]) {
  return {
    summary,
    tags,
    params: RequestIdParamsSchema,
    response: { 200: ActivityDetailSchema, ...errors, 404: { $ref: 'ErrorEnvelope#' } },
  };
}

/** GET /api-account/user/activity and /user/activity/{request_id}: the signed-in user's requests. */
export function registerActivityRoutes(app: FastifyInstance, deps: { store: Store; content?: ContentReader }): void {
  typed(app).get(
    '/user/activity',
    {
      schema: activityListSchema('Your requests, one row each, newest first (JSON pages, or CSV / JSON Lines export)', [
        'usage',
      ]),
    },
    async (request, reply) => activityListResponse(deps.store, request.user!.id, request.query, reply),
  );
  typed(app).get(
    '/user/activity/:request_id',
    { schema: activityDetailSchema('One of your requests, with every upstream attempt', ['usage']) },
    async (request) => activityDetailResponse(deps.store, request.user!.id, request.params.request_id, deps.content),
  );
}

/** One page as JSON, or the whole filtered list streamed as CSV / JSON Lines (also the admin API's view). */
export async function activityListResponse(store: Store, userId: string, query: ActivityQuery, reply: FastifyReply) {
  const filter = activityFilter(query);
  if (query.format === 'csv' || query.format === 'jsonl') {
    const csv = query.format === 'csv';
    const rows = iterateActivity(store.db, userId, filter);
    async function* lines() {
      if (csv) yield activityCsvHeader();
      for await (const row of rows) yield csv ? activityCsvLine(row) : `${JSON.stringify(activityJson(row))}\n`;
    }
    return reply
      .type(csv ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8')
      .header('content-disposition', `attachment; filename="activity.${query.format}"`)
      .send(Readable.from(lines()));
  }
  const cursor = query.cursor === undefined ? undefined : decodeActivityCursor(query.cursor);
  const page = await listActivity(store.db, userId, filter, { limit: query.limit ?? ACTIVITY_PAGE_DEFAULT, cursor });
  return {
    data: page.rows.map(activityJson),
    next_cursor: page.next ? encodeActivityCursor(page.next) : null,
    has_more: page.next !== null,
    currency: 'USD' as const,
  };
}

/** One request with its attempts, and its kept content when its key keeps content (read for this user only). */
export async function activityDetailResponse(
  store: Store,
  userId: string,
  requestId: string,
  content: ContentReader | undefined,
) {
  const found = await findActivity(store.db, userId, requestId);
  if (!found) throw new NotFoundError(`No request ${requestId} in this account's activity.`, 'request_not_found');
  const kept = content ? await content.read(userId, found.requestId, found.createdAt) : null;
  return {
    ...activityJson(found),
    currency: 'USD' as const,
    attempts: attemptsJson(found),
    content: kept === null ? null : contentJson(kept),
  };
}

function contentJson(kept: KeptContent) {
  const body = (part: KeptContent['request']) => ({ text: part.text, bytes: part.bytes, truncated: part.truncated });
  return { request: body(kept.request), response: body(kept.response), response_type: kept.responseType };
}

function activityFilter(query: ActivityQuery): ActivityFilter {
  const from = query.start_date === undefined ? undefined : parseBound(query.start_date, 'start_date', 'start');
  const to = query.end_date === undefined ? undefined : parseBound(query.end_date, 'end_date', 'end');
  if (from !== undefined && to !== undefined && from >= to)
    throw new InvalidRequestError('start_date must be before end_date.', 'start_date', 'invalid_date_range');
  return {
    from,
    to,
    keyId: query.key_id,
    model: query.model,
    provider: query.provider,
    status: query.status,
    app: query.app,
  };
}

/** A day (YYYY-MM-DD, UTC; an end day is included) or an ISO 8601 instant, as epoch ms. */
function parseBound(text: string, param: string, side: 'start' | 'end'): number {
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (day) {
    const ms = Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3]));
    // Date.UTC rolls 2025-02-30 over to March; a real date formats back to itself.
    if (new Date(ms).toISOString().slice(0, 10) === text) return side === 'end' ? ms + DAY_MS : ms;
  } else if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(text)) {
    const ms = Date.parse(text);
    if (Number.isFinite(ms)) return ms;
  }
  throw new InvalidRequestError(`${param} must be a date (YYYY-MM-DD) or an ISO 8601 instant.`, param, 'invalid_date');
}

function activityJson(row: ActivityRow) {
  return {
    id: row.id,
    request_id: row.requestId,
    created_at: new Date(row.createdAt).toISOString(),
    key_id: row.keyId,
    key_name: row.keyName,
    requested_model: row.requestedModel,
    model: row.modelId,
    provider: row.providerId,
    upstream_model: row.upstreamModel,
    surface: row.surface,
    app: row.app,
    app_url: row.appUrl,
    streamed: row.streamed,
    prompt_tokens: row.promptTokens,
    cached_tokens: row.cachedTokens,
    cache_write_tokens: row.cacheWriteTokens,
    completion_tokens: row.completionTokens,
    reasoning_tokens: row.reasoningTokens,
    total_tokens: row.totalTokens,
    tokens_estimated: row.tokensEstimated,
    cost: nanosToUsdNumber(row.costNanos),
    cost_nanos: row.costNanos,
    latency_ms: row.latencyMs,
    time_to_first_token_ms: row.timeToFirstTokenMs,
    tokens_per_second: row.tokensPerSecond,
    status: row.status,
    error_code: row.errorCode,
    client_aborted: row.clientAborted,
    attempt_count: row.attemptCount,
  };
}

function attemptsJson(detail: ActivityDetail) {
  return detail.attempts.map((attempt) => ({
    provider: attempt.providerId,
    model: attempt.modelId,
    upstream_model: attempt.upstreamModel,
    status: attempt.status,
    error_code: attempt.errorCode ?? null,
    started_at: new Date(attempt.startedAt).toISOString(),
    latency_ms: attempt.latencyMs,
  }));
}
