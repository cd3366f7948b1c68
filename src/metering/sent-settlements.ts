import type { SettlementRecord } from './settlement-record.js';

/**
 * Settlement records this instance appended to the Redis stream and has not yet seen written.
 * Redis deletes an entry once an instance wrote it to the store, so every entry older than the
 * stream's oldest is written. If Redis comes back without its data (a new generation), the
 * stream is gone with the records of answers already sent: this instance writes the ones it
 * still holds to the store itself (idempotent, by event id), so they are recorded and charged.
 */
export class SentSettlements {
  private readonly sent = new Map<string, { record: SettlementRecord; seq: number }>();
  private seq = 0;
  private generation: string | null = null;
  /** Records let go because the bound was reached (a long store outage). */
  dropped = 0;

  constructor(private readonly max = 50_000) {}

  get size(): number {
    return this.sent.size;
  }

  add(entryId: string, record: SettlementRecord): void {
    if (!entryId) return;
    if (this.sent.size >= this.max) {
      const [oldest] = this.sent.keys();
      this.sent.delete(oldest);
      this.dropped++;
    }
    this.sent.set(entryId, { record, seq: ++this.seq });
  }

  /**
   * Take before asking Redis for the stream's oldest entry, and pass to `checked`: a record sent
   * after the question is not covered by its answer (an empty stream then says nothing of it).
   * Before, such a record was let go unwritten, and lost if Redis then lost its data.
   */
  mark(): number {
    return this.seq;
  }

  /** Whether a generation was seen already (a new one found now means Redis lost its data). */
  get knowsGeneration(): boolean {
    return this.generation !== null;
  }

  /** Whether this generation differs from the one seen before (Redis lost its data meanwhile). */
  isNew(generation: string): boolean {
    return this.generation !== null && generation !== this.generation;
  }

  /**
   * What Redis says now. Returns the records to write to the store directly: all still held when
   * the generation changed (Redis lost its data), none otherwise (the written ones are let go).
   */
  checked(generation: string, oldest: string, askedAt = Number.POSITIVE_INFINITY): SettlementRecord[] {
    if (this.generation !== null && generation !== this.generation) {
      this.generation = generation;
      const lost = [...this.sent.values()].map((sent) => sent.record);
      this.sent.clear();
      return lost;
    }
    this.generation = generation;
    // Oldest first (insertion order, which is the stream's order: one shard's settlements take
    // one connection and their replies come back in the order Redis appended them). Stops at the
    // first record not known to be written: before, every check compared every held record (at
    // saturation thousands a second, each comparison splitting two ids into arrays), issue 31.
    // A record out of that order is only let go at a later check, never early.
    for (const [entryId, { seq }] of this.sent) {
      if (seq > askedAt) break;
      if (oldest !== '' && compareEntryIds(entryId, oldest) >= 0) break;
      this.sent.delete(entryId);
    }
    return [];
  }
}

/** Orders stream entry ids ("<ms>-<seq>", both decimal integers) without allocating. */
export function compareEntryIds(a: string, b: string): number {
  const aDash = entryIdDash(a);
  const bDash = entryIdDash(b);
  return compareDecimal(a, 0, aDash, b, 0, bDash) || compareDecimal(a, aDash + 1, a.length, b, bDash + 1, b.length);
}

/** Where an id's sequence starts (an id without one: its end). */
function entryIdDash(id: string): number {
  const dash = id.indexOf('-');
  return dash < 0 ? id.length : dash;
}

/** Compares the decimal integers a[aFrom, aTo) and b[bFrom, bTo) (no leading zeros, as Redis writes them). */
function compareDecimal(a: string, aFrom: number, aTo: number, b: string, bFrom: number, bTo: number): number {
  const length = aTo - aFrom - (bTo - bFrom);
  if (length !== 0) return length;
  for (let offset = 0; offset < aTo - aFrom; offset++) {
    const difference = a.charCodeAt(aFrom + offset) - b.charCodeAt(bFrom + offset);
    if (difference !== 0) return difference;
  }
  return 0;
}
