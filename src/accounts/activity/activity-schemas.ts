import { Type, type Static } from '@sinclair/typebox';
import { limitParameter } from '../paging-schemas.js';

const ACTIVITY_PAGE_MAX = 200;
export const ACTIVITY_PAGE_DEFAULT = 50;

const Nullable = <T extends ReturnType<typeof Type.String | typeof Type.Integer | typeof Type.Number>>(schema: T) =>
  Type.Union([schema, Type.Null()]);
const text = (description: string) => Type.Optional(Type.String({ minLength: 1, maxLength: 200, description }));

export const ActivityQuerySchema = Type.Object(
  {
    start_date: text('from this UTC day (YYYY-MM-DD) or instant (ISO 8601), included'),
    end_date: text('to this UTC day (YYYY-MM-DD, included) or instant (ISO 8601, excluded)'),
    key_id: text('only requests made with this key'),
    model: text('only requests served by this model id'),
    provider: text('only requests served by this provider id'),
    status: text('ok (answered below 400), error (400 and above), an HTTP status such as 429, or an error code'),
    app: text('only requests whose client named itself so in X-Title'),
    cursor: Type.Optional(
      Type.String({ maxLength: 400, description: 'next_cursor of the previous page; absent for the first page' }),
    ),
    limit: limitParameter(ACTIVITY_PAGE_MAX, ACTIVITY_PAGE_DEFAULT),
    format: Type.Optional(
      Type.Union([Type.Literal('json'), Type.Literal('csv'), Type.Literal('jsonl')], {
        description:
          'json: one page; csv or jsonl: every matching request (no paging), streamed as text/csv or application/x-ndjson',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ActivityQuery = Static<typeof ActivityQuerySchema>;

const AttemptSchema = Type.Object({
  provider: Type.String(),
  model: Type.String(),
  upstream_model: Type.String(),
  status: Type.Integer({ description: 'HTTP status of this attempt' }),
  error_code: Nullable(Type.String()),
  started_at: Type.String({ description: 'ISO 8601' }),
  latency_ms: Type.Number(),
});

const activityFields = {
  id: Type.String({ description: 'the usage event id' }),
  request_id: Type.String({ description: 'the x-request-id the gateway answered with' }),
  created_at: Type.String({ description: 'when the request started, ISO 8601' }),
  key_id: Nullable(Type.String()),
  key_name: Nullable(Type.String()),
  requested_model: Type.String({ description: 'the model the client asked for' }),
  model: Nullable(Type.String({ description: 'the model that served it (or was last tried)' })),
  provider: Nullable(Type.String()),
  upstream_model: Nullable(Type.String({ description: "the provider's own model name" })),
  surface: Nullable(Type.String({ description: 'chat, responses, messages, embeddings, …' })),
  app: Nullable(Type.String({ description: 'the client app (X-Title)' })),
  app_url: Nullable(Type.String({ description: 'the client app URL (HTTP-Referer)' })),
  streamed: Type.Boolean(),
  prompt_tokens: Type.Integer(),
  cached_tokens: Type.Integer(),
  cache_write_tokens: Type.Integer(),
  completion_tokens: Type.Integer(),
  reasoning_tokens: Type.Integer(),
  total_tokens: Type.Integer(),
  tokens_estimated: Type.Boolean({ description: 'the provider reported no usage: the tokens are our estimate' }),
  cost: Type.Number({ description: 'USD (for display)' }),
  cost_nanos: Type.Integer({ description: 'exact nano-USD charged' }),
  latency_ms: Type.Integer(),
  time_to_first_token_ms: Nullable(Type.Integer()),
  tokens_per_second: Nullable(Type.Number()),
  status: Type.Integer({ description: 'the HTTP status the client was answered with' }),
  error_code: Nullable(Type.String()),
  client_aborted: Type.Boolean(),
  attempt_count: Type.Integer({ description: 'upstream attempts (providers tried, retries)' }),
};

const ActivityRowSchema = Type.Object(activityFields);

export const ActivityPageSchema = Type.Object({
  data: Type.Array(ActivityRowSchema),
  next_cursor: Nullable(Type.String({ description: 'pass as cursor for the next (older) page; null on the last' })),
  has_more: Type.Boolean(),
  currency: Type.Literal('USD'),
});

const KeptBodySchema = Type.Object({
  text: Type.String({ description: 'the body as UTF-8 text, up to the cap (a stream: its SSE events as sent)' }),
  bytes: Type.Integer({ description: 'the whole body size in bytes, before the cap' }),
  truncated: Type.Boolean({ description: 'the body was longer than the cap (activity.content_max_bytes) and was cut' }),
});

const KeptContentSchema = Type.Object(
  {
    request: KeptBodySchema,
    response: KeptBodySchema,
    response_type: Nullable(Type.String({ description: "the answer's content type" })),
  },
  { description: "The request and answer bodies, kept when the request's key has log_content on" },
);

export const ActivityDetailSchema = Type.Object({
  ...activityFields,
  currency: Type.Literal('USD'),
  attempts: Type.Array(AttemptSchema),
  content: Type.Union([KeptContentSchema, Type.Null()], {
    description: 'null: the key did not keep content, or it was erased (retention)',
  }),
});

export const RequestIdParamsSchema = Type.Object({
  request_id: Type.String({ minLength: 1, maxLength: 200, description: 'the x-request-id, or the event id' }),
});
