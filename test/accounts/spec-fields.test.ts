import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';
import { AccountClient, requestJson } from '../helpers/account-client.js';
import { STORE_KINDS } from '../helpers/test-store.js';
import { rollupFromEvents } from '../../src/statistics/usage-stats-recorder.js';
import { WINDOW_NAMES } from '../../src/statistics/stats-windows.js';
import type { UsageStatsEvent } from '../../src/statistics/usage-stats-event.js';

/** Issue 17, item 1: the spec's field names, one casing, one currency spelling; item 2: windows, enums, unknown query parameters. */
const EXTRA = `
  - id: test/fast
    name: Test Fast
    endpoints:
      - provider: mock
        upstream_model: mock-fast
        pricing: { prompt: 1, completion: 2 }
billing:
  payment_provider: sandbox
  currencies: { usd: 1, eur: 1.1 }
`;

/** Every object key of a JSON value, with its path, that is not snake_case. */
function camelCaseKeys(value: unknown, path = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((item, index) => camelCaseKeys(item, `${path}[${index}]`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([name, inner]) => [
    ...(/[A-Z]/.test(name) ? [`${path}.${name}`] : []),
    ...camelCaseKeys(inner, `${path}.${name}`),
  ]);
}

/** Every value of a `currency` field. */
function currencies(value: unknown): unknown[] {
  if (Array.isArray(value)) return value.flatMap(currencies);
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([name, inner]) => (name === 'currency' ? [inner] : currencies(inner)));
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Five answered requests of `modelId`, `ago` ms before now: enough for the speed rankings. */
function answered(modelId: string, ago: number): UsageStatsEvent[] {
  return Array.from({ length: 5 }, (_, index) => ({
    timestamp: Date.now() - ago - index * 1000,
    modelId,
    providerId: 'mock',
    userId: 'someone',
    promptTokens: 10,
    completionTokens: 100,
    latencyMs: 1100,
    ttftMs: 100,
    status: 200,
  }));
}

describe.each(STORE_KINDS)('spec fields, casing, windows and query parameters (%s)', (storeKind) => {
  let gateway: TestGateway;
  let alice: AccountClient;
  let signUpBody: unknown;

  beforeAll(async () => {
    gateway = await startTestGateway({ configText: testConfigText('http://127.0.0.1:9', EXTRA), storeKind });
    const email = `casing-${Date.now()}@example.com`;
    const signUp = await requestJson(gateway.url, 'POST', '/api-account/auth/sign-up/email', {
      email,
      password: 'plum-orbit-42-lantern',
      name: 'Casing',
    });
    expect(signUp.status).toBe(200);
    signUpBody = signUp.body;
    // Sign-up hands out no session (it answers alike for new and taken emails): sign in.
    const signIn = await requestJson(gateway.url, 'POST', '/api-account/auth/sign-in/email', {
      email,
      password: 'plum-orbit-42-lantern',
    });
    alice = new AccountClient(gateway.url, signIn.body.token, email);
    // test/chat answered 1 h ago (inside every window); test/fast 3 days ago (inside 7d and 30d only).
    await rollupFromEvents(gateway.testStore.store, [
      ...answered('test/chat', HOUR / 2),
      ...answered('test/fast', 3 * DAY),
    ]);
  });
  afterAll(async () => gateway?.close());

  describe('API key fields: write what you read', () => {
    it('reads back expiration under the name it was written with (spec §2.1)', async () => {
      const created = await alice.request('POST', '/api-account/user/api-keys', {
        name: 'spec names',
        expiration: '2999-01-01T00:00:00Z',
      });
      expect(created.status).toBe(201);
      expect(created.body.expiration).toBe('2999-01-01T00:00:00.000Z');
      expect(created.body).not.toHaveProperty('expires_at');
      const read = await alice.request('GET', `/api-account/user/api-keys/${created.body.key_id}`);
      expect(read.body.expiration).toBe('2999-01-01T00:00:00.000Z');
    });

    it('PATCH takes a record exactly as GET returned it, and the same record edited', async () => {
      const created = await alice.request('POST', '/api-account/user/api-keys', {
        name: 'round trip',
        expiration: '2999-06-01T00:00:00Z',
        allowed_models: ['test/*'],
        default_models: [{ model_id: 'test/chat', priority: 1 }],
        monthly_quota: 12.5,
        rpm_limit: 60,
      });
      const read = (await alice.request('GET', `/api-account/user/api-keys/${created.body.key_id}`)).body;
      const same = await alice.request('PATCH', `/api-account/user/api-keys/${read.key_id}`, read);
      expect(same.status).toBe(200);
      const { updated_at: _before, ...unchanged } = read;
      expect(same.body).toMatchObject(unchanged);

      const edited = await alice.request('PATCH', `/api-account/user/api-keys/${read.key_id}`, {
        ...read,
        name: 'renamed',
        expiration: null,
        rpm_limit: 120,
      });
      expect(edited.status).toBe(200);
      expect(edited.body).toMatchObject({ name: 'renamed', expiration: null, rpm_limit: 120, monthly_quota: 12.5 });
    });

    it('accepts expires_at as an alias of expiration, and refuses a key_id naming another key', async () => {
      const created = (await alice.request('POST', '/api-account/user/api-keys', { name: 'alias' })).body;
      const aliased = await alice.request('PATCH', `/api-account/user/api-keys/${created.key_id}`, {
        expires_at: '2998-02-03T04:05:06Z',
      });
      expect(aliased.status).toBe(200);
      expect(aliased.body.expiration).toBe('2998-02-03T04:05:06.000Z');

      const other = await alice.request('PATCH', `/api-account/user/api-keys/${created.key_id}`, {
        key_id: 'key_someoneelse',
        name: 'x',
      });
      expect(other.status).toBe(400);
      expect(other.body.error).toMatchObject({ param: 'key_id', type: 'invalid_request_error' });
    });

    it('an expired key read back is not refused for its expiration in the past', async () => {
      const created = (
        await alice.request('POST', '/api-account/user/api-keys', {
          name: 'soon expired',
          expiration: new Date(Date.now() + 1500).toISOString(),
        })
      ).body;
      await new Promise((resolve) => setTimeout(resolve, 1700));
      const read = (await alice.request('GET', `/api-account/user/api-keys/${created.key_id}`)).body;
      expect(read.status).toBe('expired');
      const written = await alice.request('PATCH', `/api-account/user/api-keys/${read.key_id}`, {
        ...read,
        description: 'still expired',
      });
      expect(written.status).toBe(200);
      expect(written.body).toMatchObject({ status: 'expired', description: 'still expired' });
    });
  });

  it('answers snake_case keys and one currency spelling on every account response', async () => {
    const keyId = (await alice.request('POST', '/api-account/user/api-keys', { name: 'casing' })).body.key_id;
    const signIn = await requestJson(gateway.url, 'POST', '/api-account/auth/sign-in/email', {
      email: alice.email,
      password: 'plum-orbit-42-lantern',
      remember_me: true,
    });
    expect(signIn.status).toBe(200);
    expect(signIn.body.user).toHaveProperty('email_verified');
    expect(signIn.body.user).toHaveProperty('created_at');
    const session = await alice.request('GET', '/api-account/auth/get-session');
    expect(session.status).toBe(200);
    expect(session.body.session).toHaveProperty('expires_at');

    const paths = [
      '/api-account/user/me',
      '/api-account/user/api-keys',
      `/api-account/user/api-keys/${keyId}`,
      '/api-account/user/usage',
      '/api-account/user/balance',
      '/api-account/user/billing',
      '/api-account/user/billing/orders',
      '/api-account/models?limit=3',
      '/api-account/models/test/chat',
      '/api-account/models/filters',
      '/api-account/providers',
      '/api-account/providers/mock',
      '/api-account/providers/mock/stats',
      '/api-account/routing-templates',
      '/api-account/rankings/all',
      '/rankings/models',
      '/rankings/charts?metric=tokens',
      '/rankings/benchmarks',
      '/rankings/speed',
    ];
    const checkout = await alice.request('POST', '/api-account/user/billing/create-checkout', {
      amount: 10,
      currency: 'eur',
    });
    const bodies: [string, unknown][] = [
      ['sign-up', signUpBody],
      ['sign-in', signIn.body],
      ['get-session', session.body],
      ['create-checkout', checkout.body],
    ];
    for (const path of paths) {
      const response = await alice.request('GET', path);
      expect(response.status, path).toBe(200);
      bodies.push([path, response.body]);
    }
    for (const [path, body] of bodies) expect(camelCaseKeys(body), path).toEqual([]);
    const seen = bodies.flatMap(([, body]) => currencies(body));
    expect(seen.length).toBeGreaterThan(3);
    expect(new Set(seen)).toEqual(new Set(['USD', 'EUR']));
    expect(checkout.body.currency).toBe('EUR');
  });

  describe('windows', () => {
    it.each(WINDOW_NAMES)('every rankings endpoint and provider statistics accept window=%s', async (window) => {
      for (const path of [
        `/rankings/models?window=${window}`,
        `/rankings/speed?window=${window}`,
        `/rankings/charts?metric=requests&window=${window}`,
        `/api-account/rankings/all?window=${window}`,
        `/api-account/providers/mock/stats?window=${window}`,
      ]) {
        const response = await requestJson(gateway.url, 'GET', path);
        expect(response.status, path).toBe(200);
        expect(['1h', '24h', '7d', '30d']).toContain(response.body.window);
      }
    });

    it('names the canonical window: day, week and month are 24h, 7d and 30d', async () => {
      for (const [alias, canonical] of [
        ['day', '24h'],
        ['week', '7d'],
        ['month', '30d'],
      ]) {
        const response = await requestJson(gateway.url, 'GET', `/rankings/models?window=${alias}`);
        expect(response.body.window).toBe(canonical);
      }
    });

    it('speed honours the window, alone and inside /rankings/all', async () => {
      const ranked = async (path: string) => {
        const body = (await requestJson(gateway.url, 'GET', path)).body;
        const speed = body.speed ?? body;
        return speed.by_throughput.map((entry: { model_id: string }) => entry.model_id).sort();
      };
      expect(await ranked('/rankings/speed?window=24h')).toEqual(['test/chat']);
      expect(await ranked('/rankings/speed?window=7d')).toEqual(['test/chat', 'test/fast']);
      expect(await ranked('/api-account/rankings/all?window=day')).toEqual(['test/chat']);
      expect(await ranked('/api-account/rankings/all?window=week')).toEqual(['test/chat', 'test/fast']);
    });

    it('charts use buckets of the window: minutes for 1h, hours for 24h, days beyond', async () => {
      const hourly = (await requestJson(gateway.url, 'GET', '/rankings/charts?metric=requests&window=24h')).body;
      expect(hourly.bucket_seconds).toBe(3600);
      expect(hourly.series[0].points).toHaveLength(24);
      expect(hourly.series.find((series: { model_id: string }) => series.model_id === 'test/chat').total).toBe(5);
      const minutes = (await requestJson(gateway.url, 'GET', '/rankings/charts?metric=tokens&window=1h')).body;
      expect(minutes.bucket_seconds).toBe(60);
      const monthly = (await requestJson(gateway.url, 'GET', '/rankings/charts?metric=requests&window=month')).body;
      expect(monthly.series.map((series: { total: number }) => series.total)).toEqual([5, 5]);
    });
  });

  describe('enum errors list the allowed values', () => {
    const allowed = (message: string, values: readonly string[]) => {
      for (const value of values) expect(message).toContain(`'${value}'`);
    };

    it.each([
      ['/rankings/models?window=year', 'window', WINDOW_NAMES],
      ['/api-account/providers/mock/stats?window=2h', 'window', WINDOW_NAMES],
      ['/rankings/charts?metric=money', 'metric', ['tokens', 'requests', 'users']],
      ['/rankings/charts?metric=users&window=1h', 'window', ['7d', '30d']],
      ['/api-account/models?sort=best', 'sort', ['name', 'price', 'popularity', 'newest']],
      ['/api-account/models?order=up', 'order', ['asc', 'desc']],
      ['/api-account/models?input_modality=smell', 'input_modality[0]', ['text', 'image', 'audio']],
      ['/api-account/models?provider=nobody', 'provider', ['mock']],
    ])('%s', async (path, param, values) => {
      const response = await requestJson(gateway.url, 'GET', path);
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({ type: 'invalid_request_error', param, code: 'invalid_value' });
      allowed(response.body.error.message, values);
    });

    it('in bodies too: routing_mode and the checkout currency', async () => {
      const mode = await alice.request('POST', '/api-account/user/api-keys', { name: 'k', routing_mode: 'auto' });
      expect(mode.status).toBe(400);
      allowed(mode.body.error.message, ['code', 'manual']);
      const currency = await alice.request('POST', '/api-account/user/billing/create-checkout', {
        amount: 10,
        currency: 'gbp',
      });
      expect(currency.status).toBe(400);
      expect(currency.body.error.param).toBe('currency');
      allowed(currency.body.error.message, ['USD', 'EUR']);
    });
  });

  describe('unknown query parameters: a 400 naming them, on every endpoint', () => {
    it.each([
      '/api-account/models?colour=red',
      '/api-account/models/filters?colour=red',
      '/api-account/models/test/chat?colour=red',
      '/api-account/providers?colour=red',
      '/api-account/providers/mock?colour=red',
      '/api-account/providers/mock/stats?window=24h&colour=red',
      '/api-account/routing-templates?colour=red',
      '/api-account/rankings/all?colour=red',
      '/rankings/models?colour=red',
      '/rankings/benchmarks?colour=red',
      '/api-account/user/me?colour=red',
      '/api-account/user/api-keys?colour=red',
      '/api-account/user/usage?colour=red',
      '/api-account/user/balance?colour=red',
      '/api-account/user/billing?colour=red',
      '/api-account/user/billing/orders?colour=red',
    ])('%s', async (path) => {
      const response = await alice.request('GET', path);
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({
        type: 'invalid_request_error',
        param: 'colour',
        code: 'unknown_parameter',
      });
      expect(response.body.error.message).toContain("'colour'");
    });

    it('names every unknown parameter and lists the supported ones', async () => {
      const response = await requestJson(gateway.url, 'GET', '/rankings/speed?windw=7d&lmit=3&limit=2');
      expect(response.status).toBe(400);
      expect(response.body.error.message).toContain("'windw', 'lmit'");
      expect(response.body.error.message).toContain("Supported parameters are: 'window', 'limit'");
    });

    it('a signed document link keeps its own parameters', async () => {
      const response = await requestJson(
        gateway.url,
        'GET',
        '/api-account/billing/documents/doc_x.pdf?expires=1&signature=abc',
      );
      expect(response.status).toBe(403);
    });
  });
});
