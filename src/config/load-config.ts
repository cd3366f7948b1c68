import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { LineCounter, parseDocument, visit } from 'yaml';
import {
  ConfigFileSchema,
  DatabaseConfigSchema,
  ModelConfigSchema,
  ProviderConfigSchema,
  RedisConfigSchema,
  ServerConfigSchema,
  type ConfigFile,
  type ProviderConfigInput,
  type ModelConfigInput,
} from './config-schema.js';
import { PROVIDER_PRESETS, presetBaseUrl, presetOptionsFromEnv } from './provider-presets.js';
import { interpolateEnv } from './interpolate-env.js';
import { ConfigError } from './config-error.js';
import { attachOrigin, originOfDocument, type ConfigOrigin } from './config-origin.js';
import { applyDefaults, configProblemAt, validateConfig } from './config-section.js';
import { decimalToUnits } from '../shared/decimal.js';
import {
  DEFAULT_TIMEOUTS,
  databaseSettings,
  providerTimeouts,
  redisSettings,
  type GatewayConfig,
  type ModelConfig,
  type ProviderConfig,
  type Pricing,
} from './gateway-config.js';

export { ConfigError } from './config-error.js';

/** A provider enabled from its credential variable alone takes the schema's default. */
const MAX_CONNECTIONS_DEFAULT = applyDefaults(ProviderConfigSchema, {
  id: 'default',
}).max_connections;

export interface LoadConfigOptions {
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Wire protocols the provider registry can speak; anything else is a config error. */
  knownProviderTypes?: readonly string[];
  /** Use this text instead of reading a file (tests). */
  text?: string;
}

export interface LoadedConfig {
  config: GatewayConfig;
  warnings: string[];
}

/** Reads gateway.config.yaml (or GATEWAY_CONFIG), interpolates ${ENV}, validates, applies presets. */
export function loadConfig(options: LoadConfigOptions = {}): LoadedConfig {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const warnings: string[] = [];
  let file: ConfigFile = {};
  let origin: ConfigOrigin | undefined;
  let source = 'defaults and environment (no config file)';

  const explicitPath = env.GATEWAY_CONFIG;
  const path = explicitPath ? resolve(cwd, explicitPath) : resolve(cwd, 'gateway.config.yaml');
  let text = options.text;
  if (text === undefined) {
    if (existsSync(path)) {
      text = readFileSync(path, 'utf8');
      source = path;
    } else if (explicitPath) {
      throw new ConfigError({
        field: 'GATEWAY_CONFIG',
        problem: `points at ${path}, which does not exist`,
      });
    }
  } else {
    source = 'inline text';
  }
  if (text !== undefined) ({ file, origin } = parseConfigText(text, source, displayName(source, cwd), env, warnings));

  const config = resolveConfig(file, env, source, options.knownProviderTypes, origin);
  return { config, warnings };
}

/** Errors name the file as the operator wrote it: relative to the working directory when inside it. */
function displayName(source: string, cwd: string): string {
  if (!isAbsolute(source)) return source;
  const path = relative(cwd, source);
  return path && !path.startsWith('..') && !isAbsolute(path) ? path : source;
}

function parseConfigText(
  text: string,
  source: string,
  fileName: string,
  env: Record<string, string | undefined>,
  warnings: string[],
): { file: ConfigFile; origin: ConfigOrigin } {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: true });
  if (document.errors.length > 0) {
    const first = document.errors[0];
    const line = first.linePos?.[0]?.line;
    throw new ConfigError({
      field: null,
      problem: `invalid YAML: ${first.message.split('\n')[0]}`,
      file: fileName,
      ...(line ? { line } : {}),
    });
  }
  const origin = originOfDocument(document, lineCounter, fileName);
  visit(document, {
    Scalar(_key, node) {
      if (typeof node.value !== 'string' || !node.value.includes('${')) return;
      const { value, missing } = interpolateEnv(node.value, env);
      for (const name of missing) {
        const line = node.range ? lineCounter.linePos(node.range[0]).line : undefined;
        warnings.push(
          `${source}${line ? `:${line}` : ''}: environment variable ${name} is not set; the value is left empty.`,
        );
      }
      node.value = value;
    },
  });
  const data = (document.toJS() ?? {}) as unknown;
  dropEmptyStrings(data);
  validateConfig(data, ConfigFileSchema, '', origin);
  return { file: data, origin };
}

/** `api_key: ${UNSET}` becomes an absent field rather than an empty credential. */
function dropEmptyStrings(value: unknown): void {
  if (Array.isArray(value)) value.forEach(dropEmptyStrings);
  else if (value && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      if (child === '') delete (value as Record<string, unknown>)[key];
      else dropEmptyStrings(child);
    }
  }
}

function resolveConfig(
  file: ConfigFile,
  env: Record<string, string | undefined>,
  source: string,
  knownTypes: readonly string[] | undefined,
  origin: ConfigOrigin | undefined,
): GatewayConfig {
  const providers: ProviderConfig[] = (file.providers ?? []).map((input, index) =>
    resolveProvider(input, index, env, knownTypes, origin),
  );
  const seen = new Set<string>();
  providers.forEach((provider, index) => {
    if (seen.has(provider.id))
      throw configProblemAt(origin, `providers[${index}].id`, `"${provider.id}" is used twice`);
    seen.add(provider.id);
  });
  // Standard credential variables enable their provider with no file.
  for (const [id, preset] of Object.entries(PROVIDER_PRESETS)) {
    if (!preset.credentialEnv || seen.has(id)) continue;
    const credential = env[preset.credentialEnv];
    if (!credential) continue;
    if (preset.baseUrlEnv && !env[preset.baseUrlEnv]) continue;
    providers.push({
      id,
      name: preset.name,
      type: preset.type,
      baseUrl: presetBaseUrl(preset, env).replace(/\/+$/, ''),
      apiKey: credential,
      headers: {},
      timeouts: { ...DEFAULT_TIMEOUTS },
      maxConnections: MAX_CONNECTIONS_DEFAULT,
      options: presetOptionsFromEnv(preset, env),
      policies: {},
      fromEnvironment: true,
      preset: id,
    });
    seen.add(id);
  }

  const models: ModelConfig[] = [];
  const modelIds = new Set<string>();
  (file.models ?? []).forEach((input, index) => {
    if (modelIds.has(input.id)) throw configProblemAt(origin, `models[${index}].id`, `"${input.id}" is used twice`);
    modelIds.add(input.id);
    models.push(resolveModel(input, index, seen, origin));
  });

  const server = applyDefaults(ServerConfigSchema, file.server ?? {});
  const port = env.PORT !== undefined && env.PORT !== '' ? Number(env.PORT) : server.port;
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new ConfigError({
      field: 'PORT',
      problem: `must be an integer from 0 to 65535 (got "${env.PORT}")`,
    });
  const host = env.HOST || server.host;
  const databaseUrl = env.DATABASE_URL || 'sqlite:./data/gateway.db';
  if (!/^(sqlite:|postgres(ql)?:\/\/)/.test(databaseUrl)) {
    throw new ConfigError({
      field: 'DATABASE_URL',
      problem: `must start with sqlite: or postgres:// (got "${databaseUrl.replace(/:[^:@/]*@/, ':***@')}")`,
    });
  }

  return {
    server: {
      host,
      port,
      bodyLimitBytes: server.body_limit_bytes,
      shutdownGraceMs: server.shutdown_grace_ms,
      logLevel: env.LOG_LEVEL || server.log_level,
      publicUrl: (env.GATEWAY_PUBLIC_URL || server.public_url || `http://${host}:${port}`).replace(/\/$/, ''),
      publicUrlConfigured: Boolean(env.GATEWAY_PUBLIC_URL || server.public_url),
      corsOrigins: server.cors_origins,
      trustProxy: server.trust_proxy,
      maxJsonDepth: server.max_json_depth,
      requestTimeoutMs: server.request_timeout_ms,
      streamWriteStallMs: server.stream_write_stall_ms,
      unsupportedParams: server.unsupported_params,
      includeCost: server.include_cost,
      heapGrowthPercent: server.heap_growth_percent,
    },
    databaseUrl,
    redisUrl: env.REDIS_URL || undefined,
    database: databaseSettings(applyDefaults(DatabaseConfigSchema, file.database ?? {})),
    redis: redisSettings(applyDefaults(RedisConfigSchema, file.redis ?? {})),
    providers,
    models,
    sections: {
      routing: withOrigin(file.routing ?? {}, origin),
      billing: withOrigin(file.billing ?? {}, origin),
      limits: withOrigin(file.limits ?? {}, origin),
      catalog: withOrigin(file.catalog ?? {}, origin),
      metrics: withOrigin(file.metrics ?? {}, origin),
      tracing: withOrigin(file.tracing ?? {}, origin),
      auth: withOrigin(file.auth ?? {}, origin),
      mail: withOrigin(file.mail ?? {}, origin),
      activity: withOrigin(file.activity ?? {}, origin),
    },
    source,
  };
}

/** Each section carries where the file wrote it, so the feature that parses it can name the line. */
function withOrigin(section: Record<string, unknown>, origin: ConfigOrigin | undefined): Record<string, unknown> {
  if (origin) attachOrigin(section, origin);
  return section;
}

function resolveProvider(
  input: ProviderConfigInput,
  index: number,
  env: Record<string, string | undefined>,
  knownTypes: readonly string[] | undefined,
  origin: ConfigOrigin | undefined,
): ProviderConfig {
  const presetName = input.preset ?? (PROVIDER_PRESETS[input.id] ? input.id : undefined);
  const preset = presetName ? PROVIDER_PRESETS[presetName] : undefined;
  if (input.preset && !preset) {
    throw configProblemAt(
      origin,
      `providers[${index}].preset`,
      `names an unknown preset "${input.preset}" (known: ${Object.keys(PROVIDER_PRESETS).join(', ')})`,
    );
  }
  const type = input.type ?? preset?.type ?? 'openai';
  if (knownTypes && !knownTypes.includes(type)) {
    throw configProblemAt(
      origin,
      `providers[${index}].type`,
      `names an unknown provider type "${type}" (known: ${knownTypes.join(', ')})`,
    );
  }
  const baseUrl = input.base_url ?? (preset ? presetBaseUrl(preset, env) : undefined);
  if (!baseUrl)
    throw configProblemAt(
      origin,
      `providers[${index}].base_url`,
      `is required for provider "${input.id}" (no preset supplies one)`,
    );
  const settled = applyDefaults(ProviderConfigSchema, input);
  return {
    id: input.id,
    name: input.name ?? preset?.name ?? input.id,
    type,
    baseUrl: baseUrl.replace(/\/+$/, ''),
    apiKey: input.api_key ?? (preset?.credentialEnv ? env[preset.credentialEnv] || undefined : undefined),
    headers: settled.headers,
    timeouts: providerTimeouts(settled.timeouts),
    maxConnections: settled.max_connections,
    options: { ...presetOptionsFromEnv(preset, env), ...input.options },
    policies: settled.policies,
    fromEnvironment: false,
    preset: presetName,
  };
}

function resolveModel(
  written: ModelConfigInput,
  index: number,
  providerIds: Set<string>,
  origin: ConfigOrigin | undefined,
): ModelConfig {
  const input = applyDefaults(ModelConfigSchema, written);
  const endpoints = input.endpoints.map((endpoint, endpointIndex) => {
    const where = `models[${index}].endpoints[${endpointIndex}]`;
    if (!providerIds.has(endpoint.provider)) {
      throw configProblemAt(
        origin,
        `${where}.provider`,
        `names "${endpoint.provider}", which is not a configured provider (configured: ${[...providerIds].join(', ') || 'none'})`,
      );
    }
    // Embeddings produce no completion tokens, so only chat models need a completion price.
    const embeds = input.output_modalities?.includes('embeddings') ?? false;
    if (endpoint.pricing && endpoint.pricing.completion === undefined && !embeds) {
      throw configProblemAt(
        origin,
        `${where}.pricing.completion`,
        'is required for a chat model (only a model with output_modalities: [embeddings] may leave it out)',
      );
    }
    return {
      providerId: endpoint.provider,
      upstreamModel: endpoint.upstream_model,
      pricing: resolvePricing(endpoint.pricing, `${where}.pricing`, origin),
      contextLength: endpoint.context_length ?? null,
      maxOutputTokens: endpoint.max_output_tokens ?? null,
      priority: endpoint.priority ?? endpointIndex,
      weight: endpoint.weight,
      supportsSearch: endpoint.supports_search,
    };
  });
  const slash = input.id.indexOf('/');
  return {
    id: input.id,
    name: input.name ?? input.id,
    description: input.description,
    author: input.author ?? (slash > 0 ? input.id.slice(0, slash) : endpoints[0].providerId),
    created: input.created,
    inputModalities: input.input_modalities,
    outputModalities: input.output_modalities,
    capabilities: input.capabilities,
    tags: input.tags,
    endpoints,
  };
}

function resolvePricing(
  pricing: ProviderConfigInput['options'] | undefined,
  where: string,
  origin: ConfigOrigin | undefined,
): Pricing {
  const value = (pricing ?? {}) as Record<string, number | undefined>;
  const micros = (field: string): number | null => {
    const raw = value[field];
    if (raw === undefined) return null;
    try {
      return decimalToUnits(raw, 6);
    } catch (error) {
      throw configProblemAt(origin, `${where}.${field}`, `is not usable: ${(error as Error).message}`);
    }
  };
  return {
    promptMicros: micros('prompt') ?? 0,
    completionMicros: micros('completion') ?? 0,
    cacheReadMicros: micros('cache_read'),
    cacheWriteMicros: micros('cache_write'),
    perRequestMicros: micros('per_request') ?? 0,
    perSearchMicros: micros('per_search') ?? 0,
  };
}
