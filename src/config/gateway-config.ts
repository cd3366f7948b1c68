import { applyDefaults, type Settled } from './config-section.js';
import { DatabaseConfigSchema, RedisConfigSchema, TimeoutsSchema } from './config-schema.js';

/** The resolved, validated configuration the app runs on (after file, env and presets). */
export interface Pricing {
  /** Micro-USD per million tokens: integers, so cost arithmetic stays exact. */
  promptMicros: number;
  completionMicros: number;
  cacheReadMicros: number | null;
  cacheWriteMicros: number | null;
  /** Micro-USD per request and per web search. */
  perRequestMicros: number;
  perSearchMicros: number;
}

export interface ProviderTimeouts {
  connectMs: number;
  firstByteMs: number;
  idleMs: number;
  totalMs: number;
}

export interface ProviderConfig {
  id: string;
  name: string;
  type: string;
  baseUrl: string;
  apiKey: string | undefined;
  headers: Record<string, string>;
  timeouts: ProviderTimeouts;
  maxConnections: number;
  options: Record<string, unknown>;
  policies: Record<string, unknown>;
  /** true when enabled from a credential variable rather than the config file. */
  fromEnvironment: boolean;
  /** The preset it was built from (its `preset` field, an id that names a preset, or a credential variable). */
  preset?: string;
}

export interface EndpointConfig {
  providerId: string;
  upstreamModel: string;
  pricing: Pricing;
  contextLength: number | null;
  maxOutputTokens: number | null;
  priority: number;
  weight: number;
  supportsSearch: boolean;
}

export interface ModelConfig {
  id: string;
  name: string;
  description: string;
  author: string;
  created: number;
  inputModalities: string[];
  outputModalities: string[];
  capabilities: string[];
  tags: string[];
  endpoints: EndpointConfig[];
}

export interface ServerConfig {
  host: string;
  port: number;
  bodyLimitBytes: number;
  shutdownGraceMs: number;
  logLevel: string;
  publicUrl: string;
  /** Whether GATEWAY_PUBLIC_URL or server.public_url set publicUrl (else it is built from host and port). */
  publicUrlConfigured: boolean;
  /** Origins allowed to call /api-account/* from a browser (credentials included). */
  corsOrigins: string[];
  /** Fastify's trustProxy: whose X-Forwarded-* headers are believed (server.trust_proxy). */
  trustProxy: boolean | number | string[];
  /** Deepest nesting a JSON body may have. */
  maxJsonDepth: number;
  /** Headers and body must have arrived within this. */
  requestTimeoutMs: number;
  /** A stream whose client has not taken its bytes for this long is closed. */
  streamWriteStallMs: number;
  /** What to do with request parameters the chosen endpoint cannot express: drop and name them, or refuse (400). */
  unsupportedParams: 'drop' | 'refuse';
  /** server.include_cost: usage.cost in every answer, asked or not. */
  includeCost: boolean;
  /** V8's old-generation growth past the live heap, in percent; 0 leaves V8's heuristics (src/shared/heap-growth.ts). */
  heapGrowthPercent: number;
}

export interface DatabaseSettings {
  poolSize: number;
  connectTimeoutMs: number;
  statementTimeoutMs: number;
}

export interface RedisSettings {
  commandTimeoutMs: number;
  connectTimeoutMs: number;
}

export interface GatewayConfig {
  server: ServerConfig;
  databaseUrl: string;
  redisUrl: string | undefined;
  database: DatabaseSettings;
  redis: RedisSettings;
  providers: ProviderConfig[];
  models: ModelConfig[];
  /** Raw sections owned by later features, validated by those features. */
  sections: Record<string, Record<string, unknown>>;
  /** Where the config came from, for the start-up log. */
  source: string;
}

/** `timeouts:` of a provider as the app reads them; defaults from the schema (config-schema.ts). */
export function providerTimeouts(input: Settled<typeof TimeoutsSchema>): ProviderTimeouts {
  return {
    connectMs: input.connect_ms,
    firstByteMs: input.first_byte_ms,
    idleMs: input.idle_ms,
    totalMs: input.total_ms,
  };
}

export function databaseSettings(input: Settled<typeof DatabaseConfigSchema>): DatabaseSettings {
  return {
    poolSize: input.pool_size,
    connectTimeoutMs: input.connect_timeout_ms,
    statementTimeoutMs: input.statement_timeout_ms,
  };
}

export function redisSettings(input: Settled<typeof RedisConfigSchema>): RedisSettings {
  return { commandTimeoutMs: input.command_timeout_ms, connectTimeoutMs: input.connect_timeout_ms };
}

/** The settings of an empty section: the schema's defaults. */
export const DEFAULT_TIMEOUTS: ProviderTimeouts = providerTimeouts(applyDefaults(TimeoutsSchema, {}));
export const DEFAULT_REDIS_SETTINGS: RedisSettings = redisSettings(applyDefaults(RedisConfigSchema, {}));
