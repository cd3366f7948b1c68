import { commandTimeoutOf, deriveRedis, type RedisClient } from '../store/redis-client.js';
import type { Logger } from 'pino';
import type { Store } from '../store/database.js';
import type { RedisHotCounters } from './redis-hot-counters.js';
import type { SettlementRecord } from './settlement-record.js';
import { writeSettlements } from './write-settlements.js';

export interface StreamWriterOptions {
  /** Entries a dead instance read and never acknowledged are taken over after this long idle. */
  claimIdleMs?: number;
  maxBatch?: number;
  /** How long the writer waits after a pass over every shard's stream found nothing new. */
  blockMs?: number;
  /**
   * How long the writer waits after a pass that wrote less than a full batch, so the next batch
   * gathers what settled meanwhile (the SQLite writer's 50 ms, for the same reason).
   */
  gatherMs?: number;
}

export const SETTLEMENT_GROUP = 'settlement-writers';
const GROUP = SETTLEMENT_GROUP;

/**
 * Drains the settlement streams (one per account shard, redis-hot-keys.ts) into the store. Every
 * instance runs one, in one consumer group per stream: each entry goes to one of them; it is
 * acknowledged only after its store transaction commits (the write is idempotent, so an entry
 * written twice changes nothing twice). Entries a dead instance had read and not acknowledged are
 * claimed by a live one after `claimIdleMs`. Streams of different shards may be on different
 * nodes of a Redis Cluster, so each is read on its own (no read blocks across them): a pass reads
 * every shard without waiting, and the writer pauses `blockMs` after a pass that found nothing
 * and `gatherMs` after one that wrote less than a full batch.
 */
export class StreamSettlementWriter {
  private readonly reader: RedisClient;
  private readonly consumer: string;
  private running = false;
  private loop: Promise<void> | undefined;
  private readonly claimIdleMs: number;
  private readonly maxBatch: number;
  private readonly blockMs: number;
  private readonly gatherMs: number;
  private readonly lastClaim = new Map<number, number>();
  /**
   * Shards where this consumer may have read entries it has not acknowledged: their pending list
   * is read first. Every shard at start; a shard leaves once that read finds none, and comes back
   * when a batch fails or a read's reply is lost (only then can entries stay this consumer's).
   */
  private readonly mayHaveOwn: Set<number>;
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
    base: RedisClient,
    private readonly counters: RedisHotCounters,
    private readonly store: Store,
    private readonly logger: Logger,
    private readonly clock: { now(): number },
    consumer: string,
    options: StreamWriterOptions = {},
  ) {
    this.consumer = consumer;
    this.mayHaveOwn = new Set(counters.keys.shards);
    this.claimIdleMs = options.claimIdleMs ?? 30_000;
    this.maxBatch = options.maxBatch ?? 500;
    this.blockMs = options.blockMs ?? 200;
    this.gatherMs = Math.min(options.gatherMs ?? 50, this.blockMs);
    // The reader has a connection of its own (a long batch must not hold up admissions); it keeps
    // the installation's fail-fast options, with a little more time for a batch of 500 entries,
    // and sends the reads of every shard in one write.
    this.reader = deriveRedis(base, {
      lazyConnect: false,
      batchWrites: true,
      commandTimeout: this.blockMs + (commandTimeoutOf(base) ?? 1000),
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
    this.wake();
    await this.loop;
    // One last pass so a graceful stop leaves nothing pending here (Redis down: it waits in the stream).
    // A reader reconnecting after a Redis pause gets its usual 2 s: the pass also ends a store
    // write this writer began before the pause, which would otherwise keep the accounts' loads
    // waiting until its lease runs out.
    await this.connected();
    for (let attempt = 0; attempt < 5 && this.reader.status === 'ready'; attempt++) {
      try {
        const drained = await this.drainOnce();
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
      const drained = await this.drainOnce();
      if (drained === 0) return;
    }
  }

  private async run(): Promise<void> {
    while (this.running) {
      try {
        const drained = await this.drainOnce();
        this.lastProgress = this.clock.now();
        // Issue 31: a pass right after a small batch wrote one store transaction (and a begin, a
        // read and an acknowledgement in Redis) for every few settlements, in this process.
        if (this.running && drained < this.maxBatch) await this.idle(drained === 0 ? this.blockMs : this.gatherMs);
      } catch (error) {
        this.lastError = error;
        this.onFailure(error);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      if (this.clock.now() - this.lastLength >= 1000) {
        this.lastLength = this.clock.now();
        this.streamLength = await this.backlogNow().catch(() => this.streamLength);
      }
    }
  }

  /** Waits after a pass that found nothing or little (cut short by stop()). */
  private idle(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
  private wake: () => void = () => undefined;

  /** Entries in every shard's stream. */
  private async backlogNow(): Promise<number> {
    let total = 0;
    for (const shard of this.counters.keys.shards) total += await this.reader.xlen(this.counters.keys.stream(shard));
    return total;
  }

  /**
   * One pass over every shard's stream. Returns how many entries were written. The reads of all
   * shards are sent at once (one round trip, and one write(2) on a batching connection: before,
   * two reads per shard one after another, 32 round trips per pass for one shard with entries);
   * the store writes then go one shard after another, as before.
   */
  private drainOnce(): Promise<number> {
    // One pass at a time (the loop's, a flush's, the stop's): a pass no longer reads this
    // consumer's pending entries every time, so a flush that overlapped a pass still writing
    // would find nothing new and return before those entries are in the store.
    const pass = this.lastPass.then(() => this.passOnce());
    this.lastPass = pass.catch(() => undefined);
    return pass;
  }
  private lastPass: Promise<unknown> = Promise.resolve();

  private async passOnce(): Promise<number> {
    await this.connected();
    // A shard that fails (its node down, its group lost) does not hold up the others this pass.
    let written = 0;
    let failure: { error: unknown } | null = null;
    const reads = await Promise.all(
      this.counters.keys.shards.map((shard) =>
        this.readShard(shard).then(
          (entries) => ({ shard, entries, error: null }),
          (error: unknown) => ({ shard, entries: [], error: { error } }),
        ),
      ),
    );
    for (const { shard, entries, error } of reads) {
      if (error) failure ??= error;
      if (entries.length === 0) continue;
      try {
        await this.write(shard, entries);
        written += entries.length;
      } catch (writeError) {
        failure ??= { error: writeError };
      }
    }
    if (failure) throw failure.error;
    return written;
  }

  /**
   * One shard: this consumer's own unacknowledged entries (left by a failed write or a lost
   * reply; only read while there may be some), entries idle too long at another consumer, then
   * new ones.
   */
  private async readShard(shard: number): Promise<Array<{ id: string; record: SettlementRecord }>> {
    try {
      await this.ensureGroup(shard);
      if (this.mayHaveOwn.has(shard)) {
        const own = await this.read(shard, '0');
        if (own.length > 0) return own;
        this.mayHaveOwn.delete(shard);
      }
      const now = this.clock.now();
      if (now - (this.lastClaim.get(shard) ?? 0) >= Math.min(this.claimIdleMs, 1000)) {
        this.lastClaim.set(shard, now);
        const claimed = await this.claim(shard);
        if (claimed.length > 0) return claimed;
      }
      return await this.read(shard, '>');
    } catch (error) {
      // A read whose reply was lost may have made entries this consumer's: read them next pass.
      this.mayHaveOwn.add(shard);
      throw error;
    }
  }

  private async write(shard: number, entries: Array<{ id: string; record: SettlementRecord }>): Promise<void> {
    const records = entries.map((entry) => entry.record);
    const now = this.clock.now();
    try {
      const storeWrite = await this.counters.beginWrite(shard, records);
      let committed = false;
      try {
        await writeSettlements(this.store, this.logger, records, now);
        committed = true;
      } finally {
        await this.counters.endWrite(GROUP, entries, committed, storeWrite);
      }
    } catch (error) {
      // Not acknowledged (or not known to be): they stay this consumer's, read again next pass.
      this.mayHaveOwn.add(shard);
      throw error;
    }
    this.written += entries.length;
    if (this.failing) {
      this.writtenSinceRecovery += entries.length;
      const backlog = await this.backlogNow().catch(() => -1);
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

  private async read(shard: number, from: '0' | '>') {
    const args: (string | number)[] = ['GROUP', GROUP, this.consumer, 'COUNT', this.maxBatch];
    args.push('STREAMS', this.counters.keys.stream(shard), from);
    const reply = (await this.reader
      .call('XREADGROUP', ...args)
      .catch((error) => this.lostGroup(shard, error))) as Array<[string, Array<[string, string[]]>]> | null;
    return parseEntries(reply?.[0]?.[1] ?? []);
  }

  /**
   * NOGROUP: the stream and its group are gone (Redis restarted without its data, or the key was
   * deleted). The group is created again on the next pass; before issue 25 the writer remembered
   * it forever and every read failed, so usage and charges stopped being written.
   */
  private lostGroup(shard: number, error: unknown): never {
    if (String((error as Error)?.message).includes('NOGROUP')) {
      if (this.groupReady.has(shard))
        this.logger.error(
          'the settlement stream lost its consumer group (Redis restarted without its data?): creating it again; settlements that were in the lost stream are not in the store unless Redis keeps its data (appendonly)',
        );
      // Lost with its node's data: the other shards' groups on that node went too. Every group is
      // created again on the next pass (creating one that exists changes nothing).
      this.groupReady.clear();
    }
    throw error;
  }

  /** Entries another consumer read and left unacknowledged for claimIdleMs (its instance died). */
  private async claim(shard: number) {
    const reply = (await this.reader
      .call(
        'XAUTOCLAIM',
        this.counters.keys.stream(shard),
        GROUP,
        this.consumer,
        this.claimIdleMs,
        '0-0',
        'COUNT',
        this.maxBatch,
      )
      .catch((error) => this.lostGroup(shard, error))) as [string, Array<[string, string[]] | null>];
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

  private readonly groupReady = new Set<number>();
  private async ensureGroup(shard: number): Promise<void> {
    if (this.groupReady.has(shard)) return;
    try {
      await this.reader.call('XGROUP', 'CREATE', this.counters.keys.stream(shard), GROUP, '0', 'MKSTREAM');
    } catch (error) {
      if (!String((error as Error).message).includes('BUSYGROUP')) throw error;
    }
    this.groupReady.add(shard);
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
