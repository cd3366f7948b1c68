import { afterEach, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../../src/mock-upstream/mock-upstream.js';
import { testConfigText } from '../helpers/test-gateway.js';
import { createTestStore, TEST_POSTGRES_URL, type StoreKind, type TestStore } from '../helpers/test-store.js';
import { startChildGateway, type ChildGateway } from '../helpers/child-gateway.js';
import { createAuth, migrateAuthTables } from '../../src/users/create-auth.js';
import { createUser } from '../../src/users/create-user.js';
import { createApiKey } from '../../src/keys/create-api-key.js';
import { applyLedgerEntry } from '../../src/credits/credit-ledger.js';
import { randomId, randomIdGenerator } from '../../src/shared/ids.js';
import { accountGet, chat, ledgerFigures } from './metering-helpers.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
// "hello there": 2 prompt tokens at $0.5/M, 10 completion tokens at $1.5/M.
const COST = 2 * 500 + 10 * 1500;
const GRANTED = 1_000_000_000;
const HOLD_TTL_MS = 3000;

describe('settlements survive SIGKILL (child processes)', () => {
  let upstream: MockUpstream | undefined;
  let testStore: TestStore | undefined;
  let children: ChildGateway[] = [];
  afterEach(async () => {
    for (const child of children) if (child.process.exitCode === null) child.process.kill('SIGKILL');
    children = [];
    await testStore?.cleanup();
    await upstream?.close();
  });

  async function account(kind: StoreKind) {
    upstream = await startMockUpstream({ scenario: { chunkCount: 20, chunkGapMs: 2, latencyMs: 20 } });
    testStore = await createTestStore(kind);
    const { store } = testStore;
    const auth = createAuth(store, 'test-secret-test-secret-test-secret', { baseUrl: 'http://127.0.0.1' });
    await migrateAuthTables(auth, store);
    const email = `payer-${randomId(8).toLowerCase()}@example.com`;
    const user = await createUser(auth, store, { email, password: 'plum-orbit-42-lantern' });
    const { fullKey } = await createApiKey(store, randomIdGenerator, Date.now(), { userId: user.id, name: 'load' });
    await applyLedgerEntry(store, { userId: user.id, kind: 'grant', amount: GRANTED, reference: 'grant:kill' });
    const config = testConfigText(
      upstream.url,
      `billing:\n  require_credits: true\nlimits:\n  hold_ttl_ms: ${HOLD_TTL_MS}\n  settlement_claim_ms: 1000\n`,
    );
    return { store, email, userId: user.id, apiKey: fullKey, config };
  }

  /**
   * Load over the instances; after 60 answers the first one is killed and the load goes on over
   * the others until 40 more answers. Each request carries its own x-request-id so the ledger
   * can be checked request by request.
   */
  async function loadAndKill(targets: ChildGateway[], apiKey: string) {
    const [doomed] = targets;
    const completed = new Set<string>();
    const inFlightOnDoomed = new Set<string>();
    let inFlightAtKill = new Set<string>();
    let killed = false;
    let afterKill = 0;
    const worker = async (index: number) => {
      for (let round = 0; afterKill < 40; round++) {
        const live = killed ? targets.slice(1) : targets;
        if (live.length === 0) return;
        const target = live[(index + round) % live.length];
        const requestId = `req-${index}-${round}-${randomId(6)}`;
        if (target === doomed) inFlightOnDoomed.add(requestId);
        try {
          const response = await chat(
            target.url,
            apiKey,
            { max_tokens: 10, stream: round % 2 === 0 },
            {
              headers: {
                authorization: `Bearer ${apiKey}`,
                'content-type': 'application/json',
                'x-request-id': requestId,
              },
            },
          );
          const text = await response.text();
          if (response.status !== 200) throw new Error(`status ${response.status}: ${text}`);
          if (response.headers.get('content-type')?.includes('event-stream') && !text.includes('[DONE]')) continue;
          completed.add(requestId);
          if (killed) afterKill++;
          if (completed.size >= 60 && !killed) {
            killed = true;
            inFlightAtKill = new Set(inFlightOnDoomed);
            doomed.process.kill('SIGKILL');
            if (targets.length === 1) return;
          }
        } catch (error) {
          if (target !== doomed) throw error; // only the killed instance may fail a request
        } finally {
          inFlightOnDoomed.delete(requestId);
        }
      }
    };
    await Promise.all(Array.from({ length: 10 }, (_, index) => worker(index)));
    expect(await doomed.exited).toBe('SIGKILL');
    return { completed, inFlightAtKill };
  }

  /**
   * Every answer a client received whole is charged, once, at its cost; a request charged without
   * its answer arriving can only be one the killed instance was serving at that moment (its
   * output was generated and settled; the last bytes never left).
   */
  async function expectChargedExactly(
    store: TestStore['store'],
    userId: string,
    completed: Set<string>,
    inFlightAtKill: Set<string>,
  ) {
    const events = await store.db
      .selectFrom('usage_events')
      .select(['id', 'request_id'])
      .where('user_id', '=', userId)
      .execute();
    const requestOf = new Map(events.map((event) => [`usage:${event.id}`, event.request_id]));
    const entries = await store.db
      .selectFrom('credit_ledger')
      .select(['reference', 'amount_nanos'])
      .where('user_id', '=', userId)
      .where('kind', '=', 'usage')
      .execute();
    const charged = entries.map((entry) => ({
      // Every charge has its usage event (written in the same transaction).
      request_id: requestOf.get(entry.reference) ?? `no event for ${entry.reference}`,
      amount_nanos: entry.amount_nanos,
    }));
    const chargedIds = new Set(charged.map((row) => row.request_id));
    expect(charged.length).toBe(chargedIds.size); // never twice
    for (const row of charged) expect(Number(row.amount_nanos)).toBe(-COST);
    expect([...completed].filter((id) => !chargedIds.has(id))).toEqual([]);
    expect([...chargedIds].filter((id) => !completed.has(id) && !inFlightAtKill.has(id))).toEqual([]);
    const figures = await ledgerFigures(store, userId);
    expect(figures.charged).toBe(chargedIds.size * COST);
    expect(figures.balance).toBe(GRANTED - chargedIds.size * COST);
    return chargedIds.size;
  }

  it('one of two instances on PostgreSQL + Redis: the survivor writes the dead one’s settlements', async () => {
    const { store, email, userId, apiKey, config } = await account('postgres');
    const env = {
      CHILD_CONFIG: config,
      DATABASE_URL: TEST_POSTGRES_URL,
      PGOPTIONS: `-c search_path=${testStore!.searchPath}`,
      REDIS_URL,
      CHILD_REDIS_PREFIX: `test:${randomId(10)}:`,
    };
    const [doomed, survivor] = await Promise.all([startChildGateway(env), startChildGateway(env)]);
    children.push(doomed, survivor);
    const { completed, inFlightAtKill } = await loadAndKill([doomed, survivor], apiKey);

    // The survivor writes its own settlements and, after settlement_claim_ms, the dead one's.
    const deadline = Date.now() + 30_000;
    while ((await ledgerFigures(store, userId)).chargeEntries < completed.size && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 200));
    await new Promise((resolve) => setTimeout(resolve, HOLD_TTL_MS + 500));
    const charged = await expectChargedExactly(store, userId, completed, inFlightAtKill);

    // The hot counters agree, and the dead instance's holds have expired.
    const signIn = await fetch(`${survivor.url}/api-account/auth/sign-in/email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: 'plum-orbit-42-lantern' }),
    });
    const { token } = (await signIn.json()) as { token: string };
    const balance = await accountGet({ url: survivor.url } as never, token, '/api-account/user/balance');
    expect(balance.body).toMatchObject({ balance_nanos: GRANTED - charged * COST, held_nanos: 0 });
    await survivor.stop();
  }, 120_000);

  it('a single instance on SQLite: every answer sent was journaled first and is charged once it restarts', async () => {
    const { store, userId, apiKey, config } = await account('sqlite');
    const only = await startChildGateway({ CHILD_CONFIG: config, DATABASE_URL: testStore!.url });
    children.push(only);
    const { completed, inFlightAtKill } = await loadAndKill([only], apiKey);
    expect(completed.size).toBeGreaterThanOrEqual(60);
    // Answers end once their settlement is in the journal beside the database (issue 31), not
    // once it is committed: the next start writes what the killed process had not committed
    // before it serves anything.
    const restarted = await startChildGateway({ CHILD_CONFIG: config, DATABASE_URL: testStore!.url });
    children.push(restarted);
    await restarted.stop();
    await expectChargedExactly(store, userId, completed, inFlightAtKill);
  }, 120_000);
});
