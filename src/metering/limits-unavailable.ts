import { ERROR_CODES } from '../shared/error-codes.js';
import { GatewayError } from '../shared/errors.js';

/** limits.redis_failure_mode: what rate windows do while Redis is down (money never goes per instance). */
export type RedisFailureMode = 'open' | 'closed';

export class LimitsUnavailableError extends GatewayError {
  constructor(cause: unknown) {
    super(
      ERROR_CODES.limits_unavailable.status,
      ERROR_CODES.limits_unavailable.type,
      'limits_unavailable',
      'Rate limits and credit holds cannot be checked right now; try again shortly.',
      { headers: { 'retry-after': '1' }, cause },
    );
  }
}
