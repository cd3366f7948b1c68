import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';
import { requestJson, type JsonResponse } from '../helpers/account-client.js';
import { createTestStore, STORE_KINDS } from '../helpers/test-store.js';
import { randomId } from '../../src/shared/ids.js';
import { openRedis } from '../../src/store/open-redis.js';
import { openStore } from '../../src/store/database.js';
import { bootstrapAdmin } from '../../src/users/bootstrap-admin.js';
import { createAuth, migrateAuthTables } from '../../src/users/create-auth.js';
import { passwordProblem } from '../../src/users/password-policy.js';
import { runUsersCommand } from '../../src/cli/users-command.js';
import type { Runtime } from '../../src/gateway-runtime.js';
import type { Clock } from '../../src/shared/clock.js';
import { createLogger } from '../../src/shared/logger.js';
import { parseAuthSettings } from '../../src/users/auth-settings.js';
import { RedisSignInLimiter } from '../../src/users/redis-sign-in-limiter.js';

/**
 * Issue 16, finding 6: 200 wrong passwords in a row were all answered 401 and then the right one
 * worked; better-auth's limiter trusted any X-Forwarded-For in production and otherwise put
 * everyone in one bucket. Sign-in is now limited per account and per client address (the address
 * Fastify's trustProxy decides), with doubling holds, 429 and Retry-After; sign-up no longer tells
 * whether an email has an account; new passwords follow the password policy.
 */
const PASSWORD = 'plum-orbit-42-lantern';
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A clock the test moves by hand, so holds can be waited out without waiting. */
function manualClock(): Clock & { advance(ms: number): void } {
  let now = Date.now();
  return { now: () => now, advance: (ms) => (now += ms) };
}

const TRUSTED_PROXY = 'server:\n  body_limit_bytes: 65536\n  trust_proxy: true\n';

function configText(extra = '', trustProxy = true): string {
  const text = testConfigText('http://127.0.0.1:9', extra);
  return trustProxy ? text.replace('server:\n  body_limit_bytes: 65536\n', TRUSTED_PROXY) : text;
}

describe.each(STORE_KINDS)('sign-in brute force (%s)', (storeKind) => {
  const gateways: TestGateway[] = [];
  afterEach(async () => {
    for (const gateway of gateways.splice(0).reverse()) await gateway.close();
  });

  const start = async (options: Parameters<typeof startTestGateway>[0]) => {
    const gateway = await startTestGateway({ storeKind, ...options });
    gateways.push(gateway);
    return gateway;
  };
  const signIn = (gateway: TestGateway, email: string, password: string, client: string): Promise<JsonResponse> =>
    requestJson(
      gateway.url,
      'POST',
      '/api-account/auth/sign-in/email',
      { email, password },
      { 'x-forwarded-for': client },
    );
  const newAccount = async (gateway: TestGateway) => {
    const email = `other-${randomId(10).toLowerCase()}@example.com`;
    expect(
      (await requestJson(gateway.url, 'POST', '/api-account/auth/sign-up/email', { email, password: PASSWORD })).status,
    ).toBe(200);
    return email;
  };
  const expectHeldBack = (response: JsonResponse, seconds?: number) => {
    expect(response.status).toBe(429);
    expect(response.body.error).toMatchObject({ type: 'rate_limit_error', code: 'too_many_sign_in_attempts' });
    const retryAfter = Number(response.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    if (seconds !== undefined) expect(retryAfter).toBe(seconds);
    return retryAfter;
  };

  it('limits 50 wrong passwords with Retry-After; holds double; the right one works once the hold is over', async () => {
    const clock = manualClock();
    const gateway = await start({ configText: configText(), deps: { clock } });
    const attacker = '203.0.113.7';
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 50; attempt++) {
      const response = await signIn(gateway, gateway.email, `wrong-guess-${attempt}-x`, attacker);
      statuses.push(response.status);
      if (response.status === 429) expectHeldBack(response, 1);
    }
    expect(statuses.filter((status) => status === 401)).toHaveLength(5);
    expect(statuses.slice(5).every((status) => status === 429)).toBe(true);

    // The account is held for everyone while the hold lasts, the right password included…
    expectHeldBack(await signIn(gateway, gateway.email, PASSWORD, attacker), 1);
    expectHeldBack(await signIn(gateway, gateway.email, PASSWORD, '198.51.100.20'), 1);
    // …but another client's sign-in to another account is untouched.
    const other = await newAccount(gateway);
    expect((await signIn(gateway, other, PASSWORD, '198.51.100.20')).status).toBe(200);

    // Each failure past the threshold doubles the hold: 2 s, then 4 s.
    clock.advance(1000);
    expect((await signIn(gateway, gateway.email, 'wrong-again-1', attacker)).status).toBe(401);
    expectHeldBack(await signIn(gateway, gateway.email, PASSWORD, attacker), 2);
    clock.advance(2000);
    expect((await signIn(gateway, gateway.email, 'wrong-again-2', attacker)).status).toBe(401);
    expectHeldBack(await signIn(gateway, gateway.email, PASSWORD, attacker), 4);

    clock.advance(4000);
    const owner = await signIn(gateway, gateway.email, PASSWORD, '198.51.100.20');
    expect(owner.status).toBe(200);
    expect(owner.body.token).toEqual(expect.any(String));
    // A successful sign-in starts the account afresh.
    expect((await signIn(gateway, gateway.email, 'typo-password-1', '198.51.100.20')).status).toBe(401);
  });

  it('holds back one client address that sprays many accounts, never another client', async () => {
    const gateway = await start({
      configText: configText('auth:\n  sign_in_limits: { address_failures: 8, account_failures: 5 }\n'),
    });
    const sprayer = '2001:db8:1:2::55';
    for (let attempt = 0; attempt < 8; attempt++) {
      const response = await signIn(gateway, `nobody-${attempt}@example.com`, 'wrong-guess-xyz', sprayer);
      expect(response.status).toBe(401);
    }
    expectHeldBack(await signIn(gateway, 'nobody-9@example.com', 'wrong-guess-xyz', sprayer));
    // Its neighbour in the same /64 is the same client; the right password does not help it.
    expectHeldBack(await signIn(gateway, gateway.email, PASSWORD, '2001:db8:1:2::99'));
    // Another client signs in to that very account.
    expect((await signIn(gateway, gateway.email, PASSWORD, '2001:db8:ffff::1')).status).toBe(200);
  });

  it('believes X-Forwarded-For only when server.trust_proxy says so', async () => {
    const gateway = await start({
      configText: configText('auth:\n  sign_in_limits: { address_failures: 3 }\n', false),
    });
    for (let attempt = 0; attempt < 3; attempt++)
      expect(
        (await signIn(gateway, `nobody-${attempt}@example.com`, 'wrong-guess-xyz', `192.0.2.${attempt}`)).status,
      ).toBe(401);
    // A made-up header per attempt is no new client: the socket's address is held back.
    expectHeldBack(await signIn(gateway, gateway.email, PASSWORD, '192.0.2.200'));
  });

  it('answers sign-up for a taken email exactly like a new one, and leaves that account alone', async () => {
    const gateway = await start({ configText: configText() });
    const fresh = await requestJson(gateway.url, 'POST', '/api-account/auth/sign-up/email', {
      email: `new-${randomId(8).toLowerCase()}@example.com`,
      password: 'another-fine-passphrase',
    });
    const taken = await requestJson(gateway.url, 'POST', '/api-account/auth/sign-up/email', {
      email: gateway.email,
      password: 'another-fine-passphrase',
    });
    expect(taken.status).toBe(200);
    expect(fresh.status).toBe(200);
    expect(taken.body.token).toBeNull();
    expect(fresh.body.token).toBeNull();
    expect(Object.keys(taken.body.user).sort()).toEqual(Object.keys(fresh.body.user).sort());
    expect(taken.headers.get('set-cookie')).toBeNull();
    expect((await signIn(gateway, gateway.email, 'another-fine-passphrase', '192.0.2.1')).status).toBe(401);
    expect((await signIn(gateway, gateway.email, PASSWORD, '192.0.2.1')).status).toBe(200);
  });

  it('refuses short and common passwords at sign-up, in the CLI and for the first account', async () => {
    const gateway = await start({ configText: configText() });
    for (const password of ['nine-char', 'password123', 'Sunshine2024!']) {
      const response = await requestJson(gateway.url, 'POST', '/api-account/auth/sign-up/email', {
        email: `weak-${randomId(8).toLowerCase()}@example.com`,
        password,
      });
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({ code: 'weak_password', param: 'password' });
    }

    const runtime = (): Promise<Runtime> =>
      Promise.resolve({
        config: gateway.config,
        environment: { production: false },
        store: openStore(gateway.testStore.url, { searchPath: gateway.testStore.searchPath }),
        auth: gateway.auth,
        secret: 'unused',
        applied: [],
      });
    await expect(
      runUsersCommand(
        'set-password',
        ['--email', gateway.email, '--password', 'qwerty12345'],
        runtime,
        () => undefined,
      ),
    ).rejects.toThrow(/most common/);
    let printed = '';
    await runUsersCommand('set-password', ['--email', gateway.email], runtime, (text) => (printed += text));
    const generated = printed.match(/password \(shown once\): (\S+)/)![1];
    expect(passwordProblem(generated)).toBeNull();

    const empty = await createTestStore(storeKind);
    try {
      const auth = createAuth(empty.store, 'test-secret-test-secret-test-secret', { baseUrl: 'http://127.0.0.1:8080' });
      await migrateAuthTables(auth, empty.store);
      await expect(bootstrapAdmin(auth, empty.store, { GATEWAY_ADMIN_PASSWORD: 'changeme123' })).rejects.toMatchObject({
        code: 'weak_password',
      });
      const admin = await bootstrapAdmin(auth, empty.store, {});
      expect(passwordProblem(admin!.generatedPassword!)).toBeNull();
      await auth.api.signInEmail({ body: { email: admin!.email, password: admin!.generatedPassword! } });
    } finally {
      await empty.cleanup();
    }
  });
});

describe('sign-in limits shared by two instances through Redis (PostgreSQL)', () => {
  it('counts failures on one instance against sign-in on the other', async () => {
    const redis = openRedis(REDIS_URL);
    // One hand-moved clock for both, so the 1 s hold cannot run out while the test runs.
    const shared = { redis, redisKeyPrefix: `test:${randomId(10)}:`, clock: manualClock() };
    const first = await startTestGateway({ configText: configText(), storeKind: 'postgres', deps: shared });
    const second = await startTestGateway({ configText: configText(), testStore: first.testStore, deps: shared });
    try {
      for (let attempt = 0; attempt < 5; attempt++) {
        const gateway = attempt % 2 === 0 ? first : second;
        const response = await requestJson(
          gateway.url,
          'POST',
          '/api-account/auth/sign-in/email',
          { email: first.email, password: `wrong-guess-${attempt}-x` },
          { 'x-forwarded-for': '203.0.113.9' },
        );
        expect(response.status).toBe(401);
      }
      const held = await requestJson(
        second.url,
        'POST',
        '/api-account/auth/sign-in/email',
        { email: first.email, password: PASSWORD },
        { 'x-forwarded-for': '198.51.100.1' },
      );
      expect(held.status).toBe(429);
      expect(held.headers.get('retry-after')).toBe('1');
    } finally {
      await second.close();
      await first.close();
      redis.disconnect();
    }
  });
});

describe('sign-in limits while Redis is down', () => {
  it('fall back to this instance’s own counts, never to no limit', async () => {
    const unreachable = openRedis('redis://127.0.0.1:1');
    const settings = parseAuthSettings(undefined, false).signInLimits;
    const logs: string[] = [];
    const logger = createLogger(
      'warn',
      new Writable({ write: (chunk, _encoding, done) => (logs.push(String(chunk)), done()) }),
    );
    const limiter = new RedisSignInLimiter(unreachable, settings, () => 1_000_000, 'test:', logger);
    try {
      const started = Date.now();
      for (let attempt = 0; attempt < 5; attempt++)
        expect(await limiter.begin('account', 'address')).toEqual({ allowed: true });
      expect(await limiter.begin('account', 'address')).toEqual({ allowed: false, retryAfterMs: 1000 });
      expect(Date.now() - started).toBeLessThan(5000);
      expect(logs.join('')).toContain('Redis did not answer');
    } finally {
      await limiter.close();
      unreachable.disconnect();
    }
  });
});
