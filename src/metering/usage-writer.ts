import type { Logger } from 'pino';
import type { Store } from '../store/database.js';
import { applyLedgerEntriesForUser, type LedgerEntry } from '../credits/credit-ledger.js';
import { addKeySpend, monthOf } from './key-spend.js';
import type { Hold } from './limit-backend.js';
import type { UsageEventsTable } from './metering-schema.js';

export interface PendingUsage {
  event: UsageEventsTable;
  /** Released once the charge is committed (never before: the balance would look larger). */
  hold: Hold | null;
  /** Charge the cost to the user's credit balance (billing.require_credits). */
  charge: boolean;
}

export interface UsageWriterOptions {
  /** How often queued events are written; a hard kill loses at most this much. */
  flushIntervalMs?: number;
  maxBatch?: number;
}

/**
 * Usage events are queued in memory and written in batches, one transaction each: the events,
 * their ledger charges (reference `usage:<event id>`, so a retried batch charges nothing twice),
 * and the keys' running spend. No request waits for the database. stop() writes everything left.
 */
export class UsageWriter {
  private queue: PendingUsage[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private readonly flushIntervalMs: number;
  private readonly maxBatch: number;

  constructor(
    private readonly store: Store,
    private readonly logger: Logger,
    private readonly releaseHold: (hold: Hold) => Promise<void>,
    private readonly clock: { now(): number },
    options: UsageWriterOptions = {},
  ) {
    this.flushIntervalMs = options.flushIntervalMs ?? 200;
    this.maxBatch = options.maxBatch ?? 500;
  }

  start(): void {
    this.timer = setInterval(() => void this.flush().catch(() => undefined), this.flushIntervalMs);
    this.timer.unref();
  }

  enqueue(pending: PendingUsage): void {
    this.queue.push(pending);
    if (this.queue.length >= this.maxBatch && !this.flushing) void this.flush().catch(() => undefined);
  }

  get pending(): number {
    return this.queue.length;
  }

  /** Writes every queued event (in batches); rejects if a batch fails (it stays queued). */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.queue.length === 0) return;
    this.flushing = this.writeAll().finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  /** Stops the timer and writes what is left, retrying a few times before giving up loudly. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    for (let attempt = 1; this.queue.length > 0; attempt++) {
      try {
        await this.flush();
      } catch (error) {
        if (attempt >= 5) {
          this.logger.error(
            { err: error, lost: this.queue.length },
            'could not write usage events at shutdown; they are lost',
          );
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
      }
    }
  }

  private async writeAll(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.slice(0, this.maxBatch);
      try {
        await this.writeBatch(batch);
      } catch (error) {
        this.logger.error({ err: error, queued: this.queue.length }, 'could not write usage events; will retry');
        throw error;
      }
      this.queue = this.queue.slice(batch.length);
      // Holds go only after the charges are committed, so admission never sees too much credit.
      const holds = batch.flatMap((pending) => (pending.hold ? [pending.hold] : []));
      await Promise.all(holds.map((hold) => this.releaseHold(hold)));
    }
  }

  private async writeBatch(batch: PendingUsage[]): Promise<void> {
    const now = this.clock.now();
    const charges = new Map<string, { entries: LedgerEntry[]; costs: number[] }>();
    const spend = new Map<string, { keyId: string; month: string; amount: number }>();
    for (const { event, charge } of batch) {
      if (event.cost_nanos <= 0) continue;
      if (charge && event.user_id) {
        const group = charges.get(event.user_id) ?? { entries: [], costs: [] };
        group.entries.push({
          userId: event.user_id,
          kind: 'usage',
          amount: -event.cost_nanos,
          reference: `usage:${event.id}`,
          description: event.model_id ?? event.requested_model,
        });
        group.costs.push(event.cost_nanos);
        charges.set(event.user_id, group);
      }
      if (event.key_id) {
        const month = monthOf(event.created_at);
        const slot = `${event.key_id}\u0000${month}`;
        const entry = spend.get(slot) ?? { keyId: event.key_id, month, amount: 0 };
        entry.amount += event.cost_nanos;
        spend.set(slot, entry);
      }
    }
    await this.store.db.transaction().execute(async (transaction) => {
      for (let start = 0; start < batch.length; start += 200) {
        const rows = batch.slice(start, start + 200).map((pending) => pending.event);
        await transaction
          .insertInto('usage_events')
          .values(rows)
          .onConflict((conflict) => conflict.column('id').doNothing())
          .execute();
      }
      // Rows are locked in one global order (user id, then key id) so two instances writing
      // batches for the same users at once cannot deadlock.
      for (const [userId, { entries, costs }] of [...charges].sort(([a], [b]) => a.localeCompare(b))) {
        const results = await applyLedgerEntriesForUser(transaction, this.store.dialect, userId, entries, now);
        results.forEach((result, index) => {
          if (result.applied && -result.amount !== costs[index]) {
            this.logger.warn(
              { userId, reference: entries[index].reference, cost: costs[index], charged: -result.amount },
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
}
