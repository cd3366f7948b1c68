import { setTimeout as delay } from 'node:timers/promises';
import type { RedisClient } from '../store/redis-client.js';
import type { Clock } from '../shared/clock.js';
import type { RouteCandidate } from './model-directory.js';
import type { EndpointHealth } from './circuit-breaker.js';
import { MemoryEndpointHealth } from './circuit-breaker.js';
import { RedisEndpointHealth } from './redis-endpoint-health.js';
import { EndpointStats } from './endpoint-stats.js';
import type { RoutingSettings } from './routing-config.js';
import { configRoutingTemplates, type RoutingTemplateSource } from './routing-templates.js';

/** Everything routing keeps between requests, built once in the composition root. */
export interface RoutingRuntime {
  settings: RoutingSettings;
  health: EndpointHealth;
  stats: EndpointStats;
  templates: RoutingTemplateSource;
  /** [0, 1): weighted choice and backoff jitter. */
  random: () => number;
  /** Waits between rounds; rejects when the signal aborts. */
  sleep: (milliseconds: number, signal: AbortSignal) => Promise<void>;
}

export interface RoutingRuntimeOptions {
  settings: RoutingSettings;
  clock: Clock;
  /** Shared breakers across instances; without it, each instance keeps its own. */
  redis?: RedisClient;
  /** Prefix of Redis keys (tests: random per test). */
  redisKeyPrefix?: string;
  overrides?: Partial<RoutingRuntime>;
}

export function createRoutingRuntime(options: RoutingRuntimeOptions): RoutingRuntime {
  const { settings, clock } = options;
  const health =
    options.overrides?.health ??
    (options.redis
      ? new RedisEndpointHealth(options.redis, settings.breaker, clock, { keyPrefix: options.redisKeyPrefix })
      : new MemoryEndpointHealth(settings.breaker, clock));
  return {
    settings,
    health,
    stats: options.overrides?.stats ?? new EndpointStats(),
    templates: options.overrides?.templates ?? configRoutingTemplates(settings.templates),
    random: options.overrides?.random ?? Math.random,
    sleep: options.overrides?.sleep ?? ((milliseconds, signal) => delay(milliseconds, undefined, { signal })),
  };
}

/** The request deadline: `routing.request_timeout_ms`, else the longest total_ms of the providers in the plan. */
export function requestTimeoutMs(settings: RoutingSettings, candidates: RouteCandidate[]): number {
  if (settings.requestTimeoutMs !== null) return settings.requestTimeoutMs;
  return Math.max(...candidates.map((candidate) => candidate.provider.timeouts.totalMs));
}
