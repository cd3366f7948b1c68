import { describe, expect, it } from 'vitest';
import { compareEntryIds, SentSettlements } from './sent-settlements.js';
import type { SettlementRecord } from './settlement-record.js';

const record = (id: string) => ({ charge: true, event: { id } }) as unknown as SettlementRecord;

describe('settlements sent to Redis and not yet seen written', () => {
  it('lets go of entries older than the stream’s oldest (written), keeps the rest', () => {
    const sent = new SentSettlements();
    sent.checked('g1', '');
    sent.add('10-0', record('a'));
    sent.add('10-1', record('b'));
    sent.add('11-0', record('c'));
    expect(sent.checked('g1', '10-1')).toEqual([]);
    expect(sent.size).toBe(2);
    expect(sent.checked('g1', '')).toEqual([]);
    expect(sent.size).toBe(0);
  });

  it('hands back every record it holds when Redis comes back with another generation (its data lost)', () => {
    const sent = new SentSettlements();
    sent.checked('g1', '');
    sent.add('10-0', record('a'));
    sent.add('12-0', record('b'));
    expect(sent.checked('g2', '5-0').map((entry) => entry.event.id)).toEqual(['a', 'b']);
    expect(sent.size).toBe(0);
  });

  it('stays bounded, counting what it let go', () => {
    const sent = new SentSettlements(2);
    sent.add('1-0', record('a'));
    sent.add('2-0', record('b'));
    sent.add('3-0', record('c'));
    expect(sent.size).toBe(2);
    expect(sent.dropped).toBe(1);
  });

  it('orders entry ids by time, then sequence', () => {
    expect(compareEntryIds('9-5', '10-0')).toBeLessThan(0);
    expect(compareEntryIds('10-2', '10-10')).toBeLessThan(0);
    expect(compareEntryIds('10-0', '10-0')).toBe(0);
    expect(compareEntryIds('1764212345678-3', '1764212345679-0')).toBeLessThan(0);
    expect(compareEntryIds('1764212345679-0', '1764212345678-12')).toBeGreaterThan(0);
    expect(compareEntryIds('10-1', '10')).toBeGreaterThan(0);
  });

  it('lets go, oldest first, of the written records only, stopping at the first one not written', () => {
    const sent = new SentSettlements();
    sent.checked('g1', '');
    for (const id of ['10-0', '10-1', '11-0', '12-0']) sent.add(id, record(id));
    expect(sent.checked('g1', '11-0')).toEqual([]);
    expect(sent.size).toBe(2);
    // Redis lost its data: exactly the two not yet written come back.
    expect(sent.checked('g2', '').map((entry) => entry.event.id)).toEqual(['11-0', '12-0']);
  });

  it('never lets go early a record that arrived out of the stream order', () => {
    const sent = new SentSettlements();
    sent.checked('g1', '');
    sent.add('20-0', record('late'));
    sent.add('10-0', record('early'));
    // Only 10-0 is written: 20-0 stays, and 10-0 behind it is let go at a later check.
    expect(sent.checked('g1', '15-0')).toEqual([]);
    expect(sent.checked('g2', '').map((entry) => entry.event.id)).toEqual(['late', 'early']);
  });
});

describe('sent settlements and a question in flight', () => {
  it('keeps a record sent after the question: an empty stream in the answer says nothing of it', () => {
    const sent = new SentSettlements();
    sent.checked('g1', '');
    sent.add('10-0', record('a'));
    const askedAt = sent.mark();
    // Redis answered "stream empty" (10-0 was written); 12-0 was sent while the answer travelled.
    sent.add('12-0', record('b'));
    expect(sent.checked('g1', '', askedAt)).toEqual([]);
    expect(sent.size).toBe(1);
    // Redis then lost its data: the record not yet written is written from here.
    expect(sent.checked('g2', '')).toEqual([record('b')]);
  });
});
