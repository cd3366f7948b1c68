import { createRequire } from 'node:module';
import type * as IORedis from 'ioredis';

let loaded: typeof IORedis | undefined;

/**
 * ioredis, required when a Redis is opened or probed (REDIS_URL set: at start, as before, with the
 * same errors) rather than imported by every gateway: a gateway without Redis no longer holds its
 * ~40 modules (~2 MB of heap; docs/benchmarks.md, "what the RSS is made of"). Synchronous, as the
 * import was: GatewayRedis extends its class and the callers construct clients synchronously.
 */
export function ioredis(): typeof IORedis {
  return (loaded ??= createRequire(import.meta.url)('ioredis') as typeof IORedis);
}
