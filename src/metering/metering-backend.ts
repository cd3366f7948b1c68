import type { Logger } from 'pino';
import type { Store } from '../store/database.js';
import type { Clock } from '../shared/clock.js';
import type { IdGenerator } from '../shared/ids.js';
import type { AdmissionCheck, AdmissionDecision, HotCounters, Settlement } from './hot-counters.js';
import type { CounterSource } from './counter-source.js';
import type { MeteringSettings } from './metering-settings.js';
import type { UsageWriter, UsageWriterOptions } from './usage-writer.js';

/**
 * Where metering keeps its hot counters and sends its settlements: this process's memory (one
 * instance) or Redis (any number of instances, with its own outage fallback). Chosen once, when
 * metering is built; the request path (metering.ts) is the same for both.
 */
export interface MeteringBackend {
  readonly counters: HotCounters;
  /** The store writer of this instance (memory: every settlement; Redis: those Redis refused). */
  readonly writer: UsageWriter;
  /** Identity of the counters for the ledger watch (one watch per shared set of counters). */
  readonly ledgerIdentity: string | undefined;
  start(): Promise<void>;
  /** Writes and returns what it holds (the server stopped taking requests); close() follows. */
  drain(): Promise<void>;
  close(): Promise<void>;
  /** Writes every settled request to the store now. */
  flush(): Promise<void>;
  /** Rate windows, quotas and the credit hold, in one step (or the backend's fallback). */
  admit(check: AdmissionCheck): Promise<AdmissionDecision>;
  /** The hold becomes the charge; `fromLease`: admitted from this instance's outage lease. */
  settle(settlement: Settlement, fromLease: boolean): void;
  /** Settlements waiting for the store (this process's writer and, Redis, the shared stream). */
  readonly backlog: number;
  settlementStalled(limitMs: number): string | null;
  /** Holds waiting to be released after an admission Redis did not answer. */
  readonly unansweredHolds: number;
  /** Redis only: requests admitted locally from the lease and admissions that asked Redis (tests, measurements). */
  readonly admissions?: { local: number; redis: number };
}

/** What a backend is built from (metering.ts makes it). */
export interface MeteringBackendContext {
  store: Store;
  logger: Logger;
  clock: Clock;
  ids: IdGenerator;
  settings: MeteringSettings;
  source: CounterSource;
  writerOptions: UsageWriterOptions;
  /** Lets the held-back ends of these responses go (their settlements are durable). */
  releaseEnds(records: Settlement['record'][]): void;
  /** Rate-limited warning about a Redis failure during `what`. */
  warn(error: unknown, what: string): void;
}
