import { createServer, connect, type Server, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../../src/mock-upstream/mock-upstream.js';
import { openStore } from '../../src/store/database.js';
import { migrationsCheck, redisCheck, storeCheck } from '../../src/observability/readiness-checks.js';
import { runReadinessChecks } from '../../src/observability/health-routes.js';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';
import { createTestStore, TEST_POSTGRES_URL, type TestStore } from '../helpers/test-store.js';

/**
 * A TCP proxy in front of the shared PostgreSQL that the test can cut: it drops every open
 * connection and refuses new ones, as a database that went away would. The shared server itself
 * is never touched.
 */
async function startCuttableProxy(target: { host: string; port: number }) {
  const sockets = new Set<Socket>();
  let cut = false;
  const server: Server = createServer((client) => {
    if (cut) {
      client.destroy();
      return;
    }
    const upstream = connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    cut() {
      cut = true;
      for (const socket of sockets) socket.destroy();
    },
    restore() {
      cut = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

async function ready(url: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${url}/health/ready`);
  return { status: response.status, body: await response.json() };
}

describe('health routes', () => {
  let upstream: MockUpstream;
  let backing: TestStore;
  let proxy: Awaited<ReturnType<typeof startCuttableProxy>>;
  let gateway: TestGateway;

  beforeAll(async () => {
    upstream = await startMockUpstream();
    // Schema and migrations through the real server; the gateway reaches it only through the proxy.
    backing = await createTestStore('postgres');
    const target = new URL(TEST_POSTGRES_URL);
    proxy = await startCuttableProxy({ host: target.hostname, port: Number(target.port || 5432) });
    target.host = `127.0.0.1:${proxy.port}`;
    const proxied = openStore(target.toString(), { searchPath: backing.searchPath, poolSize: 3 });
    gateway = await startTestGateway({
      configText: testConfigText(upstream.url),
      testStore: { store: proxied, url: target.toString(), searchPath: backing.searchPath, cleanup: async () => {} },
    });
  });
  afterAll(async () => {
    await gateway?.close();
    await gateway?.testStore.store.destroy();
    await proxy?.close();
    await backing?.cleanup();
    await upstream?.close();
  });

  it('is ready with the store reachable and migrated, flips to 503 when it goes away, and back', async () => {
    expect(await ready(gateway.url)).toEqual({
      status: 200,
      body: { status: 'ready', checks: { store: 'ok', migrations: 'ok', settlement: 'ok' } },
    });

    proxy.cut();
    const down = await ready(gateway.url);
    expect(down.status).toBe(503);
    expect(down.body.error).toMatchObject({ type: 'service_unavailable', code: 'not_ready', param: null });
    expect(down.body.error.message).toMatch(/^Not ready: store: /);
    expect(down.body.checks.store).not.toBe('ok');
    // Liveness is about the process, not its dependencies: restarting would not bring the database back.
    const live = await fetch(`${gateway.url}/health/live`);
    expect(live.status).toBe(200);
    expect(await live.json()).toEqual({ status: 'ok' });

    proxy.restore();
    let again = await ready(gateway.url);
    for (let attempt = 0; attempt < 20 && again.status !== 200; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      again = await ready(gateway.url);
    }
    expect(again.status).toBe(200);
  });
});

describe('readiness checks', () => {
  it('reports migrations this build has that the store lacks', async () => {
    const bare = await createTestStore('sqlite', { migrate: false });
    const migrated = await createTestStore('sqlite');
    try {
      const missing = await runReadinessChecks([storeCheck(bare.store), migrationsCheck(bare.store)], 1000);
      expect(missing.ready).toBe(false);
      expect(missing.checks.store).toBe('ok');
      expect(missing.checks.migrations).toMatch(/gateway_migrations/);
      const ok = await runReadinessChecks([migrationsCheck(migrated.store)], 1000);
      expect(ok).toEqual({ ready: true, checks: { migrations: 'ok' } });
      const newer = await runReadinessChecks([migrationsCheck(migrated.store, ['9999-from-a-newer-build'])], 1000);
      expect(newer.checks.migrations).toBe('not applied: 9999-from-a-newer-build (run: gateway migrate)');
    } finally {
      await bare.cleanup();
      await migrated.cleanup();
    }
  });

  it('fails a Redis that does not answer, within the timeout, and passes the real one', async () => {
    const dead = new Redis('redis://127.0.0.1:1', {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    dead.on('error', () => undefined);
    const hung = redisCheck(() => new Promise(() => undefined));
    const started = Date.now();
    const result = await runReadinessChecks([redisCheck(() => dead.ping()), { ...hung, name: 'hung' }], 300);
    expect(result.ready).toBe(false);
    expect(result.checks.redis).not.toBe('ok');
    expect(result.checks.hung).toBe('no answer within 300 ms');
    expect(Date.now() - started).toBeLessThan(2000);
    dead.disconnect();

    const live = new Redis('redis://127.0.0.1:6379', { maxRetriesPerRequest: 1 });
    try {
      expect(await runReadinessChecks([redisCheck(() => live.ping())], 1000)).toEqual({
        ready: true,
        checks: { redis: 'ok' },
      });
    } finally {
      live.disconnect();
    }
  });
});
