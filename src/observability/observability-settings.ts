import { sectionError, settleConfigSection } from '../config/config-section.js';
import { MetricsSectionSchema, TracingSectionSchema } from '../config/section-schemas.js';
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
  const section = settleConfigSection('metrics', config.sections.metrics, MetricsSectionSchema);
  // An empty token (an unset ${VAR}) means no token, not "accept an empty one".
  return {
    enabled: section.enabled,
    path: section.path,
    bearerToken: section.bearer_token || null,
    port: section.port ?? null,
    host: section.host ?? config.server.host,
  };
}

export function readTracingSettings(config: Pick<GatewayConfig, 'sections'>, env: Env = process.env): TracingSettings {
  const raw = config.sections.tracing;
  const section = settleConfigSection('tracing', raw, TracingSectionSchema);
  const fromEnv = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
    ? env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
    : env.OTEL_EXPORTER_OTLP_ENDPOINT
      ? `${env.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`
      : null;
  const endpoint = section.endpoint ?? fromEnv;
  const enabled = section.enabled ?? endpoint !== null;
  if (enabled && !endpoint) throw sectionError(raw, 'tracing.enabled', 'is true but no tracing.endpoint is set');
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(section.headers)) {
    if (typeof value !== 'string') throw sectionError(raw, 'tracing.headers', 'must map header names to strings');
    headers[name] = value;
  }
  const serviceName = section.service_name ?? env.OTEL_SERVICE_NAME ?? 'llm-gateway';
  if (serviceName === '') throw sectionError(raw, 'tracing.service_name', 'must be a non-empty string');
  return {
    enabled,
    endpoint,
    serviceName,
    headers,
    sampleRatio: section.sample_ratio,
  };
}
