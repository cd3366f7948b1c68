import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Store } from '../store/database.js';
import type { RedisHotCounters } from './redis-hot-counters.js';
import type { SettlementRecord } from './settlement-record.js';
import { writeSettlements } from './write-settlements.js';

export interface StreamWriterOptions {
  /** Entries a dead instance read and never acknowledged are taken over after this long idle. */
  claimIdleMs?: number;
  maxBatch?: number;
  /** How long one read waits for new entries. */
  blockMs?: number;
}

export const SETTLEMENT_GROUP = 'settlement-writers';
const GROUP = SETTLEMENT_GROUP;

/**
 * Drains the settlement stream into the store. Every instance runs one, in one consumer group:
 * each entry goes to one of them; it is acknowledged only after its store transaction commits
 * (the write is idempotent, so an entry written twice changes nothing twice). Entries a dead
 * instance had read and not acknowledged are claimed by a live one after `claimIdleMs`.
 */
export class StreamSettlementWriter {
  private readonly reader: Redis;
  private readonly consumer: string;
  private running = false;
  private loop: Promise<void> | undefined;
  private readonly claimIdleMs: number;
  private readonly maxBatch: number;
  private readonly blockMs: number;
  private lastClaim = 0;
  private failing = false;
  private failedSince = 0;
  /** Entries written since the store last failed (for the recovery log line). */
  private writtenSinceRecovery = 0;
  written = 0;
  /** Entries in the stream (all instances'), read at most once a second: the backlog metric. */
  streamLength = 0;
  private lastLength = 0;
  /** When a pass last completed (read, wrote, acknowledged): readiness reports a stall past a limit. */
  private lastProgress = 0;
  private lastError: unknown;

  constructor(
    base: Redis,
    private readonly counters: RedisHotCounters,
    private readonly store: Store,
    private readonly logger: Logger,
    private readonly clock: { now(): number },
    consumer: string,
    options: StreamWriterOptions = {},
  ) {
    this.consumer = consumer;
    this.claimIdleMs = options.claimIdleMs ?? 30_000;
    this.maxBatch = options.maxBatch ?? 500;
    this.blockMs = options.blockMs ?? 200;
    // Blocking reads need a connection of their own. It keeps the installation's fail-fast options
    // (duplicate()), except that a read may block for blockMs before the usual command timeout.
    this.reader = base.duplicate({
      lazyConnect: false,
      commandTimeout: this.blockMs + (base.options.commandTimeout ?? 1000),
    });
    this.reader.on('error', () => undefined);
  }

  start(): void {
    this.lastProgress = this.clock.now();
    this.running = true;
    this.loop = this.run();
  }

  /** Writes what is in the stream (its own pending entries and new ones), then stops. */
  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
    // One last pass so a graceful stop leaves nothing pending here (Redis down: it waits in the stream).
    // A reader reconnecting after a Redis pause gets its usual 2 s: the pass also ends a store
    // write this writer began before the pause, which would otherwise keep the accounts' loads
    // waiting until its lease runs out.
    await this.connected();
    for (let attempt = 0; attempt < 5 && this.reader.status === 'ready'; attempt++) {
      try {
        const drained = await this.drainOnce(0);
        if (drained === 0) break;
      } catch (error) {
        this.logger.error({ err: error }, 'could not write settlements at shutdown; another instance will');
        break;
      }
    }
    await this.reader.quit().catch(() => this.reader.disconnect());
  }

  /**
   * Why settlement is stalled (null: it is not): no pass has completed for `limitMs` (the store
   * refuses writes, or Redis the reads). Readiness turns not-ready on it, so a stalled instance
   * stops getting traffic whose usage and charges it cannot record.
   */
  stalled(limitMs: number): string | null {
    if (!this.running) return null;
    const idle = this.clock.now() - this.lastProgress;
    if (idle < limitMs) return null;
    const reason = (this.lastError as Error | undefined)?.message ?? 'no answer';
    return `settlements have not been written for ${Math.round(idle / 1000)} s (${reason})`;
  }

  /** Writes everything in the stream now (tests, shutdown): new entries and any left pending. */
  async flush(): Promise<void> {
    for (;;) {
      const drained = await this.drainOnce(0);
      if (drained === 0) return;
    }
  }

  private async run(): Promise<void> {
    while (this.running) {
      try {
        await this.drainOnce();
        this.lastProgress = this.clock.now();
      } catch (error) {
        this.lastError = error;
        this.onFailure(error);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      if (this.clock.now() - this.lastLength >= 1000) {
        this.lastLength = this.clock.now();
        this.streamLength = await this.reader.xlen(this.counters.streamKey).catch(() => this.streamLength);
      }
    }
  }

  /**
   * One pass: this consumer's own unacknowledged entries (left by a failed write), entries idle
   * too long at another consumer, then new ones. Returns how many entries were written.
   */
  private async drainOnce(blockMs = this.blockMs): Promise<number> {
    await this.connected();
    await this.ensureGroup();
    let entries = await this.read('0');
    if (entries.length === 0 && this.clock.now() - this.lastClaim >= Math.min(this.claimIdleMs, 1000)) {
      this.lastClaim = this.clock.now();
      entries = await this.claim();
    }
    if (entries.length === 0) entries = await this.read('>', blockMs);
    if (entries.length === 0) return 0;
    await this.write(entries);
    return entries.length;
  }

  private async write(entries: Array<{ id: string; record: SettlementRecord }>): Promise<void> {
    const records = entries.map((entry) => entry.record);
    const now = this.clock.now();
    const storeWrite = await this.counters.beginWrite(records);
    let committed = false;
    try {
      await writeSettlements(this.store, this.logger, records, now);
      committed = true;
    } finally {
      await this.counters.endWrite(GROUP, entries, committed, storeWrite);
    }
    this.written += entries.length;
    if (this.failing) {
      this.writtenSinceRecovery += entries.length;
      const backlog = await this.reader.xlen(this.counters.streamKey).catch(() => -1);
      if (backlog <= this.maxBatch) {
        this.logger.info(
          {
            written: this.writtenSinceRecovery,
            backlog,
            outageMs: this.clock.now() - this.failedSince,
          },
          `store is back: wrote ${this.writtenSinceRecovery} settlements queued in the stream during the outage (${backlog} left)`,
        );
        this.failing = false;
      }
    }
  }

  private async read(from: '0' | '>', blockMs = 0) {
    const args: (string | number)[] = ['GROUP', GROUP, this.consumer, 'COUNT', this.maxBatch];
    if (from === '>' && blockMs > 0) args.push('BLOCK', blockMs);
    args.push('STREAMS', this.counters.streamKey, from);
    const reply = (await this.reader.call('XREADGROUP', ...args).catch((error) => this.lostGroup(error))) as Array<
      [string, Array<[string, string[]]>]
    > | null;
    return parseEntries(reply?.[0]?.[1] ?? []);
  }

  /**
   * NOGROUP: the stream and its group are gone (Redis restarted without its data, or the key was
   * deleted). The group is created again on the next pass; before issue 25 the writer remembered
   * it forever and every read failed, so usage and charges stopped being written.
   */
  private lostGroup(error: unknown): never {
    if (String((error as Error)?.message).includes('NOGROUP')) {
      if (this.groupReady)
        this.logger.error(
          'the settlement stream lost its consumer group (Redis restarted without its data?): creating it again; settlements that were in the lost stream are not in the store unless Redis keeps its data (appendonly)',
        );
      this.groupReady = false;
    }
    throw error;
  }

  /** Entries another consumer read and left unacknowledged for claimIdleMs (its instance died). */
  private async claim() {
    const reply = (await this.reader
      .call(
        'XAUTOCLAIM',
        this.counters.streamKey,
        GROUP,
        this.consumer,
        this.claimIdleMs,
        '0-0',
        'COUNT',
        this.maxBatch,
      )
      .catch((error) => this.lostGroup(error))) as [string, Array<[string, string[]] | null>];
    const claimed = parseEntries((reply?.[1] ?? []).filter((entry): entry is [string, string[]] => entry !== null));
    if (claimed.length > 0)
      this.logger.warn({ count: claimed.length }, 'took over settlements another instance read and never wrote');
    return claimed;
  }

  /** Waits (a little) for the connection, so a first flush right after start does not fail. */
  private async connected(): Promise<void> {
    if (this.reader.status === 'ready') return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 2000);
      this.reader.once('ready', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private groupReady = false;
  private async ensureGroup(): Promise<void> {
    if (this.groupReady) return;
    try {
      await this.reader.call('XGROUP', 'CREATE', this.counters.streamKey, GROUP, '0', 'MKSTREAM');
    } catch (error) {
      if (!String((error as Error).message).includes('BUSYGROUP')) throw error;
    }
    this.groupReady = true;
  }

  private onFailure(error: unknown): void {
    if (!this.failing) {
      this.failing = true;
      this.failedSince = this.clock.now();
      this.writtenSinceRecovery = 0;
      this.logger.error(
        { err: error },
        'could not write settlements to the store; they stay in the Redis stream and are written when it is back',
      );
    }
  }
}

function parseEntries(raw: Array<[string, string[]]>): Array<{ id: string; record: SettlementRecord }> {
  return raw.map(([id, fields]) => {
    const index = fields.indexOf('r');
    return { id, record: JSON.parse(fields[index + 1]) as SettlementRecord };
  });
}
