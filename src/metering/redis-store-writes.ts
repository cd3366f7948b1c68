import { randomUUID } from 'node:crypto';
import type { RedisClient } from '../store/redis-client.js';
import type { LedgerWriteTicket } from './hot-counters.js';
import { monthOf } from './key-spend.js';
import type { SettlementRecord } from './settlement-record.js';
import { ACK_SETTLEMENTS, BEGIN_WRITE, END_LEDGER_WRITE, END_WRITES } from './redis-write-scripts.js';
import type { HotKeyLayout } from './redis-hot-keys.js';

/** A store write announced to Redis: its id ends it, once, on the accounts (of one shard) it marked. */
export interface StoreWrite {
  id: string;
  shard: number;
  keys: string[];
}

/**
 * The store writes of the Redis hot counters (the settlement writer's batches, ledger moves, the
 * records a data loss writes directly): each marks the accounts it moves at its begin and takes the
 * marks off at its end, so a load of those accounts (redis-account-loads.ts) waits for the commit
 * instead of reading a ledger balance that misses it. Ends Redis did not answer are kept and run
 * again (endUnanswered).
 */
export class RedisStoreWrites {
  /** Store writes this instance began whose end Redis did not confirm. */
  private readonly unended = new Set<StoreWrite>();
  /** Store writes under way (begun, not yet ended): marked again on a Redis that lost its data. */
  private readonly active = new Set<StoreWrite>();

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: HotKeyLayout,
    private readonly writeLeaseMs: number,
  ) {}

  /**
   * Redis lost this shard's data, write marks included: the store writes still under way are
   * marked again, and so are the accounts of `lost` (records about to be written to the store
   * directly). Until those writes end, a load of their accounts waits: a balance read from the
   * ledger before their commit would miss their charges, and every later admission would spend
   * them a second time. Returns the write to end (endMarks) once `lost` is in the store.
   */
  async markAgain(shard: number, lost: SettlementRecord[]): Promise<StoreWrite> {
    const now = Date.now();
    for (const write of this.active) if (write.shard === shard && write.keys.length > 0) await this.mark(write, now);
    return this.begin(shard, this.accountsOf(shard, lost));
  }

  /** Ends a write begun by markAgain (its records are in the store, or its lease will end it). */
  async endMarks(write: StoreWrite): Promise<void> {
    if (write.keys.length > 0) await this.end(write, () => this.unmark(write));
    else this.active.delete(write);
  }

  async ledgerWrite(userIds: string[]): Promise<LedgerWriteTicket> {
    // One write per shard: a script touches the keys of one slot only.
    const byShard = new Map<number, string[]>();
    for (const userId of userIds) {
      const shard = this.keys.shardOf(userId);
      byShard.set(shard, [...(byShard.get(shard) ?? []), userId]);
    }
    const writes: Array<{ write: StoreWrite; users: string[] }> = [];
    for (const [shard, users] of byShard)
      writes.push({
        write: await this.begin(
          shard,
          users.map((userId) => this.keys.counters(shard, `u:${userId}`)),
        ),
        users,
      });
    return {
      done: async (moves) => {
        for (const { write, users } of writes)
          await this.end(write, () =>
            END_LEDGER_WRITE.run(this.redis, {
              keys: {},
              keyList: write.keys,
              args: { writeId: write.id },
              argList: users.map((userId) => ({
                amount: moves.filter((move) => move.userId === userId).reduce((sum, move) => sum + move.amount, 0),
              })),
            }),
          );
      },
    };
  }

  /**
   * A settlement batch of one shard's stream is about to be written to the store; pass what it
   * returns to endWrite.
   */
  async beginWrite(shard: number, records: SettlementRecord[]): Promise<StoreWrite> {
    return this.begin(shard, this.accountsOf(shard, records));
  }

  /** The batch is over: acknowledged stream entries (when committed) stop counting as pending. */
  async endWrite(
    group: string,
    entries: Array<{ id: string; record: SettlementRecord }>,
    committed: boolean,
    write: StoreWrite,
  ): Promise<void> {
    // The accounts marked at the batch's begin: those of these entries.
    const { shard, keys: accounts } = write;
    // Each entry names its accounts by their place in the list (1-based; 0: none).
    const place = (account: string | null) => (account === null ? 0 : accounts.indexOf(account) + 1);
    const acknowledged = committed
      ? entries.map(({ id, record }) => {
          const { event, charge } = record;
          const priced = event.cost_nanos > 0;
          return {
            id,
            userAccount: place(
              priced && charge && event.user_id ? this.keys.counters(shard, `u:${event.user_id}`) : null,
            ),
            charge: event.cost_nanos,
            keyAccount: place(priced && event.key_id ? this.keys.counters(shard, `k:${event.key_id}`) : null),
            keySpend: event.cost_nanos,
            month: monthOf(event.created_at),
          };
        })
      : [];
    await this.end(write, () =>
      ACK_SETTLEMENTS.run(this.redis, {
        keys: { stream: this.keys.stream(shard) },
        keyList: accounts,
        args: { group, writeId: write.id },
        argList: acknowledged,
      }),
    );
  }

  /**
   * Ends the store writes whose end (or begin) got no answer from Redis: until then their marks
   * keep the accounts' loads waiting. Called before each batch and before a reconcile.
   */
  async endUnanswered(): Promise<void> {
    for (const write of [...this.unended]) {
      if (write.keys.length > 0) await this.unmark(write);
      this.unended.delete(write);
    }
  }

  /** Marks the write's accounts (by its id) until its lease runs out: their loads wait meanwhile. */
  private async mark(write: StoreWrite, now: number): Promise<void> {
    await BEGIN_WRITE.run(this.redis, {
      keys: {},
      keyList: write.keys,
      args: { now, leaseMs: this.writeLeaseMs, writeId: write.id },
    });
  }

  /** Takes the write's marks off (an end already run, or a begin that never ran, changes nothing). */
  private async unmark(write: StoreWrite): Promise<void> {
    await END_WRITES.run(this.redis, { keys: {}, keyList: write.keys, args: { writeId: write.id } });
  }

  private async begin(shard: number, keys: string[]): Promise<StoreWrite> {
    // The lease is wall-clock time, as loads compare it with Date.now() (never a test clock).
    const now = Date.now();
    const write: StoreWrite = { id: randomUUID(), shard, keys };
    if (keys.length === 0) return write;
    await this.endUnanswered().catch(() => undefined);
    try {
      await this.mark(write, now);
    } catch (error) {
      // Redis may still run it (a paused Redis reads it when it wakes up): end it once it answers.
      this.unended.add(write);
      throw error;
    }
    this.active.add(write);
    return write;
  }

  /**
   * Runs a write's end. A batch that marked no account (every entry cost nothing: refusals, 503s)
   * still has its entries acknowledged: skipping that left them pending forever, read again on
   * every pass ahead of any new entry, so nothing settled after them was written.
   */
  private async end(write: StoreWrite, run: () => Promise<unknown>): Promise<void> {
    // The store's part is over (committed or not): a data loss from now on need not mark it again.
    this.active.delete(write);
    try {
      await run();
    } catch (error) {
      this.unended.add(write);
      throw error;
    }
  }

  /** The counters hashes a batch of one shard's records moves (sorted: the same order everywhere). */
  private accountsOf(shard: number, records: SettlementRecord[]): string[] {
    const accounts = new Set<string>();
    for (const { event, charge } of records) {
      if (event.cost_nanos <= 0) continue;
      if (charge && event.user_id) accounts.add(this.keys.counters(shard, `u:${event.user_id}`));
      if (event.key_id) accounts.add(this.keys.counters(shard, `k:${event.key_id}`));
    }
    return [...accounts].sort();
  }
}
