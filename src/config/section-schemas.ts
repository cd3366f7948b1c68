import { Type } from '@sinclair/typebox';
import { withDefault } from './config-section.js';

/**
 * The schemas of the feature sections of gateway.config.yaml, one per section: each setting's type,
 * range, default and wording of its problem are written here once. Features read their section with
 * `settleConfigSection(name, config.sections.<name>, <Schema>)` (config-section.ts), the same path
 * as the rest of the file, and derive what they need from the settled value. Unknown fields of a
 * section are kept (a section may carry settings a later version reads).
 */

/** Amounts are decimal strings or numbers in the currency (exact: parsed by shared/decimal.ts). */
const Amount = (minimum: { minimum?: number; exclusiveMinimum?: number; maximum?: number }) =>
  Type.Union([Type.Number(minimum), Type.String()]);

const SellerSchema = Type.Object(
  {
    name: withDefault(Type.String({ minLength: 1, maxLength: 200 }), 'LLM Gateway'),
    address: withDefault(Type.Array(Type.String({ maxLength: 200 }), { maxItems: 8 }), []),
    email: withDefault(Type.String({ maxLength: 200 }), ''),
    tax_id: withDefault(Type.String({ maxLength: 100 }), ''),
  },
  { additionalProperties: false },
);

/** `billing:`: what credits cost, who takes payments, and whether requests need credit (metering). */
export const BillingSectionSchema = Type.Object(
  {
    plan: withDefault(Type.String({ minLength: 1, maxLength: 100 }), 'pay-as-you-go'),
    /** Charged on top of each purchase: an order for `amount` credits costs amount × (1 + fee_rate). */
    platform_fee_rate: withDefault(Amount({ minimum: 0, maximum: 1 }), '0'),
    min_amount: withDefault(Amount({ exclusiveMinimum: 0 }), '5'),
    max_amount: withDefault(Amount({ exclusiveMinimum: 0 }), '10000'),
    /** Accepted currencies (ISO 4217, lower case) and what one unit is worth in USD credits. */
    currencies: withDefault(Type.Record(Type.String(), Amount({ exclusiveMinimum: 0 })), { usd: '1' }),
    seller: withDefault(SellerSchema, {}),
    document_link_ttl_seconds: withDefault(Type.Integer({ minimum: 60, maximum: 7 * 24 * 3600 }), 3600),
    /** Metering: hold before, charge after, refuse (402) what the balance cannot cover (CONTRACT §5). */
    require_credits: withDefault(Type.Boolean(), true),
    /** Metering: output held for when neither the request nor the model bounds it. */
    default_max_output_tokens: withDefault(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), 4096),
    /**
     * Who takes payments. Unset: Stripe when STRIPE_SECRET_KEY is set, else none (create-checkout
     * answers 503). `sandbox` (development and demos: no money moves) must be asked for by name.
     */
    payment_provider: Type.Optional(
      Type.Union([Type.Literal('stripe'), Type.Literal('sandbox'), Type.Literal('none')]),
    ),
    /** The sandbox is refused under NODE_ENV=production unless this is true (a public demo). */
    allow_sandbox_in_production: withDefault(Type.Boolean(), false),
  },
  { additionalProperties: true },
);

/** `limits:`: how limits and credit holds behave around Redis and the store. */
export const LimitsSectionSchema = Type.Object(
  {
    /** What happens to limits and holds when Redis fails. */
    redis_failure_mode: withDefault(Type.Union([Type.Literal('open'), Type.Literal('closed')]), 'open'),
    /** How long a hold counts if its instance dies before settling. */
    hold_ttl_ms: withDefault(Type.Integer({ minimum: 1000, maximum: Number.MAX_SAFE_INTEGER }), 15 * 60_000),
    /** Where settlements wait on disk while the store is down (default beside the SQLite file, or ./data). */
    settlement_spill_file: Type.Optional(Type.String({ minLength: 1 })),
    /** How long a dead instance's unwritten settlements wait before another instance writes them. */
    settlement_claim_ms: withDefault(Type.Integer({ minimum: 100, maximum: Number.MAX_SAFE_INTEGER }), 30_000),
    /** Part of a user's free balance each instance may spend while Redis does not answer (fail-open). */
    outage_lease_fraction: withDefault(Type.Number({ minimum: 0, maximum: 0.5 }), 0.25),
    /** With Redis (fail-open, a lease): admit requests from this instance's lease without a round trip. */
    local_admission: withDefault(Type.Boolean(), true),
  },
  { additionalProperties: true },
);

const RoutingTemplateSchema = Type.Object(
  {
    id: Type.String({ pattern: '^[a-zA-Z0-9][a-zA-Z0-9._-]*$', maxLength: 64 }),
    name: Type.String({ minLength: 1, maxLength: 100 }),
    description: Type.Optional(Type.String({ maxLength: 1000 })),
    default_models: Type.Array(
      Type.Object(
        { model_id: Type.String({ minLength: 1, maxLength: 200 }), priority: Type.Integer({ minimum: 1 }) },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 50 },
    ),
  },
  { additionalProperties: false },
);

/** `routing:`: retries, deadlines, breakers and the routing templates API keys can start from. */
export const RoutingSectionSchema = Type.Object(
  {
    /** One deadline for the whole request, every attempt and wait included. Default: the largest total_ms of the providers tried. */
    request_timeout_ms: Type.Optional(Type.Integer({ minimum: 1 })),
    /** Extra rounds over the candidate list after every candidate failed. */
    retries: withDefault(Type.Integer({ minimum: 0, maximum: 10 }), 1),
    backoff_base_ms: withDefault(Type.Integer({ minimum: 0 }), 250),
    backoff_max_ms: withDefault(Type.Integer({ minimum: 0 }), 4000),
    circuit_breaker: withDefault(
      Type.Object(
        {
          failure_threshold: withDefault(Type.Integer({ minimum: 1 }), 3),
          cooldown_ms: withDefault(Type.Integer({ minimum: 1 }), 30_000),
        },
        { additionalProperties: false },
      ),
      {},
    ),
    templates: withDefault(Type.Array(RoutingTemplateSchema), []),
    /** false: serve only the templates of the config file. */
    builtin_templates: withDefault(Type.Boolean(), true),
  },
  { additionalProperties: true },
);

/** `catalog:`. */
export const CatalogSectionSchema = Type.Object(
  {
    /** How long a statistics answer is reused; 0 computes every answer afresh (the statistics benchmark measures both). */
    stats_cache_ms: withDefault(Type.Integer({ minimum: 0 }), 5000),
  },
  { additionalProperties: true },
);

/** `metrics:`: Prometheus metrics. */
export const MetricsSectionSchema = Type.Object(
  {
    enabled: withDefault(Type.Boolean({ problem: 'must be true or false' }), true),
    path: withDefault(
      Type.String({ pattern: '^/[\\w./-]*$', problem: 'must be a URL path such as /metrics' }),
      '/metrics',
    ),
    /** When set, a scrape must send `Authorization: Bearer <token>`. */
    bearer_token: Type.Optional(Type.String({ problem: 'must be a string' })),
    /** Serve metrics on this port only (an admin port), not on the API port. */
    port: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535, problem: 'must be an integer from 0 to 65535' })),
    /** The admin port's address (default: server.host). */
    host: Type.Optional(Type.String({ minLength: 1, problem: 'must be a host name or address' })),
  },
  { additionalProperties: true },
);

/** `tracing:`: OpenTelemetry traces; standard OTEL_* variables fill what it leaves out. */
export const TracingSectionSchema = Type.Object(
  {
    /** Default: on when an endpoint is configured (here or OTEL_EXPORTER_OTLP_*ENDPOINT). */
    enabled: Type.Optional(Type.Boolean({ problem: 'must be true or false' })),
    endpoint: Type.Optional(
      Type.String({ pattern: '^https?://', problem: 'must be an http(s) URL, e.g. http://127.0.0.1:4318/v1/traces' }),
    ),
    service_name: Type.Optional(Type.String({ minLength: 1, problem: 'must be a non-empty string' })),
    /** Extra headers sent to the collector (auth tokens). */
    headers: withDefault(
      Type.Record(Type.String(), Type.Unknown(), { problem: 'must map header names to strings' }),
      {},
    ),
    /** Fraction of requests traced. */
    sample_ratio: withDefault(Type.Number({ minimum: 0, maximum: 1, problem: 'must be a number from 0 to 1' }), 1),
  },
  { additionalProperties: true },
);

/**
 * `activity:`: the per-request usage rows (usage_events) behind the activity list, and the request
 * log's content logging (kept only for keys with `log_content` on).
 */
export const ActivitySectionSchema = Type.Object(
  {
    /** Usage rows older than this many days are deleted (whole months at once on PostgreSQL); 0 keeps every row. */
    retention_days: withDefault(
      Type.Integer({ minimum: 0, problem: 'must be a whole number of days, 0 or more (0 keeps every row)' }),
      0,
    ),
    /** Each body (request, answer) is kept up to this many bytes before compression; the rest is cut. */
    content_max_bytes: withDefault(
      Type.Integer({ minimum: 1024, maximum: 16_777_216, problem: 'must be an integer from 1024 to 16777216' }),
      65_536,
    ),
    /** Kept content is erased this many days after its request. */
    content_retention_days: withDefault(
      Type.Integer({ minimum: 1, maximum: 3650, problem: 'must be an integer from 1 to 3650 (days)' }),
      30,
    ),
  },
  { additionalProperties: true },
);
