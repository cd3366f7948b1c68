import type { UsageEventsTable } from './metering-schema.js';

/**
 * The durable part of one settlement: the usage event and whether its cost is charged to the
 * user's balance. The store write is idempotent (the event id is the row's key and the ledger
 * reference `usage:<id>`), so a record written twice changes nothing the second time.
 */
export interface SettlementRecord {
  event: UsageEventsTable;
  charge: boolean;
  /** A hold taken in the store (Redis was down at admission), released with this record. */
  storeHold?: { id: string; userId: string } | null;
}
