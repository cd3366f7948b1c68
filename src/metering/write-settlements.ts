import type { Logger } from 'pino';
import type { Store } from '../store/database.js';
import { cutToBalance } from '../credits/credit-ledger.js';
import { monthOf } from './key-spend.js';
import { SETTLEMENT_SQL, type LedgerRowValues } from './settlement-sql.js';
import type { UsageEventsTable } from './metering-schema.js';
import { releaseStoreHolds } from '../credits/store-holds.js';
import type { SettlementRecord } from './settlement-record.js';

/**
 * Writes settled requests to the store in one transaction: the usage events, their ledger charges
 * (reference `usage:<event id>`, so a batch written again charges nothing twice) and the keys'
 * running spend. Rows are locked in one global order (user id, then key id) so two instances
 * writing batches for the same users cannot deadlock.
 */
export async function writeSettlements(
  store: Pick<Store, 'db' | 'dialect'>,
  logger: Pick<Logger, 'warn'>,
  batch: SettlementRecord[],
  now: number,
): Promise<void> {
  const sql = SETTLEMENT_SQL[store.dialect];
  const records = new Map(batch.map((record) => [record.event.id, record]));
  await store.db.transaction().execute(async (transaction) => {
    const events = [...records.values()].map((record) => record.event);
    const inserted = new Set<string>();
    for (const query of sql.insertUsageEvents(events)) {
      const { rows } = await transaction.executeQuery(query);
      for (const row of rows) inserted.add(row.id);
    }
    // Charges and key spend move only with a newly written event: the event and its charge are
    // committed together, so a record written twice charges and adds nothing the second time.
    const charges = new Map<string, UsageEventsTable[]>();
    const spend = new Map<string, { keyId: string; month: string; amount: number }>();
    for (const event of events) {
      if (!inserted.has(event.id) || event.cost_nanos <= 0) continue;
      if (records.get(event.id)!.charge && event.user_id) appendTo(charges, event.user_id, event);
      if (event.key_id) {
        const month = monthOf(event.created_at);
        const slot = `${event.key_id}\u0000${month}`;
        const entry = spend.get(slot) ?? { keyId: event.key_id, month, amount: 0 };
        entry.amount += event.cost_nanos;
        spend.set(slot, entry);
      }
    }
    const storeHolds = new Map<string, string[]>();
    for (const { storeHold } of batch) if (storeHold) appendTo(storeHolds, storeHold.userId, storeHold.id);
    const users = [...new Set([...charges.keys(), ...storeHolds.keys()])].sort();
    for (const userId of users) {
      // Locks the user's balance row first (also with nothing to charge), then frees the store holds.
      const [locked] = (await transaction.executeQuery(sql.lockBalanceRow(userId, now))).rows;
      const balance = Number(locked.balance_nanos);
      const charged = charges.get(userId) ?? [];
      const amounts = cutToBalance(
        balance,
        charged.map((event) => -event.cost_nanos),
      );
      if (charged.length > 0) {
        const references = charged.map((event) => `usage:${event.id}`);
        // The rows' values in one flat list (LEDGER_COLUMNS order): no array per row to flatten.
        const values: LedgerRowValues[number][] = [];
        charged.forEach((event, index) =>
          values.push(userId, 'usage', amounts[index], references[index], event.model_id ?? event.requested_model, now),
        );
        // Every reference is new (its event was inserted above), so every row is written.
        const written = new Set<string>();
        for (const query of sql.insertLedgerValues(values))
          for (const row of (await transaction.executeQuery(query)).rows) written.add(row.reference);
        let moved = 0;
        references.forEach((reference, index) => {
          if (written.has(reference)) moved += amounts[index];
        });
        if (moved !== 0) await transaction.executeQuery(sql.setBalanceRow(userId, balance + moved, now));
        charged.forEach((event, index) => {
          if (-amounts[index] !== event.cost_nanos)
            logger.warn(
              { userId, reference: references[index], cost: event.cost_nanos, charged: -amounts[index] },
              'usage cost exceeded the balance; charged what was left',
            );
        });
      }
      await releaseStoreHolds(transaction, userId, storeHolds.get(userId) ?? []);
    }
    const ordered = [...spend.values()].sort(
      (a, b) => a.keyId.localeCompare(b.keyId) || a.month.localeCompare(b.month),
    );
    for (const entry of ordered)
      await transaction.executeQuery(sql.addKeySpend(entry.keyId, entry.month, entry.amount, now));
  });
}

/** Adds a value to its group's list in place (the batch's groups used to be copied per value: quadratic in a user's records). */
function appendTo<Value>(groups: Map<string, Value[]>, group: string, value: Value): void {
  const list = groups.get(group);
  if (list) list.push(value);
  else groups.set(group, [value]);
}
