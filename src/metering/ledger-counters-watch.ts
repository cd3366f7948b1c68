import type { RedisClient } from '../store/redis-client.js';
import type { Store } from '../store/database.js';
import { watchLedger, type LedgerMove } from '../credits/credit-ledger.js';
import type { HotCounters } from './hot-counters.js';
import { RedisHotCounters } from './redis-hot-counters.js';
import { storeCounterSource } from './counter-source.js';

/**
 * Connects the ledger's one hook to hot counters: every ledger write outside settlement (grants
 * from the CLI or the admin API, purchases, refunds) is announced before its transaction and
 * applied after its commit. A failure (Redis down) never fails the ledger write: it is reported,
 * and `gateway credits reconcile` (or the next start-up check) repairs the counters.
 */
export function watchLedgerWithCounters(
  store: Store,
  counters: HotCounters,
  onFailure: (error: unknown) => void,
  identity?: unknown,
): () => void {
  return watchLedger(
    store,
    {
      beforeWrite: async (userIds) => {
        try {
          const ticket = await counters.ledgerWrite(userIds);
          return (moves: LedgerMove[]) => ticket.done(moves).catch(onFailure);
        } catch (error) {
          onFailure(error);
          return async () => undefined;
        }
      },
    },
    identity,
  );
}

/**
 * The shared hot counters for a program that writes the ledger outside a serving gateway (the
 * CLI): with Redis, the counters every instance uses; without it there are none to keep (each
 * serving process polls the ledger for entries written elsewhere).
 */
export async function openSharedCounters(
  store: Store,
  redis: RedisClient | null,
  prefix: string,
  onFailure: (error: unknown) => void,
): Promise<{ counters: RedisHotCounters | null; close(): Promise<void> }> {
  if (!redis) return { counters: null, close: async () => undefined };
  const counters = new RedisHotCounters(redis, storeCounterSource(store), { prefix });
  await counters.ready();
  const unwatch = watchLedgerWithCounters(store, counters, onFailure);
  return {
    counters,
    async close() {
      unwatch();
      await counters.close();
    },
  };
}
