import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../../src/mock-upstream/mock-upstream.js';
import { openStore } from '../../src/store/database.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { AccountClient } from '../helpers/account-client.js';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';

/*
 * A request whose handling writes on the serving SQLite connection (creating an API key) while
 * another connection holds the file's write lock, as the settlement writer thread does while it
 * commits. Released by a timer of this process, the write lands: the wait no longer holds the
 * event loop (with SQLite's busy handler the timer could not run, and the request failed after
 * busy_timeout). Held past the budget, the request is answered 503 `database_unavailable`, as
 * when busy_timeout ran out.
 */
const BUDGET_MS = 300;

let dir: string;
let upstream: MockUpstream;
let gateway: TestGateway;
let account: AccountClient;
let other: SqliteDatabase.Database;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gateway-lock-'));
  const file = join(dir, 'gateway.db');
  upstream = await startMockUpstream({ scenario: { latencyMs: 1 } });
  const store = openStore(`sqlite:${file}`, { sqliteBusyTimeoutMs: BUDGET_MS });
  await migrateToLatest(store);
  gateway = await startTestGateway({
    configText: testConfigText(upstream.url),
    testStore: { store, url: `sqlite:${file}`, cleanup: () => store.destroy() },
  });
  account = await AccountClient.signUp(gateway.url);
  other = new SqliteDatabase(file);
}, 60_000);

afterAll(async () => {
  if (other?.inTransaction) other.exec('rollback');
  other?.close();
  await gateway?.close();
  await gateway?.testStore.store.destroy().catch(() => undefined);
  await upstream?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a write on the serving connection meeting another connection’s write lock', () => {
  it('lands once a timer of this process releases the lock', { timeout: 20_000 }, async () => {
    other.exec('begin immediate');
    const released = new Promise<void>((resolve) =>
      setTimeout(() => {
        other.exec('commit');
        resolve();
      }, 20),
    );
    const created = await account.request('POST', '/api-account/user/api-keys', { name: 'while locked' });
    await released;
    expect(created.status).toBe(201);
  });

  it('held past the budget: 503 database_unavailable, and the gateway serves on', { timeout: 20_000 }, async () => {
    other.exec('begin immediate');
    try {
      const refused = await account.request('POST', '/api-account/user/api-keys', { name: 'never' });
      expect(refused.status).toBe(503);
      expect(refused.body).toMatchObject({ error: { code: 'database_unavailable' } });
    } finally {
      other.exec('rollback');
    }
    const listed = await account.request<{ data: { name: string }[] }>('GET', '/api-account/user/api-keys');
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((key) => key.name)).not.toContain('never');
  });
});
