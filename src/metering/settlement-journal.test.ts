import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createTestStore, type TestStore } from '../../test/helpers/test-store.js';
import { usageEventRow } from '../../test/helpers/usage-events.js';
import { createLogger } from '../shared/logger.js';
import { applyLedgerEntry, getBalance } from '../credits/credit-ledger.js';
import type { SettlementRecord } from './settlement-record.js';
import { UsageWriter } from './usage-writer.js';
import { SettlementJournal } from './settlement-journal.js';
import { journalLine, parseJournalLine } from './settlement-journal-line.js';

const NOW = Date.UTC(2026, 10, 26, 8);
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
const logger = createLogger('error', new Writable({ write: (_chunk, _encoding, callback) => callback() }));

function record(id: string, cost: number): SettlementRecord {
  const event = usageEventRow({ id, user_id: 'user-1', key_id: 'key-1', cost_nanos: cost, created_at: NOW });
  return { event, charge: true };
}

describe('UsageWriter with a settlement journal', () => {
  let testStore: TestStore | undefined;
  const writers: UsageWriter[] = [];
  const folder = mkdtempSync(join(tmpdir(), 'settlement-journal-'));
  const journalFile = join(folder, 'gateway.db-settlement-journal.jsonl');
  afterEach(async () => {
    for (const writer of writers.splice(0)) await writer.stop();
    await testStore?.cleanup();
    rmSync(folder, { recursive: true, force: true });
  });

  async function setUp() {
    testStore = await createTestStore('sqlite');
    await applyLedgerEntry(testStore.store, { userId: 'user-1', kind: 'grant', amount: 1_000_000, reference: 'grant' });
    return testStore.store;
  }

  function writer(store: TestStore['store'], written: SettlementRecord[] = []) {
    // A commit interval far away: nothing reaches the store unless the test flushes or a start replays.
    const made = new UsageWriter(store, logger, { now: () => NOW }, null, {
      journalFile,
      journalCommitMs: 600_000,
      onWritten: (records) => written.push(...records),
    });
    writers.push(made);
    return made;
  }

  const journaledIds = () =>
    existsSync(journalFile) ? SettlementJournal.read([journalFile]).map((each) => each.event.id) : [];

  const eventCount = async (store: TestStore['store']) =>
    Number(
      (
        await store.db
          .selectFrom('usage_events')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('tells who waits right after the turn (the records are in the journal) and commits in a batch later', async () => {
    const store = await setUp();
    const written: SettlementRecord[] = [];
    const journaled = writer(store, written);
    await journaled.start();
    journaled.enqueue(record('usage_a', 100));
    journaled.enqueue(record('usage_b', 200));
    // The first record found the journal idle: written at once. The next one of the same turn is
    // appended right after the turn, with any others; its answer is not told before.
    expect(written.map((each) => each.event.id)).toEqual(['usage_a']);
    await nextTurn();
    expect(written.map((each) => each.event.id)).toEqual(['usage_a', 'usage_b']);
    expect(existsSync(journalFile)).toBe(true);
    expect(SettlementJournal.read([journalFile]).map((each) => each.event.id)).toEqual(['usage_a', 'usage_b']);
    expect(await eventCount(store)).toBe(0);
    await journaled.flush();
    expect(await eventCount(store)).toBe(2);
    expect(await getBalance(store, 'user-1')).toBe(1_000_000 - 300);
    // Committed: the journal holds nothing the store lacks (the file is kept open, emptied).
    expect(journaledIds()).toEqual([]);
  });

  it('an idle journal takes a record at once; behind a write, records wait for the one write of the turn', async () => {
    const store = await setUp();
    const written: SettlementRecord[] = [];
    const journaled = writer(store, written);
    await journaled.start();
    const told = () => written.map((each) => each.event.id);
    // Nothing journaled this turn or the one before: written (and its answer told) before enqueue returns.
    journaled.enqueue(record('usage_i1', 100));
    expect(told()).toEqual(['usage_i1']);
    expect(journaledIds()).toEqual(['usage_i1']);
    // Same turn: held for the turn's write.
    journaled.enqueue(record('usage_i2', 100));
    journaled.enqueue(record('usage_i3', 100));
    expect(told()).toEqual(['usage_i1']);
    await nextTurn();
    expect(told()).toEqual(['usage_i1', 'usage_i2', 'usage_i3']);
    // The turn right after a write (a busy journal, as under load): held again, one write for the turn.
    journaled.enqueue(record('usage_i4', 100));
    expect(told()).toEqual(['usage_i1', 'usage_i2', 'usage_i3']);
    await nextTurn();
    expect(told()).toEqual(['usage_i1', 'usage_i2', 'usage_i3', 'usage_i4']);
    // A turn with no write in between: idle again, written at once.
    await nextTurn();
    await nextTurn();
    journaled.enqueue(record('usage_i5', 100));
    expect(told()).toEqual(['usage_i1', 'usage_i2', 'usage_i3', 'usage_i4', 'usage_i5']);
    expect(journaledIds()).toEqual(['usage_i1', 'usage_i2', 'usage_i3', 'usage_i4', 'usage_i5']);
    await journaled.flush();
    expect(await eventCount(store)).toBe(5);
    expect(await getBalance(store, 'user-1')).toBe(1_000_000 - 500);
  });

  it('a batch started in the same turn as the settlements journals them first and tells who waits once', async () => {
    const store = await setUp();
    const written: SettlementRecord[] = [];
    const journaled = writer(store, written);
    await journaled.start();
    journaled.enqueue(record('usage_e', 100));
    journaled.enqueue(record('usage_f', 200));
    await journaled.flush();
    await nextTurn();
    expect(await eventCount(store)).toBe(2);
    expect(await getBalance(store, 'user-1')).toBe(1_000_000 - 300);
    // Told when journaled, then again when committed; never before either.
    expect(written.map((each) => each.event.id)).toEqual(['usage_e', 'usage_f', 'usage_e', 'usage_f']);
    expect(journaledIds()).toEqual([]);
  });

  it('a journal that cannot be written: the answers wait for the commit, charged once', async () => {
    const store = await setUp();
    const written: SettlementRecord[] = [];
    const made = writer(store, written);
    await made.start();
    // A directory where the journal file goes: every append fails.
    mkdirSync(journalFile, { recursive: true });
    made.enqueue(record('usage_g', 100));
    made.enqueue(record('usage_h', 200));
    await nextTurn();
    await made.flush();
    expect(written.map((each) => each.event.id)).toEqual(['usage_g', 'usage_h']);
    expect(await eventCount(store)).toBe(2);
    expect(await getBalance(store, 'user-1')).toBe(1_000_000 - 300);
  });

  it('a process that died with records only in the journal: the next start writes them, once', async () => {
    const store = await setUp();
    const dead = writer(store);
    await dead.start();
    dead.enqueue(record('usage_c', 100));
    dead.enqueue(record('usage_d', 200));
    await nextTurn();
    const copy = `${journalFile}.copy`;
    copyFileSync(journalFile, copy);
    expect(await eventCount(store)).toBe(0);

    const next = writer(store);
    await next.start();
    expect(await eventCount(store)).toBe(2);
    expect(await getBalance(store, 'user-1')).toBe(1_000_000 - 300);
    expect(existsSync(journalFile)).toBe(false);

    // Killed between the commit and the file's removal: written again, nothing charged twice.
    copyFileSync(copy, journalFile);
    rmSync(copy);
    const again = writer(store);
    await again.start();
    expect(await eventCount(store)).toBe(2);
    expect(await getBalance(store, 'user-1')).toBe(1_000_000 - 300);
  });
});

describe('settlement journal lines and file', () => {
  const folder = mkdtempSync(join(tmpdir(), 'settlement-journal-file-'));
  const journalFile = join(folder, 'gateway.db-settlement-journal.jsonl');
  beforeEach(() => mkdirSync(folder, { recursive: true }));
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  const full: SettlementRecord = {
    charge: false,
    storeHold: { id: 'hold_1', userId: 'user-1' },
    event: {
      ...usageEventRow({ id: 'usage_x', user_id: 'user-1', key_id: 'key-1', cost_nanos: 123_456, created_at: NOW }),
      request_id: 'req "quoted"\nnew line',
      cache_write_tokens: 7,
      time_to_first_token_ms: 12,
      tokens_per_second: 41.25,
      status: 502,
      error_code: 'upstream_error',
      attempts: JSON.stringify([{ provider: 'p', status: 502 }]),
      surface: 'chat',
      app: 'Mon appli ✓ \u2028',
      app_url: 'https://example.com/?a=1&b="2"',
    },
  };

  it('a line is one line and reads back as the record it was made from', () => {
    const line = journalLine(full);
    expect(line.endsWith('\n')).toBe(true);
    expect(line.slice(0, -1)).not.toContain('\n');
    expect(parseJournalLine(line.slice(0, -1))).toEqual(full);
    const plain: SettlementRecord = {
      charge: true,
      storeHold: null,
      event: usageEventRow({ id: 'usage_y', created_at: NOW }),
    };
    // Absent optional fields come back as null (what the store write makes of them too).
    expect(parseJournalLine(journalLine(plain).slice(0, -1))).toEqual({
      ...plain,
      event: { ...plain.event, cache_write_tokens: null, surface: null, app: null, app_url: null },
    });
  });

  it('reads the JSON object lines of earlier versions, skips a cut line, refuses an unknown format', () => {
    writeFileSync(journalFile, `${JSON.stringify(full)}\n${journalLine(full)}${journalLine(full).slice(0, 40)}`);
    expect(SettlementJournal.read([journalFile])).toEqual([full, full]);
    writeFileSync(journalFile, '[2,1,null,null,"usage_z"]\n');
    expect(() => SettlementJournal.read([journalFile])).toThrow(/unknown format/);
  });

  it('is emptied after a batch only if nothing was appended since the batch started', () => {
    const journal = new SettlementJournal(journalFile);
    const a = record('usage_a', 1);
    const b = record('usage_b', 2);
    journal.append([a]);
    const first = journal.seal();
    journal.append([b]);
    journal.discardSealed(first);
    expect(SettlementJournal.read([journalFile]).map((each) => each.event.id)).toEqual(['usage_a', 'usage_b']);
    const second = journal.seal();
    journal.discardSealed(second);
    expect(SettlementJournal.read([journalFile])).toEqual([]);
    // A mark from before the file was emptied does not apply to what came after.
    journal.append([a]);
    journal.discardSealed(first);
    expect(SettlementJournal.read([journalFile]).map((each) => each.event.id)).toEqual(['usage_a']);
    journal.discardSealed(journal.seal());
    journal.close();
    expect(existsSync(journalFile)).toBe(false);
  });

  it('a file grown past its size is sealed under another name when a batch starts, removed once committed', () => {
    const journal = new SettlementJournal(journalFile, 1);
    journal.append([record('usage_a', 1)]);
    const mark = journal.seal();
    expect(journal.leftovers()).toHaveLength(1);
    journal.append([record('usage_b', 2)]);
    expect(SettlementJournal.read(journal.leftovers()).map((each) => each.event.id)).toEqual(['usage_a', 'usage_b']);
    journal.discardSealed(mark);
    expect(SettlementJournal.read(journal.leftovers()).map((each) => each.event.id)).toEqual(['usage_b']);
    journal.close();
  });
});
