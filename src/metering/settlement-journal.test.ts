import { afterEach, describe, expect, it } from 'vitest';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
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
    // Records settled in one turn are appended together right after it; nobody is told before.
    expect(written).toEqual([]);
    await nextTurn();
    expect(written.map((each) => each.event.id)).toEqual(['usage_a', 'usage_b']);
    expect(existsSync(journalFile)).toBe(true);
    expect(SettlementJournal.read([journalFile]).map((each) => each.event.id)).toEqual(['usage_a', 'usage_b']);
    expect(await eventCount(store)).toBe(0);
    await journaled.flush();
    expect(await eventCount(store)).toBe(2);
    expect(await getBalance(store, 'user-1')).toBe(1_000_000 - 300);
    // Committed: the journal holds nothing the store lacks.
    expect(existsSync(journalFile)).toBe(false);
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
    expect(existsSync(journalFile)).toBe(false);
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
