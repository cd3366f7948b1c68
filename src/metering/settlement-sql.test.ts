import { afterEach, describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { createTestStore, STORE_KINDS, type TestStore } from '../../test/helpers/test-store.js';
import { usageEventRow } from '../../test/helpers/usage-events.js';
import { createLogger } from '../shared/logger.js';
import { applyLedgerEntry, getBalance } from '../credits/credit-ledger.js';
import { MOST_ROWS_PER_INSERT, rowChunks, SETTLEMENT_SQL } from './settlement-sql.js';
import { writeSettlements } from './write-settlements.js';
import type { SettlementRecord } from './settlement-record.js';

const NOW = Date.UTC(2026, 10, 26, 12);
const logger = createLogger('error', new Writable({ write: (_chunk, _encoding, callback) => callback() }));

describe('rowChunks', () => {
  it('covers any count in chunks of at most the most rows a statement takes, each run by a statement at most an eighth larger', () => {
    const shapes = new Set<number>();
    for (let count = 0; count <= 700; count++) {
      const chunks = rowChunks(count);
      expect(chunks.reduce((sum, chunk) => sum + chunk.rows, 0)).toBe(count);
      for (const { rows, statementRows } of chunks) {
        expect(rows).toBeGreaterThan(0);
        expect(statementRows).toBeGreaterThanOrEqual(rows);
        expect(statementRows).toBeLessThanOrEqual(rows * 1.125);
        expect(statementRows).toBeLessThanOrEqual(MOST_ROWS_PER_INSERT);
        shapes.add(statementRows);
      }
    }
    expect(shapes.size).toBe(48);
    expect(rowChunks(301)).toEqual([
      { rows: 256, statementRows: 256 },
      { rows: 45, statementRows: 48 },
    ]);
  });
});

describe('the settlement inserts', () => {
  it('have one SQL text per chunk size, whatever the batch sizes (so each is prepared once)', () => {
    const sql = SETTLEMENT_SQL.sqlite;
    const texts = new Set<string>();
    for (let count = 1; count <= 500; count++) {
      const events = Array.from({ length: count }, (_, index) =>
        usageEventRow({ id: `usage_${index}`, created_at: NOW }),
      );
      const queries = sql.insertUsageEvents(events);
      expect(queries).toHaveLength(Math.ceil(count / MOST_ROWS_PER_INSERT));
      for (const query of queries) texts.add(query.sql);
    }
    expect(texts.size).toBe(48);
  });

  it('on PostgreSQL, one SQL text per table whatever the batch size (the rows travel as one parameter)', () => {
    const sql = SETTLEMENT_SQL.postgres;
    const texts = new Set<string>();
    for (const count of [1, 2, 17, 255, 256, 257, 500]) {
      const events = Array.from({ length: count }, (_, index) =>
        usageEventRow({ id: `usage_${index}`, created_at: NOW }),
      );
      const queries = sql.insertUsageEvents(events);
      expect(queries).toHaveLength(Math.ceil(count / MOST_ROWS_PER_INSERT));
      for (const query of queries) {
        expect(query.parameters).toHaveLength(1);
        texts.add(query.sql);
      }
      const ledger = events.flatMap((event) => ['user-1', 'usage', -1, `usage:${event.id}`, 'm', NOW] as const);
      for (const query of sql.insertLedgerValues(ledger)) {
        expect(query.parameters).toHaveLength(6);
        texts.add(query.sql);
      }
    }
    expect(texts.size).toBe(2);
  });

  it("a lone surrogate or a NUL in an event's text is written as U+FFFD (PostgreSQL's text takes neither; a batch holding one failed on every retry)", async () => {
    testStore = await createTestStore('postgres');
    const { store } = testStore;
    const records: SettlementRecord[] = [
      { event: usageEventRow({ id: 'usage_lone', created_at: NOW, requested_model: 'model-\uD800-x' }), charge: false },
      {
        event: usageEventRow({ id: 'usage_text', created_at: NOW, requested_model: 'model-\\uD800-y' }),
        charge: false,
      },
      { event: usageEventRow({ id: 'usage_nul', created_at: NOW, requested_model: 'model-\u0000-z' }), charge: false },
      {
        event: usageEventRow({ id: 'usage_nul_text', created_at: NOW, requested_model: 'model-\\u0000-w' }),
        charge: false,
      },
    ];
    await writeSettlements(store, logger, records, NOW);
    const rows = await store.db.selectFrom('usage_events').select(['id', 'requested_model']).orderBy('id').execute();
    expect(rows).toEqual([
      { id: 'usage_lone', requested_model: 'model-\uFFFD-x' },
      { id: 'usage_nul', requested_model: 'model-\uFFFD-z' },
      { id: 'usage_nul_text', requested_model: 'model-\\u0000-w' },
      { id: 'usage_text', requested_model: 'model-\\uD800-y' },
    ]);
  });

  let testStore: TestStore | undefined;
  afterEach(async () => {
    await testStore?.cleanup();
    testStore = undefined;
  });

  describe.each(STORE_KINDS)('%s', (kind) => {
    let testStore: TestStore;
    afterEach(async () => {
      await testStore?.cleanup();
    });

    it('a batch larger than one statement writes every event and charge once, and once only when written again', async () => {
      testStore = await createTestStore(kind);
      const { store } = testStore;
      await applyLedgerEntry(store, { userId: 'user-1', kind: 'grant', amount: 1_000_000, reference: 'grant-1' });
      // 301 records: a statement of 256 rows and one of 48 holding the last 45 (the 45th three
      // times more); each costs 7 + its place, all different.
      const records: SettlementRecord[] = Array.from({ length: 301 }, (_, index) => ({
        event: usageEventRow({
          id: `usage_${String(index).padStart(4, '0')}`,
          created_at: NOW + index,
          user_id: 'user-1',
          key_id: 'key-1',
          cost_nanos: 7 + index,
        }),
        charge: true,
      }));
      const total = records.reduce((sum, record) => sum + record.event.cost_nanos, 0);
      await writeSettlements(store, logger, records, NOW);
      await writeSettlements(store, logger, records.slice(100, 250), NOW);
      // A batch of 17 runs the statement of 18 rows: its last record twice.
      await writeSettlements(store, logger, records.slice(284), NOW);
      const events = await store.db.selectFrom('usage_events').select('id').execute();
      expect(events).toHaveLength(301);
      const charges = await store.db
        .selectFrom('credit_ledger')
        .select(['reference', 'amount_nanos'])
        .where('kind', '=', 'usage')
        .execute();
      expect(charges).toHaveLength(301);
      expect(new Set(charges.map((charge) => charge.reference))).toEqual(
        new Set(records.map((record) => `usage:${record.event.id}`)),
      );
      expect(charges.reduce((sum, charge) => sum + Number(charge.amount_nanos), 0)).toBe(-total);
      expect(await getBalance(store, 'user-1')).toBe(1_000_000 - total);
      const spend = await store.db.selectFrom('key_spend').select('total_spend_nanos').executeTakeFirstOrThrow();
      expect(Number(spend.total_spend_nanos)).toBe(total);
    });
  });
});
