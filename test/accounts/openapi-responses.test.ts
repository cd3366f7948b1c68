import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';
import { AccountClient, requestJson } from '../helpers/account-client.js';
import { rollupFromEvents } from '../../src/statistics/usage-stats-recorder.js';

/**
 * The OpenAPI document describes what the account routes issue 17 added or changed really answer:
 * each body is validated against the 200 schema of its own path in /openapi.json, and each of
 * those routes declares the error envelope.
 */
describe('OpenAPI response schemas match the answers', () => {
  let gateway: TestGateway;
  let alice: AccountClient;
  let document: { paths: Record<string, Record<string, { responses: Record<string, any> }>> };
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats.default(ajv);

  const pointer = (...segments: string[]) =>
    segments.map((segment) => encodeURIComponent(segment.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/');
  const validatorFor = (template: string, method: string, contentType = 'application/json'): ValidateFunction =>
    ajv.compile({
      $ref: `openapi#/${pointer('paths', template, method, 'responses', '200', 'content', contentType, 'schema')}`,
    });

  beforeAll(async () => {
    gateway = await startTestGateway({
      configText: testConfigText('http://127.0.0.1:9', 'billing:\n  payment_provider: sandbox\n'),
    });
    alice = await AccountClient.signUp(gateway.url);
    document = (await requestJson(gateway.url, 'GET', '/openapi.json')).body;
    ajv.addSchema({ ...document, $id: 'openapi' });
    const now = Date.now();
    await rollupFromEvents(
      gateway.testStore.store,
      Array.from({ length: 6 }, (_, index) => ({
        timestamp: now - index * 1000,
        modelId: 'test/chat',
        providerId: 'mock',
        userId: 'someone',
        promptTokens: 10,
        completionTokens: 50,
        latencyMs: 900,
        ttftMs: 100,
        status: index === 0 ? 502 : 200,
      })),
    );
  });
  afterAll(async () => gateway?.close());

  it('the schemas are real: a wrong body fails them', () => {
    expect(validatorFor('/api-account/providers', 'get')({ data: [{ id: 1 }] })).toBe(false);
    expect(validatorFor('/rankings/speed', 'get')({ window: 'day' })).toBe(false);
    expect(validatorFor('/api-account/user/transactions', 'get')({ data: [], total: 0 })).toBe(false);
  });

  // Issue 28 item 8: the console takes every response type from this document, so a route that
  // answers a body must describe it (only "no content" and redirects carry none).
  it('every account, catalog and rankings route declares the body it answers', () => {
    const undescribed: string[] = [];
    for (const [path, operations] of Object.entries(document.paths)) {
      if (!path.startsWith('/api-account') && !path.startsWith('/rankings')) continue;
      for (const [method, operation] of Object.entries(operations)) {
        const statuses = Object.keys(operation.responses).filter((status) => /^[23]/.test(status));
        const bodyless = statuses.every((status) => status === '204' || status.startsWith('3'));
        const described = statuses.some((status) => operation.responses[status].content);
        if (statuses.length === 0 || (!bodyless && !described)) undescribed.push(`${method.toUpperCase()} ${path}`);
      }
    }
    expect(undescribed).toEqual([]);
  });

  it('public routes: providers and rankings', async () => {
    for (const [template, path] of [
      ['/api-account/models', '/api-account/models?limit=20'],
      ['/api-account/models', '/api-account/models?provider=mock'],
      ['/api-account/models/filters', '/api-account/models/filters'],
      ['/api-account/models/{*}', '/api-account/models/test/chat'],
      ['/api-account/providers', '/api-account/providers'],
      ['/api-account/providers/{id}', '/api-account/providers/mock'],
      ['/api-account/providers/{id}/stats', '/api-account/providers/mock/stats?window=1h'],
      ['/rankings/models', '/rankings/models?window=24h'],
      ['/rankings/charts', '/rankings/charts?metric=requests&window=24h'],
      ['/rankings/charts', '/rankings/charts?metric=users'],
      ['/rankings/benchmarks', '/rankings/benchmarks'],
      ['/rankings/speed', '/rankings/speed'],
      ['/api-account/rankings/speed', '/api-account/rankings/speed?window=7d'],
      ['/api-account/rankings/all', '/api-account/rankings/all?window=1h'],
    ]) {
      const response = await requestJson(gateway.url, 'GET', path);
      expect(response.status, path).toBe(200);
      const validate = validatorFor(template, 'get');
      expect(validate(response.body) ? null : ajv.errorsText(validate.errors), path).toBeNull();
      expect(document.paths[template].get.responses['400'], template).toBeDefined();
    }
  });

  it('signed-in routes: keys, rotation, transactions, billing, order cancel', async () => {
    const key = (
      await alice.request('POST', '/api-account/user/api-keys', { name: 'k', expiration: '2999-01-01T00:00:00Z' })
    ).body;
    const checkout = (await alice.request('POST', '/api-account/user/billing/create-checkout', { amount: 5 })).body;
    const calls: [string, string, string, unknown?][] = [
      ['/api-account/user/api-keys/{key_id}/rotate', 'post', `/api-account/user/api-keys/${key.key_id}/rotate`, {}],
      ['/api-account/user/api-keys/{key_id}', 'get', `/api-account/user/api-keys/${key.key_id}`],
      ['/api-account/user/transactions', 'get', '/api-account/user/transactions'],
      ['/api-account/user/billing', 'get', '/api-account/user/billing'],
      ['/api-account/user/billing/orders', 'get', '/api-account/user/billing/orders'],
      [
        '/api-account/user/billing/orders/{order_id}/cancel',
        'post',
        `/api-account/user/billing/orders/${checkout.order_id}/cancel`,
      ],
    ];
    for (const [template, method, path, body] of calls) {
      const response = await alice.request(method.toUpperCase(), path, body);
      expect(response.status, path).toBe(200);
      const validate = validatorFor(template, method);
      expect(validate(response.body) ? null : ajv.errorsText(validate.errors), path).toBeNull();
      expect(document.paths[template][method].responses['401'], template).toBeDefined();
    }
    expect(document.paths['/api-account/user/transactions'].get.responses['200'].content['text/csv']).toBeDefined();
  });
});
