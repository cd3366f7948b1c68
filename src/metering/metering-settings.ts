import { Type } from '@sinclair/typebox';
import { parseConfigSection } from '../config/config-section.js';
import type { GatewayConfig } from '../config/gateway-config.js';
import type { RedisFailureMode } from './limits-unavailable.js';

/** The metering settings of the config file's `billing:` and `limits:` sections. */
export interface MeteringSettings {
  /** billing.require_credits: hold before, charge after, refuse (402) what the balance cannot cover. Default true (CONTRACT §5). */
  requireCredits: boolean;
  /** billing.default_max_output_tokens: output held for when neither request nor model bounds it. */
  defaultMaxOutputTokens: number;
  /** limits.redis_failure_mode: what happens to limits and holds when Redis fails. Default open. */
  redisFailureMode: RedisFailureMode;
  /** limits.hold_ttl_ms: how long a hold counts if its instance dies before settling. */
  holdTtlMs: number;
  /** limits.settlement_claim_ms: how long a dead instance's unwritten settlements wait before another instance writes them. */
  settlementClaimMs: number;
  /**
   * limits.outage_lease_fraction: with Redis in fail-open mode, the part of a user's free balance
   * each instance keeps set aside to spend while Redis does not answer (0: none, requests that
   * hold credit are refused with 503 during a Redis fault). Default 0.25.
   */
  outageLeaseFraction: number;
  /** limits.settlement_spill_file: where settlements wait on disk while the store is down (default beside the SQLite file, or ./data). */
  settlementSpillFile: string | null;
}

// Billing owns the rest of `billing:`, so only metering's own fields are checked here.
const MeteringBillingFields = Type.Object(
  {
    require_credits: Type.Optional(Type.Boolean()),
    default_max_output_tokens: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })),
  },
  { additionalProperties: true },
);

const LimitsSection = Type.Object(
  {
    redis_failure_mode: Type.Optional(Type.Union([Type.Literal('open'), Type.Literal('closed')])),
    hold_ttl_ms: Type.Optional(Type.Integer({ minimum: 1000, maximum: Number.MAX_SAFE_INTEGER })),
    settlement_spill_file: Type.Optional(Type.String({ minLength: 1 })),
    settlement_claim_ms: Type.Optional(Type.Integer({ minimum: 100, maximum: Number.MAX_SAFE_INTEGER })),
    outage_lease_fraction: Type.Optional(Type.Number({ minimum: 0, maximum: 0.5 })),
  },
  { additionalProperties: true },
);

export function readMeteringSettings(config: Pick<GatewayConfig, 'sections'>): MeteringSettings {
  const billing = parseConfigSection('billing', config.sections.billing, MeteringBillingFields);
  const limits = parseConfigSection('limits', config.sections.limits, LimitsSection);
  return {
    requireCredits: billing.require_credits ?? true,
    defaultMaxOutputTokens: billing.default_max_output_tokens ?? 4096,
    redisFailureMode: limits.redis_failure_mode ?? 'open',
    holdTtlMs: limits.hold_ttl_ms ?? 15 * 60_000,
    settlementClaimMs: limits.settlement_claim_ms ?? 30_000,
    settlementSpillFile: limits.settlement_spill_file ?? null,
    outageLeaseFraction: limits.outage_lease_fraction ?? 0.25,
  };
}
