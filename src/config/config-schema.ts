import { Type, type Static } from '@sinclair/typebox';
import { withDefault } from './config-section.js';

// A setting's default is written once, beside its type and range (`withDefault`); load-config.ts
// fills them in, so what the app runs on has every defaulted setting present.

/** Prices in USD per million tokens (per_request and per_search: USD each). */
const Pricing = Type.Object(
  {
    prompt: Type.Number({ minimum: 0 }),
    /** Required for chat models (load-config checks it); an embedding model has no completion. */
    completion: Type.Optional(Type.Number({ minimum: 0 })),
    cache_read: Type.Optional(Type.Number({ minimum: 0 })),
    cache_write: Type.Optional(Type.Number({ minimum: 0 })),
    per_request: Type.Optional(Type.Number({ minimum: 0 })),
    per_search: Type.Optional(Type.Number({ minimum: 0 })),
  },
  { additionalProperties: false },
);

export const TimeoutsSchema = Type.Object(
  {
    connect_ms: withDefault(Type.Integer({ minimum: 1 }), 10_000),
    first_byte_ms: withDefault(Type.Integer({ minimum: 1 }), 60_000),
    idle_ms: withDefault(Type.Integer({ minimum: 1 }), 60_000),
    total_ms: withDefault(Type.Integer({ minimum: 1 }), 600_000),
  },
  { additionalProperties: false },
);

const Id = Type.String({
  pattern: '^[a-zA-Z0-9][a-zA-Z0-9._-]*$',
  maxLength: 64,
});

export const ProviderConfigSchema = Type.Object(
  {
    id: Id,
    name: Type.Optional(Type.String({ minLength: 1 })),
    /** Wire protocol. Defaults to the preset's, or `openai`. */
    type: Type.Optional(Type.String({ minLength: 1 })),
    /** A preset name (groq, together, …) supplying type, base_url and the credential variable. */
    preset: Type.Optional(Type.String({ minLength: 1 })),
    base_url: Type.Optional(Type.String({ pattern: '^https?://' })),
    api_key: Type.Optional(Type.String()),
    headers: withDefault(Type.Record(Type.String(), Type.String()), {}),
    timeouts: withDefault(TimeoutsSchema, {}),
    max_connections: withDefault(Type.Integer({ minimum: 1, maximum: 10000 }), 256),
    /** Protocol-specific settings (Azure api_version, Bedrock region and credentials, …). */
    options: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    /** Shown on the provider page: data policies. */
    policies: withDefault(Type.Record(Type.String(), Type.Unknown()), {}),
  },
  { additionalProperties: false },
);

const EndpointConfigSchema = Type.Object(
  {
    provider: Type.String({ minLength: 1 }),
    upstream_model: Type.String({ minLength: 1 }),
    pricing: Type.Optional(Pricing),
    context_length: Type.Optional(Type.Integer({ minimum: 1 })),
    max_output_tokens: Type.Optional(Type.Integer({ minimum: 1 })),
    priority: Type.Optional(Type.Integer({ minimum: 0 })),
    weight: withDefault(Type.Number({ exclusiveMinimum: 0 }), 1),
    supports_search: withDefault(Type.Boolean(), false),
  },
  { additionalProperties: false },
);

export const ModelConfigSchema = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 200, pattern: '^[^\\s]+$' }),
    name: Type.Optional(Type.String({ minLength: 1 })),
    description: withDefault(Type.String(), ''),
    author: Type.Optional(Type.String()),
    created: withDefault(Type.Integer({ minimum: 0 }), 0),
    input_modalities: withDefault(Type.Array(Type.String()), ['text']),
    output_modalities: withDefault(Type.Array(Type.String()), ['text']),
    capabilities: withDefault(Type.Array(Type.String()), []),
    tags: withDefault(Type.Array(Type.String()), []),
    endpoints: Type.Array(EndpointConfigSchema, { minItems: 1 }),
  },
  { additionalProperties: false },
);

export const ServerConfigSchema = Type.Object(
  {
    host: withDefault(Type.String({ minLength: 1 }), '127.0.0.1'),
    port: withDefault(Type.Integer({ minimum: 0, maximum: 65535 }), 8080),
    body_limit_bytes: withDefault(Type.Integer({ minimum: 1024 }), 10 * 1024 * 1024),
    /** Deepest nesting of arrays and objects a JSON body may have (400 above). */
    max_json_depth: withDefault(Type.Integer({ minimum: 8, maximum: 10000 }), 64),
    /** The whole request (headers and body) must arrive within this; a trickled body is cut. */
    request_timeout_ms: withDefault(Type.Integer({ minimum: 1000 }), 30_000),
    /** A streamed answer whose client stops reading for this long is closed. */
    stream_write_stall_ms: withDefault(Type.Integer({ minimum: 100 }), 30_000),
    /** Parameters a translated endpoint cannot express: dropped and named in x-gateway-dropped-params, or refused. */
    unsupported_params: withDefault(Type.Union([Type.Literal('drop'), Type.Literal('refuse')]), 'drop'),
    /** Every answer reports its cost (usage.cost), asked or not (default: only when the body has usage.include). */
    include_cost: withDefault(Type.Boolean(), false),
    shutdown_grace_ms: withDefault(Type.Integer({ minimum: 0 }), 10_000),
    /** How far V8's old generation may grow past the live heap, in percent (0: V8's own heuristics). */
    heap_growth_percent: withDefault(Type.Integer({ minimum: 0, maximum: 1000 }), 50),
    log_level: withDefault(
      Type.Union(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((level) => Type.Literal(level))),
      'info',
    ),
    /** Public base URL, used in links the gateway hands out (checkout pages, documents). */
    public_url: Type.Optional(Type.String({ pattern: '^https?://' })),
    /** Browser origins allowed to call /api-account/* with cookies (CORS); /v1/* allows any origin. */
    cors_origins: withDefault(
      Type.Array(Type.String({ pattern: '^https?://[^/]+$' }), {
        maxItems: 64,
      }),
      [],
    ),
    /**
     * Which proxies' X-Forwarded-For / -Proto / -Host to believe (Fastify's trustProxy): false (default:
     * the socket's peer is the client), true (any: only behind a proxy that overwrites them), a hop count,
     * or a list of proxy addresses and CIDR ranges. Decides the client address sign-in limits key on.
     */
    trust_proxy: withDefault(
      Type.Union([
        Type.Boolean(),
        Type.Integer({ minimum: 1, maximum: 10 }),
        Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
          minItems: 1,
          maxItems: 64,
        }),
      ]),
      false,
    ),
  },
  { additionalProperties: false },
);

/** How the gateway talks to PostgreSQL (SQLite ignores these). */
export const DatabaseConfigSchema = Type.Object(
  {
    pool_size: withDefault(Type.Integer({ minimum: 1, maximum: 1000 }), 10),
    /** Longest time to open a connection (or wait for a free one) before the request gets 503. */
    connect_timeout_ms: withDefault(Type.Integer({ minimum: 100 }), 5_000),
    /** Longest a statement may run, enforced by the server and, for a server that stopped answering, by the client. */
    statement_timeout_ms: withDefault(Type.Integer({ minimum: 100 }), 30_000),
  },
  { additionalProperties: false },
);

/** How the gateway talks to Redis (REDIS_URL). */
export const RedisConfigSchema = Type.Object(
  {
    /** Longest wait for one Redis reply; past it the command fails and the feature's failure mode applies. */
    command_timeout_ms: withDefault(Type.Integer({ minimum: 10 }), 200),
    connect_timeout_ms: withDefault(Type.Integer({ minimum: 100 }), 2_000),
  },
  { additionalProperties: false },
);

export const ConfigFileSchema = Type.Object(
  {
    server: Type.Optional(ServerConfigSchema),
    providers: Type.Optional(Type.Array(ProviderConfigSchema)),
    models: Type.Optional(Type.Array(ModelConfigSchema)),
    /** Sections owned by later features (billing, routing templates, limits…), validated there. */
    routing: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    billing: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    limits: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    catalog: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    metrics: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    tracing: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    auth: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    database: Type.Optional(DatabaseConfigSchema),
    redis: Type.Optional(RedisConfigSchema),
    mail: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    activity: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: false },
);

export type ConfigFile = Static<typeof ConfigFileSchema>;
export type ProviderConfigInput = Static<typeof ProviderConfigSchema>;
export type ModelConfigInput = Static<typeof ModelConfigSchema>;
