import type { FastifyInstance } from 'fastify';
import type { SpanExporter } from '@opentelemetry/sdk-trace';
import type { GatewayConfig } from '../config/gateway-config.js';
import type { CompletionObserver } from '../routing/completion-outcome.js';
import type { ModelDirectory } from '../routing/model-directory.js';
import type { EndpointHealth } from '../routing/circuit-breaker.js';
import { breakerPhase } from '../routing/circuit-breaker.js';
import { endpointKey } from '../routing/endpoint-key.js';
import { GatewayMetrics, type BreakerSample } from './gateway-metrics.js';
import type { GatewayTracing } from './gateway-tracing.js';
import { registerHealthRoutes, type ReadinessCheck } from './health-routes.js';
import { registerHttpMetrics, registerMetricsRoute, startMetricsServer } from './metrics-endpoint.js';
import {
  readMetricsSettings,
  readTracingSettings,
  type MetricsSettings,
  type TracingSettings,
} from './observability-settings.js';

export interface ObservabilityOptions {
  /** Replaces the OTLP exporter (tests). */
  traceExporter?: SpanExporter;
  env?: Record<string, string | undefined>;
}

/**
 * Metrics, traces and health checks, built in the composition root. Metrics and traces watch the
 * app through hooks and CompletionObservers; nothing on the request path knows about them.
 */
export class Observability {
  readonly metrics: GatewayMetrics | null;
  readonly tracing: GatewayTracing | null;
  readonly metricsSettings: MetricsSettings;
  private adminServer: { url: string; close(): Promise<void> } | undefined;

  private constructor(metricsSettings: MetricsSettings, tracing: GatewayTracing | null) {
    this.metricsSettings = metricsSettings;
    this.metrics = metricsSettings.enabled ? new GatewayMetrics() : null;
    this.tracing = tracing;
  }

  /** The OpenTelemetry SDK is loaded only when tracing is configured (it adds to every start otherwise). */
  static async create(config: GatewayConfig, options: ObservabilityOptions = {}): Promise<Observability> {
    const metricsSettings = readMetricsSettings(config);
    const tracingSettings: TracingSettings = readTracingSettings(config, options.env ?? process.env);
    const tracing = tracingSettings.enabled
      ? new (await import('./gateway-tracing.js')).GatewayTracing(tracingSettings, options.traceExporter)
      : null;
    return new Observability(metricsSettings, tracing);
  }

  /** Observers for finished chat requests. */
  get observers(): CompletionObserver[] {
    return [...(this.metrics ? [this.metrics] : []), ...(this.tracing ? [this.tracing] : [])];
  }

  /** Request hooks: call before any route is registered. */
  registerHooks(app: FastifyInstance): void {
    if (this.metrics) registerHttpMetrics(app, this.metrics);
    this.tracing?.register(app);
  }

  /** Health routes and, unless an admin port is configured, the metrics route. */
  registerRoutes(app: FastifyInstance, checks: ReadinessCheck[]): void {
    registerHealthRoutes(app, checks);
    if (this.metrics && this.metricsSettings.port === null)
      registerMetricsRoute(app, this.metrics, this.metricsSettings);
  }

  /** Scrape-time sources: breaker states of every configured endpoint, the usage backlog. */
  watch(sources: {
    directory: ModelDirectory;
    health: EndpointHealth;
    usageBacklog?: () => number;
    now?: () => number;
  }): void {
    if (!this.metrics) return;
    const { directory, health } = sources;
    this.metrics.setSources({
      usageBacklog: sources.usageBacklog,
      breakers: health.inspect
        ? async (): Promise<BreakerSample[]> => {
            const endpoints = new Map<string, { providerId: string; upstreamModel: string }>();
            for (const model of directory.list())
              for (const endpoint of model.endpoints)
                endpoints.set(endpointKey(endpoint.providerId, endpoint.upstreamModel), endpoint);
            const keys = [...endpoints.keys()];
            const states = await health.inspect!(keys);
            const now = (sources.now ?? Date.now)();
            return keys.map((key, index) => ({ ...endpoints.get(key)!, state: breakerPhase(states[index], now) }));
          }
        : undefined,
    });
  }

  /** Starts the admin metrics listener when metrics.port is set; returns its URL. */
  async startAdminServer(): Promise<string | null> {
    if (!this.metrics || this.metricsSettings.port === null) return null;
    this.adminServer = await startMetricsServer(this.metrics, this.metricsSettings);
    return this.adminServer.url;
  }

  async close(): Promise<void> {
    await this.adminServer?.close();
    await this.tracing?.shutdown().catch(() => undefined);
  }
}
