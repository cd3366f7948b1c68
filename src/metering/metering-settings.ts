import { settleConfigSection } from '../config/config-section.js';
import { BillingSectionSchema, LimitsSectionSchema } from '../config/section-schemas.js';
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
  /**
   * limits.local_admission: with Redis, fail-open mode and an outage lease, a request whose hold
   * the lease's unspent part covers (no key quota or credit limit, rate windows far from full) is
   * admitted without a Redis round trip; its settlement debits the lease. Default true.
   */
  localAdmission: boolean;
  /** limits.settlement_spill_file: where settlements wait on disk while the store is down (default beside the SQLite file, or ./data). */
  settlementSpillFile: string | null;
}

/** Both sections are read through their one schema each (config/section-schemas.ts), defaults included. */
export function readMeteringSettings(config: Pick<GatewayConfig, 'sections'>): MeteringSettings {
  const billing = settleConfigSection('billing', config.sections.billing, BillingSectionSchema);
  const limits = settleConfigSection('limits', config.sections.limits, LimitsSectionSchema);
  return {
    requireCredits: billing.require_credits,
    defaultMaxOutputTokens: billing.default_max_output_tokens,
    redisFailureMode: limits.redis_failure_mode,
    holdTtlMs: limits.hold_ttl_ms,
    settlementClaimMs: limits.settlement_claim_ms,
    settlementSpillFile: limits.settlement_spill_file ?? null,
    outageLeaseFraction: limits.outage_lease_fraction,
    localAdmission: limits.local_admission,
  };
}
