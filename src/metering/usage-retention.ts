import { sql } from 'kysely';
import type { Store } from '../store/database.js';
import type { Clock } from '../shared/clock.js';
import { dropUsagePartitionsBefore, ensureUsagePartitions } from './usage-partitions.js';
import './metering-schema.js';

const DAY_MS = 86_400_000;
/** Rows deleted per statement: each statement is a short write (SQLite has one writer). */
const RETENTION_BATCH_ROWS = 10_000;

export interface UsageRetentionSettings {
  /** Usage rows (the activity list's requests) older than this many days are deleted; 0 keeps every row. */
  retentionDays: number;
  batchRows?: number;
}

export interface UsageMaintenanceReport {
  /** PostgreSQL partitions created ahead (or for rows that had landed in DEFAULT). */
  createdPartitions: string[];
  /** PostgreSQL partitions dropped whole by retention. */
  droppedPartitions: string[];
  /** Rows deleted one batch at a time (SQLite: all; PostgreSQL: those of the boundary month and DEFAULT). */
  deletedRows: number;
}

/**
 * One round of usage_events upkeep: on PostgreSQL, partitions for the coming months; then, with a
 * retention, the rows older than it go. Only usage_events loses rows: the ledger's charges (money)
 * stay, and the statistics are their own aggregated tables (usage_rollup_*), fed as requests
 * finish, never re-read from usage_events. A charge whose request is gone shows in the credit
 * history without its key (a left join), and the reconcile check counts orphans only within the
 * retention.
 */
export async function maintainUsage(
  store: Store,
  now: number,
  settings: UsageRetentionSettings,
): Promise<UsageMaintenanceReport> {
  const report: UsageMaintenanceReport = { createdPartitions: [], droppedPartitions: [], deletedRows: 0 };
  if (store.dialect === 'postgres') report.createdPartitions = await ensureUsagePartitions(store.db, now);
  const cutoff = retentionCutoff(now, settings.retentionDays);
  if (cutoff === null) return report;
  if (store.dialect === 'postgres') report.droppedPartitions = await dropUsagePartitionsBefore(store.db, cutoff);
  report.deletedRows = await deleteUsageBefore(store, cutoff, settings.batchRows ?? RETENTION_BATCH_ROWS);
  return report;
}

/** The first epoch ms kept under a retention of `days` (null: keep everything). */
function retentionCutoff(now: number, days: number): number | null {
  return days > 0 ? now - days * DAY_MS : null;
}

/**
 * Deletes the rows older than `cutoff`, `batch` at a time, each batch its own statement (and
 * transaction), so that no write lock is held for long; returns how many went.
 */
async function deleteUsageBefore(store: Store, cutoff: number, batch: number): Promise<number> {
  let deleted = 0;
  for (;;) {
    // PostgreSQL: (id, created_at) is the partitioned table's key, and created_at prunes partitions.
    const result =
      store.dialect === 'postgres'
        ? await sql`delete from usage_events where (id, created_at) in (
            select id, created_at from usage_events where created_at < ${cutoff} limit ${batch})`.execute(store.db)
        : await sql`delete from usage_events where id in (
            select id from usage_events where created_at < ${cutoff} limit ${batch})`.execute(store.db);
    const count = Number(result.numAffectedRows ?? 0);
    deleted += count;
    if (count < batch) return deleted;
    // Let other writers in between batches.
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * Runs `maintainUsage` at start and every `intervalMs` (default hourly); one round at a time.
 * The settings are read each round, so a reload's retention applies at the next one.
 */
export function startUsageMaintenance(
  deps: { store: Store; clock: Clock; settings: () => UsageRetentionSettings },
  intervalMs: number,
  onError: (error: unknown) => void,
): { close(): Promise<void> } {
  let running: Promise<unknown> | null = null;
  const round = () => {
    if (running) return;
    running = maintainUsage(deps.store, deps.clock.now(), deps.settings())
      .catch(onError)
      .finally(() => (running = null));
  };
  round();
  const timer = setInterval(round, intervalMs);
  timer.unref();
  return {
    async close() {
      clearInterval(timer);
      await running;
    },
  };
}
