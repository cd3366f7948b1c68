/**
 * The composition root starts services on one stack: when start-up fails after any of them, every
 * service that had started is stopped, last first, and the error reaches the caller. The failure
 * is injected after each service in turn (AppDeps.lifecycle), with Redis and accounts on so every
 * service the app can start is among them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { startGateway } from '../../src/gateway-runtime.js';
import { loadConfig } from '../../src/config/load-config.js';
import { createProviderRegistry } from '../../src/providers/provider-registry.js';
import { createLogger } from '../../src/shared/logger.js';
import { createAuth, migrateAuthTables } from '../../src/users/create-auth.js';
import { randomIdGenerator } from '../../src/shared/ids.js';
import { testConfigText } from '../helpers/test-gateway.js';
import { createTestStore, type TestStore } from '../helpers/test-store.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const logger = createLogger('silent');

function config(env: Record<string, string> = {}) {
  return loadConfig({
    text: testConfigText('http://127.0.0.1:9'),
    env: { REDIS_URL, ...env },
    knownProviderTypes: [...createProviderRegistry().keys()],
  }).config;
}

describe('a start-up that fails half-way stops what had started', () => {
  let testStore: TestStore;
  let auth: ReturnType<typeof createAuth>;
  const prefix = `test-${randomIdGenerator.next('').toLowerCase()}:`;

  beforeAll(async () => {
    testStore = await createTestStore('sqlite');
    auth = createAuth(testStore.store, 'test-secret-test-secret-test-secret', { baseUrl: 'http://127.0.0.1' });
    await migrateAuthTables(auth, testStore.store);
  });
  afterAll(async () => {
    await testStore.cleanup();
  });

  const build = (lifecycle: { started?(name: string): void; stopped?(name: string): void }) =>
    buildApp({ config: config(), store: testStore.store, logger, auth, redisKeyPrefix: prefix, lifecycle });

  it('buildApp: a failure after each service stops exactly the services started before it, in reverse', async () => {
    const started: string[] = [];
    const stopped: string[] = [];
    const gateway = await build({ started: (name) => started.push(name), stopped: (name) => stopped.push(name) });
    await gateway.close();
    // Redis opened from the config, accounts on: every service buildApp owns.
    expect(started).toEqual([
      'redis',
      'upstream',
      'routing',
      'key cache',
      'observability',
      'metering',
      'request content log',
      'usage maintenance',
      'statistics',
      'key-change broadcast',
      'sign-in limiter',
      'password resets',
      'balance alerts',
      'key spend alerts',
      'http server',
    ]);
    expect(stopped).toEqual([...started].reverse());

    for (const [index, failAt] of started.entries()) {
      const stoppedNow: string[] = [];
      const attempt = build({
        started: (name) => {
          if (name === failAt) throw new Error(`injected after ${name}`);
        },
        stopped: (name) => stoppedNow.push(name),
      });
      await expect(attempt).rejects.toThrow(`injected after ${failAt}`);
      expect(stoppedNow).toEqual(started.slice(0, index + 1).reverse());
    }
  });

  it('startGateway: a failing beforeListen stops the app, both Redis connections, the mailer and the store', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gateway-start-failure-'));
    try {
      const stopped: string[] = [];
      const attempt = startGateway(
        config({ DATABASE_URL: `sqlite:${join(dir, 'gateway.db')}`, PORT: '0' }),
        logger,
        { redisKeyPrefix: prefix, lifecycle: { stopped: (name) => stopped.push(name) } },
        { NODE_ENV: 'test' },
        async () => {
          throw new Error('the first account could not be created');
        },
      );
      await expect(attempt).rejects.toThrow('the first account could not be created');
      expect(stopped.slice(-5)).toEqual(['gateway', 'redis', 'readiness redis', 'mailer', 'store']);
      expect(stopped[0]).toBe('http server');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
