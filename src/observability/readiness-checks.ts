import { sql } from 'kysely';
import type { Store } from '../store/database.js';
import { MIGRATIONS } from '../store/migrations/index.js';
import type { ReadinessCheck } from './health-routes.js';

/** The store answers a query. */
export function storeCheck(store: Store): ReadinessCheck {
  return {
    name: 'store',
    async check() {
      await sql`select 1`.execute(store.db);
    },
  };
}

/** Every migration this build knows is applied (an older schema would fail requests). */
export function migrationsCheck(
  store: Store,
  expected: readonly string[] = MIGRATIONS.map((m) => m.name),
): ReadinessCheck {
  return {
    name: 'migrations',
    async check() {
      const rows = await sql<{ name: string }>`select name from gateway_migrations`.execute(store.db);
      const applied = new Set(rows.rows.map((row) => row.name));
      const missing = expected.filter((name) => !applied.has(name));
      if (missing.length > 0) throw new Error(`not applied: ${missing.join(', ')} (run: gateway migrate)`);
    },
  };
}

/** Redis answers PING (only when REDIS_URL is configured). */
export function redisCheck(ping: () => Promise<unknown>): ReadinessCheck {
  return {
    name: 'redis',
    async check() {
      await ping();
    },
  };
}

/** Usage and charges are being written (a stalled settlement writer turns the instance not-ready). */
export function settlementCheck(stalled: () => string | null): ReadinessCheck {
  return {
    name: 'settlement',
    async check() {
      const reason = stalled();
      if (reason) throw new Error(reason);
    },
  };
}
