import { ConfigError } from '../config/load-config.js';
import type { GatewayConfig } from '../config/gateway-config.js';
import type { RedisFailureMode } from './resilient-limit-backend.js';

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
}

export function readMeteringSettings(config: Pick<GatewayConfig, 'sections'>): MeteringSettings {
  const billing = config.sections.billing ?? {};
  const limits = config.sections.limits ?? {};
  const requireCredits = billing.require_credits ?? true;
  if (typeof requireCredits !== 'boolean') throw new ConfigError('billing.require_credits must be true or false.');
  const defaultMaxOutputTokens = billing.default_max_output_tokens ?? 4096;
  if (!Number.isSafeInteger(defaultMaxOutputTokens) || (defaultMaxOutputTokens as number) < 1) {
    throw new ConfigError('billing.default_max_output_tokens must be a positive integer.');
  }
  const redisFailureMode = limits.redis_failure_mode ?? 'open';
  if (redisFailureMode !== 'open' && redisFailureMode !== 'closed')
    throw new ConfigError('limits.redis_failure_mode must be "open" or "closed".');
  const holdTtlMs = limits.hold_ttl_ms ?? 15 * 60_000;
  if (!Number.isSafeInteger(holdTtlMs) || (holdTtlMs as number) < 1000)
    throw new ConfigError('limits.hold_ttl_ms must be an integer of at least 1000.');
  return {
    requireCredits,
    defaultMaxOutputTokens: defaultMaxOutputTokens as number,
    redisFailureMode,
    holdTtlMs: holdTtlMs as number,
  };
}
