import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../../src/mock-upstream/mock-upstream.js';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';
import { requestJson } from '../helpers/account-client.js';
import { createAuth, type Auth } from '../../src/users/create-auth.js';
import { lazyAuth } from '../../src/users/lazy-auth.js';
import { loadConfig } from '../../src/config/load-config.js';
import { openRuntime } from '../../src/gateway-runtime.js';
import { putSetting } from '../../src/store/settings-repository.js';
import { createLogger } from '../../src/shared/logger.js';

let upstream: MockUpstream;
let gateway: TestGateway;
let loads = 0;
/** The next loads to fail, as a broken install would (a package that cannot be evaluated). */
let failNext = 0;

beforeAll(async () => {
  upstream = await startMockUpstream();
  let real: Auth | undefined;
  gateway = await startTestGateway({
    configText: testConfigText(upstream.url),
    deps: {
      auth: lazyAuth(async () => {
        loads++;
        // Yields first, so that concurrent first requests all arrive while the load is under way.
        await new Promise((resolve) => setTimeout(resolve, 50));
        if (failNext > 0) {
          failNext--;
          throw new Error("Cannot find module 'better-auth/dist/index.mjs'");
        }
        return (real ??= createAuth(gateway.testStore.store, 'test-secret-test-secret-test-secret', {
          baseUrl: gateway.config.server.publicUrl,
        }));
      }),
    },
  });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

describe('accounts loaded on first use: a failed load, and concurrent first requests', () => {
  it('answers 503 accounts_unavailable in the account envelope (not 401), then serves the next request', async () => {
    failNext = 2;
    const signIn = await requestJson(gateway.url, 'POST', '/api-account/auth/sign-in/email', {
      email: gateway.email,
      password: 'plum-orbit-42-lantern',
    });
    expect(signIn.status).toBe(503);
    expect(signIn.body.error).toMatchObject({ type: 'service_unavailable', code: 'accounts_unavailable', param: null });
    expect(signIn.body.error.message).toContain("Cannot find module 'better-auth/dist/index.mjs'");
    // A signed-in route: the load failure is not taken for a missing session.
    const me = await requestJson(gateway.url, 'GET', '/api-account/user/me', undefined, {
      authorization: 'Bearer whatever.signature',
    });
    expect(me.status).toBe(503);
    expect(me.body.error.code).toBe('accounts_unavailable');
    expect(loads).toBe(2);

    // Concurrent first requests after the failures: one load between them.
    const answers = await Promise.all(
      Array.from({ length: 4 }, () =>
        requestJson(gateway.url, 'POST', '/api-account/auth/sign-in/email', {
          email: gateway.email,
          password: 'plum-orbit-42-lantern',
        }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    expect(loads).toBe(3);
    const session = await requestJson(gateway.url, 'GET', '/api-account/user/me', undefined, {
      authorization: `Bearer ${answers[0]!.body.token}`,
    });
    expect(session.status).toBe(200);
    expect(loads).toBe(3);
  });
});

describe('openRuntime: accounts on first use only where the store says their tables are migrated', () => {
  it('migrates on a fresh store, is lazy on the next serving start, and migrates again when the stamp differs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gateway-auth-stamp-'));
    try {
      const { config } = loadConfig({
        text: testConfigText(upstream.url),
        env: { DATABASE_URL: `sqlite:${join(dir, 'g.db')}` },
      });
      const logger = createLogger('silent');
      const open = async () => {
        const runtime = await openRuntime(config, {}, { logger });
        await runtime.store.destroy();
        // A loaded better-auth object has its options; the first-use stand-in has none until used.
        return { applied: runtime.applied, loaded: runtime.auth.options !== undefined, store: runtime.store };
      };
      const fresh = await open();
      expect(fresh.loaded).toBe(true);
      expect(fresh.applied).toContain('auth: create user');
      expect(await open()).toMatchObject({ applied: [], loaded: false });
      // An upgrade (another better-auth, edited options): the next start checks and migrates as before.
      const runtime = await openRuntime(config, {});
      await putSetting(runtime.store.db, 'auth_tables_stamp', 'better-auth@0.0.1', Date.now());
      await runtime.store.destroy();
      expect(await open()).toMatchObject({ loaded: true });
      expect(await open()).toMatchObject({ applied: [], loaded: false });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
