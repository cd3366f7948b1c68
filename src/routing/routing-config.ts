import { settleConfigSection } from '../config/config-section.js';
import { RoutingSectionSchema } from '../config/section-schemas.js';
import type { GatewayConfig } from '../config/gateway-config.js';
import { resolveRoutingTemplates, type RoutingTemplate } from './resolve-routing-templates.js';

export interface RoutingSettings {
  requestTimeoutMs: number | null;
  retries: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  breaker: { failureThreshold: number; cooldownMs: number };
  templates: RoutingTemplate[];
}

/** Reads the routing section through its schema (config/section-schemas.ts: ranges and defaults); a bad field is a ConfigError naming `routing.<field>`. */
export function parseRoutingSettings(config: Pick<GatewayConfig, 'sections'>): RoutingSettings {
  const raw = config.sections.routing;
  const section = settleConfigSection('routing', raw, RoutingSectionSchema);
  return {
    requestTimeoutMs: section.request_timeout_ms ?? null,
    retries: section.retries,
    backoffBaseMs: section.backoff_base_ms,
    backoffMaxMs: section.backoff_max_ms,
    breaker: {
      failureThreshold: section.circuit_breaker.failure_threshold,
      cooldownMs: section.circuit_breaker.cooldown_ms,
    },
    // Built-in templates plus config ones, checked once here; the key API serves this same list.
    templates: resolveRoutingTemplates(raw ?? {}),
  };
}
