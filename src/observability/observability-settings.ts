import { ConfigError } from '../config/load-config.js';
import type { GatewayConfig } from '../config/gateway-config.js';

/** The config file's `metrics:` section. */
export interface MetricsSettings {
  /** metrics.enabled (default true): serve Prometheus metrics. */
  enabled: boolean;
  /** metrics.path (default /metrics). */
  path: string;
  /** metrics.bearer_token: when set, a scrape must send `Authorization: Bearer <token>`. */
  bearerToken: string | null;
  /** metrics.port: serve metrics on this port only (an admin port), not on the API port. */
  port: number | null;
  /** metrics.host: the admin port's address (default: server.host). */
  host: string;
}

/** The config file's `tracing:` section; standard OTEL_* variables fill what it leaves out. */
export interface TracingSettings {
  /** On when an endpoint is configured (tracing.endpoint or OTEL_EXPORTER_OTLP_*ENDPOINT), unless enabled: false. */
  enabled: boolean;
  /** OTLP/HTTP traces URL, e.g. http://collector:4318/v1/traces. */
  endpoint: string | null;
  serviceName: string;
  /** Extra headers sent to the collector (auth tokens). */
  headers: Record<string, string>;
  /** Fraction of requests traced, 0..1 (default 1). */
  sampleRatio: number;
}

type Env = Record<string, string | undefined>;

export function readMetricsSettings(config: Pick<GatewayConfig, 'sections' | 'server'>): MetricsSettings {
  const section = config.sections.metrics ?? {};
  const enabled = section.enabled ?? true;
  if (typeof enabled !== 'boolean')
    throw new ConfigError({ field: 'metrics.enabled', problem: 'must be true or false' });
  const path = section.path ?? '/metrics';
  if (typeof path !== 'string' || !/^\/[\w./-]*$/.test(path))
    throw new ConfigError({ field: 'metrics.path', problem: 'must be a URL path such as /metrics' });
  const token = section.bearer_token ?? null;
  if (token !== null && typeof token !== 'string')
    throw new ConfigError({ field: 'metrics.bearer_token', problem: 'must be a string' });
  const port = section.port ?? null;
  if (port !== null && !(Number.isInteger(port) && (port as number) >= 0 && (port as number) <= 65535))
    throw new ConfigError({ field: 'metrics.port', problem: 'must be an integer from 0 to 65535' });
  const host = section.host ?? config.server.host;
  if (typeof host !== 'string' || host === '')
    throw new ConfigError({ field: 'metrics.host', problem: 'must be a host name or address' });
  // An empty token (an unset ${VAR}) means no token, not "accept an empty one".
  return { enabled, path, bearerToken: token || null, port: port as number | null, host };
}

export function readTracingSettings(config: Pick<GatewayConfig, 'sections'>, env: Env = process.env): TracingSettings {
  const section = config.sections.tracing ?? {};
  const fromEnv = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
    ? env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
    : env.OTEL_EXPORTER_OTLP_ENDPOINT
      ? `${env.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`
      : null;
  const endpoint = section.endpoint ?? fromEnv;
  if (endpoint !== null && (typeof endpoint !== 'string' || !/^https?:\/\//.test(endpoint)))
    throw new ConfigError({
      field: 'tracing.endpoint',
      problem: 'must be an http(s) URL, e.g. http://127.0.0.1:4318/v1/traces',
    });
  const enabled = section.enabled ?? endpoint !== null;
  if (typeof enabled !== 'boolean')
    throw new ConfigError({ field: 'tracing.enabled', problem: 'must be true or false' });
  if (enabled && !endpoint)
    throw new ConfigError({ field: 'tracing.enabled', problem: 'is true but no tracing.endpoint is set' });
  const serviceName = section.service_name ?? env.OTEL_SERVICE_NAME ?? 'llm-gateway';
  if (typeof serviceName !== 'string' || serviceName === '')
    throw new ConfigError({ field: 'tracing.service_name', problem: 'must be a non-empty string' });
  const headers = section.headers ?? {};
  if (
    typeof headers !== 'object' ||
    headers === null ||
    Object.values(headers).some((value) => typeof value !== 'string')
  )
    throw new ConfigError({ field: 'tracing.headers', problem: 'must map header names to strings' });
  const sampleRatio = section.sample_ratio ?? 1;
  if (typeof sampleRatio !== 'number' || sampleRatio < 0 || sampleRatio > 1)
    throw new ConfigError({ field: 'tracing.sample_ratio', problem: 'must be a number from 0 to 1' });
  return {
    enabled,
    endpoint: (endpoint as string | null) ?? null,
    serviceName,
    headers: headers as Record<string, string>,
    sampleRatio,
  };
}
