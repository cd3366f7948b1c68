import { Type } from '@sinclair/typebox';
import { parseConfigSection } from '../config/config-section.js';
import type { GatewayConfig } from '../config/gateway-config.js';
import { resolveRoutingTemplates, type RoutingTemplate } from './resolve-routing-templates.js';

/** The `routing:` section of gateway.config.yaml (every field optional). */
const RoutingSectionSchema = Type.Object(
  {
    /** One deadline for the whole request, every attempt and wait included. Default: the largest total_ms of the providers tried. */
    request_timeout_ms: Type.Optional(Type.Integer({ minimum: 1 })),
    /** Extra rounds over the candidate list after every candidate failed. */
    retries: Type.Optional(Type.Integer({ minimum: 0, maximum: 10 })),
    backoff_base_ms: Type.Optional(Type.Integer({ minimum: 0 })),
    backoff_max_ms: Type.Optional(Type.Integer({ minimum: 0 })),
    circuit_breaker: Type.Optional(
      Type.Object(
        {
          failure_threshold: Type.Optional(Type.Integer({ minimum: 1 })),
          cooldown_ms: Type.Optional(Type.Integer({ minimum: 1 })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  // `templates` and `builtin_templates` are checked by resolveRoutingTemplates (one format, one parse).
  { additionalProperties: true },
);

export interface RoutingSettings {
  requestTimeoutMs: number | null;
  retries: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  breaker: { failureThreshold: number; cooldownMs: number };
  templates: RoutingTemplate[];
}

export const DEFAULT_ROUTING_SETTINGS: RoutingSettings = {
  requestTimeoutMs: null,
  retries: 1,
  backoffBaseMs: 250,
  backoffMaxMs: 4000,
  breaker: { failureThreshold: 3, cooldownMs: 30_000 },
  templates: [],
};

/** Reads and validates the routing section; a bad field is a ConfigError naming `routing.<field>`. */
export function parseRoutingSettings(config: Pick<GatewayConfig, 'sections'>): RoutingSettings {
  const section = parseConfigSection('routing', config.sections.routing, RoutingSectionSchema);
  // Built-in templates plus config ones, validated once here; the key API serves this same list.
  const templates = resolveRoutingTemplates(section);
  const defaults = DEFAULT_ROUTING_SETTINGS;
  return {
    requestTimeoutMs: section.request_timeout_ms ?? null,
    retries: section.retries ?? defaults.retries,
    backoffBaseMs: section.backoff_base_ms ?? defaults.backoffBaseMs,
    backoffMaxMs: section.backoff_max_ms ?? defaults.backoffMaxMs,
    breaker: {
      failureThreshold: section.circuit_breaker?.failure_threshold ?? defaults.breaker.failureThreshold,
      cooldownMs: section.circuit_breaker?.cooldown_ms ?? defaults.breaker.cooldownMs,
    },
    templates,
  };
}
