import type { Logger } from 'pino';
import type { Store } from '../store/database.js';
import { applyLedgerEntriesForUser, type LedgerEntry } from '../credits/credit-ledger.js';
import { addKeySpend, monthOf } from './key-spend.js';
import { releaseStoreHolds } from '../credits/store-holds.js';
import type { SettlementRecord } from './settlement-record.js';

/**
 * Writes settled requests to the store in one transaction: the usage events, their ledger charges
 * (reference `usage:<event id>`, so a batch written again charges nothing twice) and the keys'
 * running spend. Rows are locked in one global order (user id, then key id) so two instances
 * writing batches for the same users cannot deadlock.
 */
export async function writeSettlements(
  store: Store,
  logger: Logger,
  batch: SettlementRecord[],
  now: number,
): Promise<void> {
  const events = new Map(batch.map((record) => [record.event.id, record]));
  await store.db.transaction().execute(async (transaction) => {
    const rows = [...events.values()].map((record) => record.event);
    const inserted = new Set<string>();
    for (let start = 0; start < rows.length; start += 200) {
      const written = await transaction
        .insertInto('usage_events')
        .values(rows.slice(start, start + 200))
        .onConflict((conflict) => conflict.column('id').doNothing())
        .returning('id')
        .execute();
      for (const row of written) inserted.add(row.id);
    }
    // Charges and key spend move only with a newly written event: the event and its charge are
    // committed together, so a record written twice charges and adds nothing the second time.
    const charges = new Map<string, LedgerEntry[]>();
    const spend = new Map<string, { keyId: string; month: string; amount: number }>();
    for (const event of rows) {
      if (!inserted.has(event.id) || event.cost_nanos <= 0) continue;
      if (events.get(event.id)!.charge && event.user_id) {
        const entries = charges.get(event.user_id) ?? [];
        entries.push({
          userId: event.user_id,
          kind: 'usage',
          amount: -event.cost_nanos,
          reference: `usage:${event.id}`,
          description: event.model_id ?? event.requested_model,
        });
        charges.set(event.user_id, entries);
      }
      if (event.key_id) {
        const month = monthOf(event.created_at);
        const slot = `${event.key_id}\u0000${month}`;
        const entry = spend.get(slot) ?? { keyId: event.key_id, month, amount: 0 };
        entry.amount += event.cost_nanos;
        spend.set(slot, entry);
      }
    }
    const storeHolds = new Map<string, string[]>();
    for (const { storeHold } of batch)
      if (storeHold) storeHolds.set(storeHold.userId, [...(storeHolds.get(storeHold.userId) ?? []), storeHold.id]);
    const users = [...new Set([...charges.keys(), ...storeHolds.keys()])].sort();
    for (const userId of users) {
      const entries = charges.get(userId) ?? [];
      // Locks the user's balance row first (also with no entries), then frees the store holds.
      const results = await applyLedgerEntriesForUser(transaction, userId, entries, now, { newReferences: true });
      await releaseStoreHolds(transaction, userId, storeHolds.get(userId) ?? []);
      results.forEach((result, index) => {
        const cost = -entries[index].amount;
        if (result.applied && -result.amount !== cost) {
          logger.warn(
            { userId, reference: entries[index].reference, cost, charged: -result.amount },
            'usage cost exceeded the balance; charged what was left',
          );
        }
      });
    }
    const ordered = [...spend.values()].sort(
      (a, b) => a.keyId.localeCompare(b.keyId) || a.month.localeCompare(b.month),
    );
    for (const entry of ordered) await addKeySpend(transaction, entry.keyId, entry.month, entry.amount, now);
  });
}
