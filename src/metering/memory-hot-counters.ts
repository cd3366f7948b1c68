import { decideRate, adjustTat } from './rate-limit-window.js';
import {
  decideHold,
  type AdmissionCheck,
  type AdmissionDecision,
  type CounterDrift,
  type HotCounters,
  type LedgerWriteTicket,
  type Settlement,
} from './hot-counters.js';
import type { CounterSource } from './counter-source.js';
import { addMonthSpend, spendIn, type MonthSpend } from './key-month-spend.js';
import { monthOf } from './key-spend.js';
import type { SettlementRecord } from './settlement-record.js';
import type { LedgerMove } from '../credits/credit-ledger.js';

interface OpenHold {
  amount: number;
  expiresAt: number;
}

/** State shared by users and keys: open holds, settlements not yet in the store, store writes under way. */
interface Counter {
  holds: Map<string, OpenHold>;
  held: number;
  /** Store writes touching this entity right now: a load waits for them (see load()). */
  writing: number;
  /** Bumped by every store write's end, so a load that raced one starts over. */
  epoch: number;
}

interface UserCounter extends Counter {
  /** Balance with every settlement applied; null until loaded from the ledger. */
  balance: number | null;
  /** Charges settled here and not yet committed to the store. */
  pending: number;
  /** The newest ledger entry the loaded balance includes: later grants are added, earlier ones are in it. */
  loadedAt: number;
}

interface KeyCounter extends Counter {
  spend: MonthSpend | null;
  /** Spend settled and not yet committed, per month. */
  pending: Map<string, number>;
}

/** Where settled records go to be written to the store (the usage writer). */
export interface RecordSink {
  enqueue(record: SettlementRecord): void;
}

/**
 * Hot counters in this process's memory: right for one instance (the default, no Redis). Every
 * decision is synchronous JavaScript, so it is atomic without locks. Counters are loaded from the
 * store on first use; a load never overlaps a store write of the same account (writes announce
 * themselves with beginWrite/endWrite) so that the settlements not yet committed are counted once.
 */
export class MemoryHotCounters implements HotCounters {
  readonly name = 'memory';
  private readonly requestTats = new Map<string, number>();
  private readonly tokenTats = new Map<string, number>();
  private readonly users = new Map<string, UserCounter>();
  private readonly keys = new Map<string, KeyCounter>();
  private sink: RecordSink | undefined;
  private readonly appliedEntries = new Set<number>();
  /** Settlements counted as pending here (a record spilled by an earlier process is not one of them). */
  private readonly pendingEvents = new Set<string>();
  private ledgerWatermark = 0;
  private pollTimer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private onPollError: (error: unknown) => void = () => undefined;

  constructor(private readonly source: CounterSource) {}

  /** The writer that takes settled records (set once, when metering is built). */
  setSink(sink: RecordSink): void {
    this.sink = sink;
  }

  async admit(check: AdmissionCheck): Promise<AdmissionDecision> {
    const { hold } = check;
    const user = hold?.trackUser ? await this.loadedUser(hold.userId) : null;
    const key = hold?.trackKey ? await this.loadedKey(check.keyId) : null;
    const decision = this.decide(check, user, key);
    if (decision.hold !== 'insufficient_credits' || !this.pollTimer) return decision;
    // Before refusing for credit, catch up with the ledger: a grant another process (the CLI)
    // has just written is then honoured at once. Only refusals pay for this read.
    await this.pollLedger();
    return this.decide(check, user, key);
  }

  /** Synchronous: nothing else runs between the checks and the hold. */
  private decide(check: AdmissionCheck, user: UserCounter | null, key: KeyCounter | null): AdmissionDecision {
    const { hold, now } = check;
    let rate: AdmissionDecision['rate'] = null;
    let rateState: ReturnType<typeof decideRate> | null = null;
    if (check.rate) {
      rateState = decideRate(
        this.requestTats.get(check.keyId) ?? null,
        this.tokenTats.get(check.keyId) ?? null,
        now,
        check.rate.tokens,
        check.rate.limits,
      );
      rate = rateState.check;
      if (!rate.allowed) return { rate, hold: null };
    }
    if (hold) {
      if (user) sweep(user, now);
      if (key) sweep(key, now);
      const month = monthOf(now);
      const outcome = decideHold(
        hold.amount,
        user ? { balance: user.balance!, held: user.held } : null,
        key ? { monthSpend: spendIn(key.spend!, month), totalSpend: key.spend!.totalSpend, held: key.held } : null,
        check.monthlyQuota,
        check.lifetimeLimit,
      );
      if (outcome !== 'held') return { rate, hold: outcome };
      for (const counter of [user, key]) {
        if (!counter) continue;
        counter.holds.set(hold.id, { amount: hold.amount, expiresAt: hold.expiresAt });
        counter.held += hold.amount;
      }
    }
    if (rateState) {
      if (rateState.rpmTat !== null) this.requestTats.set(check.keyId, rateState.rpmTat);
      if (rateState.tpmTat !== null) this.tokenTats.set(check.keyId, rateState.tpmTat);
      this.sweepBuckets(now);
    }
    return { rate, hold: hold ? 'held' : null };
  }

  async settle(settlement: Settlement): Promise<void> {
    this.settleNow(settlement);
  }

  /** Synchronous: the charge is in the counters and the record queued before this returns. */
  settleNow(settlement: Settlement): void {
    const { hold, charge, keySpend, now } = settlement;
    const user = settlement.userId ? this.userCounter(settlement.userId) : null;
    const key = settlement.keyId ? this.keyCounter(settlement.keyId) : null;
    if (hold) for (const counter of [user, key]) if (counter) release(counter, hold.id);
    if ((user && charge > 0) || (key && keySpend > 0)) this.pendingEvents.add(settlement.record.event.id);
    if (user && charge > 0) {
      if (user.balance !== null) user.balance -= Math.min(charge, Math.max(0, user.balance));
      user.pending += charge;
    }
    if (key && keySpend > 0) {
      if (key.spend) addMonthSpend(key.spend, settlement.month, keySpend);
      key.pending.set(settlement.month, (key.pending.get(settlement.month) ?? 0) + keySpend);
    }
    if (settlement.tokens?.limits.tpmLimit && settlement.keyId && settlement.tokens.delta !== 0) {
      const tat = this.tokenTats.get(settlement.keyId) ?? null;
      this.tokenTats.set(
        settlement.keyId,
        adjustTat(tat, now, settlement.tokens.delta, settlement.tokens.limits.tpmLimit),
      );
    }
    this.sink?.enqueue(settlement.record);
  }

  async balance(userId: string, now: number): Promise<{ balance: number; held: number }> {
    const user = await this.loadedUser(userId);
    sweep(user, now);
    return { balance: user.balance!, held: user.held };
  }

  /** A store write of these records is starting: loads of their accounts wait for it. */
  beginWrite(records: SettlementRecord[]): void {
    for (const counter of this.countersOf(records)) counter.writing++;
  }

  /** The write is over; when committed, the records are no longer pending. */
  endWrite(records: SettlementRecord[], committed: boolean): void {
    for (const counter of this.countersOf(records)) {
      counter.writing--;
      counter.epoch++;
    }
    if (!committed) return;
    for (const { event, charge } of records) {
      if (event.cost_nanos <= 0 || !this.pendingEvents.delete(event.id)) continue;
      if (charge && event.user_id) this.userCounter(event.user_id).pending -= event.cost_nanos;
      if (event.key_id) {
        const pending = this.keyCounter(event.key_id).pending;
        const month = monthOf(event.created_at);
        const left = (pending.get(month) ?? 0) - event.cost_nanos;
        if (left === 0) pending.delete(month);
        else pending.set(month, left);
      }
    }
  }

  async ledgerWrite(userIds: string[]): Promise<LedgerWriteTicket> {
    void userIds;
    return { done: async (moves) => moves.forEach((move) => this.applyMove(move)) };
  }

  /**
   * Ledger entries written by another process (the CLI's `credits grant` on the same SQLite file)
   * reach this instance through a poll of the ledger, every `intervalMs`. Entries this process
   * wrote itself were applied already and are skipped by id.
   */
  startLedgerPoll(intervalMs: number, onError: (error: unknown) => void): void {
    this.onPollError = onError;
    this.pollTimer = setInterval(() => void this.pollLedger(), intervalMs);
    this.pollTimer.unref();
  }

  /** Applies ledger entries written since the last poll (one poll at a time; callers share it). */
  private pollLedger(): Promise<void> {
    this.polling ??= (async () => {
      const newest = await this.source.lastEntryId();
      // Look back a little: on PostgreSQL a lower id can commit after a higher one.
      const moves = await this.source.entriesAfter(Math.max(0, this.ledgerWatermark - LEDGER_LOOKBACK), newest);
      for (const move of moves) this.applyMove(move);
      this.ledgerWatermark = Math.max(this.ledgerWatermark, newest);
      for (const id of this.appliedEntries)
        if (id <= this.ledgerWatermark - LEDGER_LOOKBACK) this.appliedEntries.delete(id);
    })()
      .catch((error) => this.onPollError(error))
      .finally(() => (this.polling = undefined));
    return this.polling;
  }

  /** Starts the poll after the newest entry at start-up (those are in any balance loaded later). */
  async primeLedgerPoll(): Promise<void> {
    this.ledgerWatermark = await this.source.lastEntryId();
  }

  /** A committed entry: added to a loaded balance unless the balance already includes it. */
  private applyMove(move: LedgerMove): void {
    if (this.appliedEntries.has(move.id)) return;
    const user = this.users.get(move.userId);
    if (!user || user.balance === null) return; // loaded later, from a ledger that has it
    if (move.id <= user.loadedAt) return;
    this.appliedEntries.add(move.id);
    user.balance = Math.max(0, user.balance + move.amount);
  }

  /** Reloads every loaded account from the store (the time plays no part: holds stay as they are). */
  async reconcile(): Promise<CounterDrift[]> {
    const drift: CounterDrift[] = [];
    for (const [userId, user] of this.users) {
      if (user.balance === null) continue;
      const actual = user.balance;
      user.balance = null;
      const expected = (await this.loadedUser(userId)).balance!;
      if (expected !== actual) drift.push({ entity: `user ${userId}`, expected, actual });
    }
    for (const [keyId, key] of this.keys) {
      if (!key.spend) continue;
      const actual = key.spend.totalSpend;
      key.spend = null;
      const expected = (await this.loadedKey(keyId)).spend!.totalSpend;
      if (expected !== actual) drift.push({ entity: `key ${keyId}`, expected, actual });
    }
    return drift;
  }

  async close(): Promise<void> {
    clearInterval(this.pollTimer);
    await this.polling;
  }

  private async loadedUser(userId: string): Promise<UserCounter> {
    const user = this.userCounter(userId);
    while (user.balance === null) {
      if (user.writing > 0) {
        await pause();
        continue;
      }
      const epoch = user.epoch;
      const stored = await this.source.balance(userId);
      if (user.balance !== null) break;
      // A store write began or ended meanwhile: what was read may not match `pending`; read again.
      if (user.epoch !== epoch || user.writing > 0) continue;
      user.balance = Math.max(0, stored.balance - user.pending);
      user.loadedAt = stored.lastEntryId;
    }
    return user;
  }

  private async loadedKey(keyId: string): Promise<KeyCounter> {
    const key = this.keyCounter(keyId);
    while (key.spend === null) {
      if (key.writing > 0) {
        await pause();
        continue;
      }
      const epoch = key.epoch;
      const stored = await this.source.keySpend(keyId);
      if (key.spend !== null) break;
      if (key.epoch !== epoch || key.writing > 0) continue;
      const spend: MonthSpend = { ...stored };
      for (const [month, amount] of [...key.pending].sort(([a], [b]) => a.localeCompare(b)))
        addMonthSpend(spend, month, amount);
      key.spend = spend;
    }
    return key;
  }

  private userCounter(userId: string): UserCounter {
    let user = this.users.get(userId);
    if (!user) this.users.set(userId, (user = { ...emptyCounter(), balance: null, pending: 0, loadedAt: 0 }));
    return user;
  }

  private keyCounter(keyId: string): KeyCounter {
    let key = this.keys.get(keyId);
    if (!key) this.keys.set(keyId, (key = { ...emptyCounter(), spend: null, pending: new Map() }));
    return key;
  }

  private countersOf(records: SettlementRecord[]): Counter[] {
    const counters = new Set<Counter>();
    for (const { event, charge } of records) {
      if (event.cost_nanos <= 0) continue;
      if (charge && event.user_id) counters.add(this.userCounter(event.user_id));
      if (event.key_id) counters.add(this.keyCounter(event.key_id));
    }
    return [...counters];
  }

  /** Buckets that are full again carry no information: drop them so memory stays bounded. */
  private sweepBuckets(now: number): void {
    if (this.requestTats.size + this.tokenTats.size < 10_000) return;
    for (const map of [this.requestTats, this.tokenTats]) for (const [key, tat] of map) if (tat <= now) map.delete(key);
  }
}

const LEDGER_LOOKBACK = 1000;

function emptyCounter(): Counter {
  return { holds: new Map(), held: 0, writing: 0, epoch: 0 };
}

function release(counter: Counter, holdId: string): void {
  const hold = counter.holds.get(holdId);
  if (!hold) return;
  counter.holds.delete(holdId);
  counter.held -= hold.amount;
}

/** Holds of a dead request (its settlement never came) stop counting at their expiry. */
function sweep(counter: Counter, now: number): void {
  for (const [id, hold] of counter.holds) if (hold.expiresAt <= now) release(counter, id);
}

function pause(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 2));
}
