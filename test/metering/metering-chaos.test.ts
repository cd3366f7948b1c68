import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../../src/mock-upstream/mock-upstream.js';
import { testConfigText } from '../helpers/test-gateway.js';
import { startOwnPostgres, type OwnPostgres } from '../helpers/own-postgres.js';
import { openStore, type Store } from '../../src/store/database.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { sql } from 'kysely';
import { startChildGateway, type ChildGateway } from '../helpers/child-gateway.js';
import { startOwnRedis, type OwnRedis } from '../helpers/own-redis.js';
import { createAuth, migrateAuthTables } from '../../src/users/create-auth.js';
import { createUser } from '../../src/users/create-user.js';
import { createApiKey } from '../../src/keys/create-api-key.js';
import { applyLedgerEntry } from '../../src/credits/credit-ledger.js';
import { balanceMismatches } from '../../src/credits/ledger-balance-check.js';
import { usageChargeDrift } from '../../src/metering/usage-charge-check.js';
import { randomId, randomIdGenerator } from '../../src/shared/ids.js';
import { chat } from './metering-helpers.js';

/**
 * Issue 25: chaos. Two gateway instances (child processes) on PostgreSQL and a Redis of the
 * test's own, under mixed load over three accounts (one with credit for 60 requests), while the
 * test pauses Redis, kills it and starts it again empty (twice) and SIGKILLs an instance (started
 * again). At the end, per account: every answer served is recorded and charged once at its full
 * cost, nothing else is charged but requests cut off by the kill, the balance is not negative,
 * nothing was served beyond it, and the ledger and usage checks of `credits reconcile` find no
 * drift. Short in the suite (CHAOS_SECONDS, default 8 s of load per failure mode);
 * `npm run chaos` runs it for minutes.
 */
const LOAD_SECONDS = Number(process.env.CHAOS_SECONDS ?? 8);
// "hello there": 2 prompt tokens at $0.5/M, 10 completion tokens at $1.5/M.
const COST = 2 * 500 + 10 * 1500;
const SMALL = 60 * COST;
const LARGE = 1_000_000_000;

interface Account {
  name: string;
  userId: string;
  apiKey: string;
  granted: number;
  served: Set<string>;
  /** Requests that may have been charged without their answer arriving whole (the instance died). */
  cutOff: Set<string>;
  refused: number;
  unavailable: number;
}

describe('metering chaos: Redis paused, Redis restarted empty twice, an instance SIGKILLed, PostgreSQL restarted', () => {
  let upstream: MockUpstream | undefined;
  // A cluster of the test's own (restarted mid-run), never the shared server; one database per mode.
  let postgres: OwnPostgres | undefined;
  let openedStore: Store | undefined;
  beforeAll(async () => {
    postgres = await startOwnPostgres();
  }, 60_000);
  afterAll(async () => {
    await postgres?.destroy();
  }, 60_000);
  let redis: OwnRedis | undefined;
  let children: ChildGateway[] = [];
  afterEach(async () => {
    redis?.resume();
    for (const child of children) if (child.process.exitCode === null) child.process.kill('SIGKILL');
    children = [];
    await redis?.stop();
    await openedStore?.destroy();
    openedStore = undefined;
    await upstream?.close();
  });

  async function accounts(store: Store): Promise<Account[]> {
    const auth = createAuth(store, 'test-secret-test-secret-test-secret', { baseUrl: 'http://127.0.0.1' });
    await migrateAuthTables(auth, store);
    const result: Account[] = [];
    for (const [name, granted] of [
      ['small', SMALL],
      ['large-1', LARGE],
      ['large-2', LARGE],
    ] as const) {
      const user = await createUser(auth, store, {
        email: `${name}-${randomId(6).toLowerCase()}@example.com`,
        password: 'plum-orbit-42-lantern',
      });
      const { fullKey } = await createApiKey(store, randomIdGenerator, Date.now(), { userId: user.id, name });
      await applyLedgerEntry(store, { userId: user.id, kind: 'grant', amount: granted, reference: `grant:${name}` });
      result.push({
        name,
        userId: user.id,
        apiKey: fullKey,
        granted,
        served: new Set(),
        cutOff: new Set(),
        refused: 0,
        unavailable: 0,
      });
    }
    return result;
  }

  async function run(mode: 'open' | 'closed') {
    upstream = await startMockUpstream({ scenario: { chunkCount: 10, chunkGapMs: 2, latencyMs: 10 } });
    const began = Date.now();
    const phases: string[] = [];
    const mark = (phase: string) => phases.push(`${phase} ${((Date.now() - began) / 1000).toFixed(1)} s`);
    const database = `chaos_${mode}`;
    const admin = openStore(postgres!.url, { poolSize: 1 });
    await admin.db.executeQuery(sql.raw(`CREATE DATABASE ${database}`).compile(admin.db));
    await admin.destroy();
    const databaseUrl = postgres!.url.replace(/\/postgres$/, `/${database}`);
    const store = openStore(databaseUrl, { poolSize: 5 });
    openedStore = store;
    await migrateToLatest(store);
    redis = await startOwnRedis();
    const all = await accounts(store);
    const env = {
      CHILD_CONFIG: testConfigText(
        upstream.url,
        `billing:\n  require_credits: true\nlimits:\n  redis_failure_mode: ${mode}\n  hold_ttl_ms: 5000\n  settlement_claim_ms: 1000\n`,
      ),
      DATABASE_URL: databaseUrl,
      REDIS_URL: redis.url,
      CHILD_REDIS_PREFIX: `chaos:${randomId(8)}:`,
    };
    mark('store and Redis ready');
    const instances = await Promise.all([startChildGateway(env), startChildGateway(env)]);
    mark('instances ready');
    children.push(...instances);
    const live = new Set(instances);

    let running = true;
    const worker = async (index: number) => {
      for (let round = 0; running; round++) {
        const account = all[(index + round) % all.length];
        const targets = [...live];
        if (targets.length === 0) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          continue;
        }
        const target = targets[(index + round) % targets.length];
        const requestId = `chaos-${index}-${round}-${randomId(6)}`;
        try {
          const response = await chat(
            target.url,
            account.apiKey,
            { max_tokens: 10, stream: round % 2 === 0 },
            {
              headers: {
                authorization: `Bearer ${account.apiKey}`,
                'content-type': 'application/json',
                'x-request-id': requestId,
              },
              signal: AbortSignal.timeout(15_000),
            },
          );
          const text = await response.text();
          if (response.status === 200) {
            const whole = !response.headers.get('content-type')?.includes('event-stream') || text.includes('[DONE]');
            (whole ? account.served : account.cutOff).add(requestId);
          } else if (response.status === 402) account.refused++;
          else if (response.status === 503) {
            account.unavailable++;
            await new Promise((resolve) => setTimeout(resolve, 20));
          } else throw new Error(`status ${response.status}: ${text}`);
        } catch (error) {
          // Only a request to an instance that was killed may fail outright.
          if (live.has(target)) throw error;
          account.cutOff.add(requestId);
        }
      }
    };
    const load = Promise.all(Array.from({ length: 8 }, (_, index) => worker(index)));
    const at = (fraction: number) => new Promise((resolve) => setTimeout(resolve, fraction * LOAD_SECONDS * 1000));
    const postgresStarted: string[] = [];
    const postmasterStart = async () => {
      const { rows } = await sql<{ started: string }>`SELECT pg_postmaster_start_time()::text AS started`.execute(
        store.db,
      );
      return rows[0].started;
    };
    const chaos = (async () => {
      await at(0.15);
      redis!.pause();
      await new Promise((resolve) => setTimeout(resolve, 1500));
      redis!.resume();
      await at(0.15);
      await redis!.kill();
      await redis!.start();
      // Two faults at once are not covered: an instance killed before it has noticed that Redis
      // lost its data (its check runs each second) takes with it the only copy of the records it
      // had sent to the lost stream (docs/metering.md). The short form's gap (1.2 s) was less.
      await Promise.all([at(0.15), new Promise((resolve) => setTimeout(resolve, 4000))]);
      const doomed = instances[1];
      live.delete(doomed);
      doomed.process.kill('SIGKILL');
      await doomed.exited;
      const again = await startChildGateway(env);
      children.push(again);
      live.add(again);
      mark('instance killed and replaced');
      await at(0.1);
      // PostgreSQL restarted (fast shutdown cuts every connection) and down ~1 s before it is back.
      postgresStarted.push(await postmasterStart());
      await postgres!.stop();
      await new Promise((resolve) => setTimeout(resolve, 1000));
      await postgres!.start();
      postgresStarted.push(await postmasterStart());
      mark('PostgreSQL restarted');
      await at(0.1);
      await redis!.kill();
      await redis!.start();
      await at(0.15);
      redis!.pause();
      await new Promise((resolve) => setTimeout(resolve, 1000));
      redis!.resume();
      await at(0.2);
    })();
    await chaos;
    running = false;
    await load;
    mark('load over');
    // Graceful stops write what each instance holds; the killed one's entries were taken over.
    for (const child of live) await child.stop();
    mark('instances stopped');
    // The restart really happened: the server that answers now is not the one from before.
    expect(postgresStarted[1]).not.toBe(postgresStarted[0]);

    const table: Array<Record<string, string | number>> = [];
    for (const account of all) {
      const events = await store.db
        .selectFrom('usage_events')
        .select(['id', 'request_id', 'status'])
        .where('user_id', '=', account.userId)
        .execute();
      const requestOf = new Map(events.map((event) => [`usage:${event.id}`, event.request_id]));
      const charges = await store.db
        .selectFrom('credit_ledger')
        .select(['reference', 'amount_nanos'])
        .where('user_id', '=', account.userId)
        .where('kind', '=', 'usage')
        .execute();
      const charged = charges.map((entry) => requestOf.get(entry.reference) ?? `no event: ${entry.reference}`);
      const chargedIds = new Set(charged);
      const recorded = new Set(events.filter((event) => event.status === 200).map((event) => event.request_id));
      const balance = await store.db
        .selectFrom('credit_balances')
        .select('balance_nanos')
        .where('user_id', '=', account.userId)
        .executeTakeFirstOrThrow();
      table.push({
        mode,
        account: account.name,
        served: account.served.size,
        recorded: [...account.served].filter((id) => recorded.has(id)).length,
        charged: [...account.served].filter((id) => chargedIds.has(id)).length,
        'cut off (charged)': [...account.cutOff].filter((id) => chargedIds.has(id)).length,
        refused: account.refused,
        unavailable: account.unavailable,
      });
      expect(charged.length, `${account.name}: charged once each`).toBe(chargedIds.size);
      for (const entry of charges) expect(Number(entry.amount_nanos), `${account.name}: full cost`).toBe(-COST);
      expect(
        [...account.served].filter((id) => !recorded.has(id)),
        `${account.name}: served, not recorded`,
      ).toEqual([]);
      expect(
        [...account.served].filter((id) => !chargedIds.has(id)),
        `${account.name}: served, not charged`,
      ).toEqual([]);
      expect(
        [...chargedIds].filter((id) => !account.served.has(id) && !account.cutOff.has(id)),
        `${account.name}: charged, never answered`,
      ).toEqual([]);
      expect(Number(balance.balance_nanos)).toBe(account.granted - chargedIds.size * COST);
      expect(Number(balance.balance_nanos)).toBeGreaterThanOrEqual(0);
      expect(account.served.size * COST).toBeLessThanOrEqual(account.granted);
    }
    expect(await usageChargeDrift(store.db)).toEqual([]);
    expect(await balanceMismatches(store.db)).toEqual([]);
    mark('checked');
    console.log(
      `chaos accounting (${LOAD_SECONDS} s of load, ${mode}; ${phases.join(', ')}):\n${JSON.stringify(table, null, 1)}`,
    );
    // The small account ran out: it was refused for credit, never served beyond its balance.
    expect(all[0].refused).toBeGreaterThan(0);
  }

  for (const mode of ['open', 'closed'] as const) {
    // Most of a run is child start-up, which takes ~15 s on a quiet machine and 40+ s at load 12
    // (two instances, then a replacement): the limit leaves room for a busy machine.
    it(`redis_failure_mode: ${mode}`, () => run(mode), 240_000 + LOAD_SECONDS * 3000);
  }
});
