import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { hello, startRoutingHarness, type RoutingHarness } from './routing-test-setup.js';

let harness: RoutingHarness;
beforeAll(async () => {
  harness = await startRoutingHarness(`  circuit_breaker: { failure_threshold: 1000 }
  templates:
    - id: good-first
      name: Good first
      default_models: [{ model_id: test/good-only, priority: 1 }]`);
});
afterAll(async () => harness?.close());
beforeEach(() => {
  harness.bad.setScenario({ chunkCount: 5 });
  harness.good.setScenario({ chunkCount: 5 });
  harness.bad.requests.length = 0;
  harness.good.requests.length = 0;
});

const clientFor = (apiKey: string) =>
  new OpenAI({ apiKey, baseURL: harness.gateway.baseURL, maxRetries: 0, timeout: 15_000 });
/** Extra OpenRouter-style body fields, which the SDK passes through. */
type WithRouting = OpenAI.Chat.ChatCompletionCreateParamsNonStreaming & {
  provider?: unknown;
  models?: string[];
  enable_search?: boolean;
};
const create = (client: OpenAI, body: WithRouting) =>
  client.chat.completions.create(body as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming).withResponse();

describe('key routing modes (CONTRACT §4)', () => {
  it('manual mode ignores the requested model: the default models decide, and the answer names the model used', async () => {
    const key = await harness.gateway.createKey({
      routingMode: 'manual',
      defaultModels: [
        { model_id: 'test/good-only', priority: 1 },
        { model_id: 'test/bad-only', priority: 2 },
      ],
    });
    const { data, response } = await create(clientFor(key), { model: 'test/bad-only', messages: hello });
    expect(data.model).toBe('test/good-only');
    expect(response.headers.get('x-gateway-model')).toBe('test/good-only');
    expect(harness.bad.requests).toHaveLength(0);
    // Even a model that does not exist is fine: manual mode never looks at it.
    const other = await create(clientFor(key), { model: 'nobody/knows', messages: hello });
    expect(other.data.model).toBe('test/good-only');
  });

  it('manual mode follows priority order, falling to priority 2 when priority 1 fails', async () => {
    harness.bad.setScenario({ failure: { kind: 'status', status: 500 } });
    const key = await harness.gateway.createKey({
      routingMode: 'manual',
      defaultModels: [
        { model_id: 'test/good-only', priority: 2 },
        { model_id: 'test/bad-only', priority: 1 },
      ],
    });
    const { data, response } = await create(clientFor(key), { model: 'test/multi', messages: hello });
    expect(data.model).toBe('test/good-only');
    expect(response.headers.get('x-gateway-attempts')).toBe('2');
  });

  it('code mode uses the requested model, then falls back to the default models', async () => {
    const key = await harness.gateway.createKey({
      routingMode: 'code',
      defaultModels: [{ model_id: 'test/good-only', priority: 1 }],
    });
    const healthy = await create(clientFor(key), { model: 'test/bad-only', messages: hello });
    expect(healthy.data.model).toBe('test/bad-only');
    harness.bad.setScenario({ failure: { kind: 'status', status: 503 } });
    const fallback = await create(clientFor(key), { model: 'test/bad-only', messages: hello });
    expect(fallback.data.model).toBe('test/good-only');
    expect(fallback.response.headers.get('x-gateway-provider')).toBe('good');
  });

  it('a routing template stands in for default models the key did not store', async () => {
    harness.bad.setScenario({ failure: { kind: 'status', status: 500 } });
    const key = await harness.gateway.createKey({ templateId: 'good-first' });
    const { data } = await create(clientFor(key), { model: 'test/bad-only', messages: hello });
    expect(data.model).toBe('test/good-only');
  });

  it('allowed_models is never bypassed by a fallback: default models and the models list are filtered', async () => {
    harness.bad.setScenario({ failure: { kind: 'status', status: 500 } });
    const key = await harness.gateway.createKey({
      allowedModels: ['test/bad-only'],
      defaultModels: [{ model_id: 'test/good-only', priority: 1 }],
    });
    const error = await create(clientFor(key), {
      model: 'test/bad-only',
      models: ['test/good-only'],
      messages: hello,
    }).catch((caught: unknown) => caught);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect(harness.good.requests).toHaveLength(0);
    const denied = await create(clientFor(key), { model: 'test/good-only', messages: hello }).catch(
      (caught: unknown) => caught,
    );
    expect(denied).toBeInstanceOf(OpenAI.PermissionDeniedError);
  });

  it('manual mode with allowed_models: a default model outside the list is skipped', async () => {
    const key = await harness.gateway.createKey({
      routingMode: 'manual',
      allowedModels: ['test/bad-*'],
      defaultModels: [
        { model_id: 'test/good-only', priority: 1 },
        { model_id: 'test/bad-only', priority: 2 },
      ],
    });
    const { data } = await create(clientFor(key), { model: 'test/good-only', messages: hello });
    expect(data.model).toBe('test/bad-only');
    expect(harness.good.requests).toHaveLength(0);
  });
});

describe('request routing parameters', () => {
  it('models: [...] falls back to the next model in the list', async () => {
    harness.bad.setScenario({ failure: { kind: 'status', status: 500 } });
    const { data } = await create(harness.client, {
      model: 'test/bad-only',
      models: ['test/good-only'],
      messages: hello,
    });
    expect(data.model).toBe('test/good-only');
  });

  it('provider.only and provider.order steer the endpoint; gateway fields never reach the upstream', async () => {
    const only = await create(harness.client, { model: 'test/multi', provider: { only: ['good'] }, messages: hello });
    expect(only.response.headers.get('x-gateway-provider')).toBe('good');
    expect(harness.bad.requests).toHaveLength(0);
    const ordered = await create(harness.client, {
      model: 'test/multi',
      provider: { order: ['good', 'bad'] },
      messages: hello,
    });
    expect(ordered.response.headers.get('x-gateway-provider')).toBe('good');
    const body = harness.good.requests.at(-1)!.body as Record<string, unknown>;
    expect(body.provider).toBeUndefined();
    expect(body.models).toBeUndefined();
  });

  it('allow_fallbacks false keeps to the chosen endpoint: its failure is the answer', async () => {
    harness.bad.setScenario({ failure: { kind: 'status', status: 500 } });
    const error = await create(harness.client, {
      model: 'test/multi',
      provider: { allow_fallbacks: false },
      messages: hello,
    }).catch((caught: unknown) => caught);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect(harness.good.requests).toHaveLength(0);
  });

  it('sort: price picks the cheapest; max_price removes dearer endpoints', async () => {
    const cheap = await create(harness.client, { model: 'test/multi', provider: { sort: 'price' }, messages: hello });
    expect(cheap.response.headers.get('x-gateway-provider')).toBe('bad');
    const capped = await create(harness.client, {
      model: 'test/multi',
      provider: { max_price: { prompt: 0.5 } },
      messages: hello,
    });
    expect(capped.response.headers.get('x-gateway-provider')).toBe('bad');
    const none = await create(harness.client, {
      model: 'test/multi',
      provider: { max_price: { prompt: 0.01 } },
      messages: hello,
    }).catch((caught: unknown) => caught);
    expect(none).toBeInstanceOf(OpenAI.BadRequestError);
    expect((none as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('provider');
  });

  it.each([
    [{ provider: { sort: 'fastest' } }, 'provider.sort'],
    [{ provider: { only: 'good' } }, 'provider.only'],
    [{ provider: { allow_fallbacks: 1 } }, 'provider.allow_fallbacks'],
    [{ provider: { max_price: { prompt: -1 } } }, 'provider.max_price.prompt'],
    [{ provider: { quantizations: ['fp8'] } }, 'provider.quantizations'],
    [{ models: 'test/good-only' }, 'models'],
    [{ models: ['test/good-only', 'no/such-model'] }, 'models[1]'],
  ])('%j is a 400 naming %s, and nothing reaches an upstream', async (extra, param) => {
    const error = await create(harness.client, { model: 'test/multi', messages: hello, ...(extra as object) }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBe(param);
    expect(harness.bad.requests.length + harness.good.requests.length).toBe(0);
  });

  it('enable_search reaches only a search-capable endpoint; a model without search is a 400 naming enable_search', async () => {
    const { data } = await create(harness.client, { model: 'test/search', enable_search: true, messages: hello });
    expect(data.model).toBe('test/search');
    expect((harness.good.requests.at(-1)!.body as Record<string, unknown>).web_search_options).toEqual({});
    const error = await create(harness.client, { model: 'test/multi', enable_search: true, messages: hello }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('enable_search');
  });
});
