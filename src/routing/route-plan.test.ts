import { describe, expect, it } from 'vitest';
import { keyRecord, routingDirectory } from '../../test/helpers/routing-fixtures.js';
import { GatewayError } from '../shared/errors.js';
import { planRoute } from './route-plan.js';
import { parseRequestRouting } from './provider-preferences.js';
import { configRoutingTemplates } from './routing-templates.js';
import type { ApiKeyRecord } from './api-key-record.js';

const directory = routingDirectory();
const templates = configRoutingTemplates([
  {
    id: 'cheap',
    name: 'Cheap',
    description: '',
    defaultModels: [
      { model_id: 'chat/d', priority: 1 },
      { model_id: 'chat/b', priority: 2 },
    ],
  },
]);

function plan(options: {
  model?: string;
  body?: Record<string, unknown>;
  key?: ApiKeyRecord | null;
  search?: boolean;
}) {
  return planRoute({
    requestedModel: options.model ?? 'chat/a',
    routing: parseRequestRouting(options.body ?? {}),
    key: options.key ?? null,
    enableSearch: options.search ?? false,
    directory,
    templates,
    rank: (candidates) => [...candidates],
  }).map((candidate) => `${candidate.model.id}@${candidate.provider.id}`);
}

function planError(options: Parameters<typeof plan>[0]): GatewayError {
  try {
    plan(options);
  } catch (error) {
    return error as GatewayError;
  }
  throw new Error('expected planRoute to throw');
}

describe('planRoute: code mode', () => {
  it('the requested model, then the request models list, then the key default models', () => {
    const key = keyRecord({
      default_models: [
        { model_id: 'chat/d', priority: 2 },
        { model_id: 'chat/b', priority: 1 },
      ],
    });
    expect(plan({ model: 'chat/c', body: { models: ['chat/d'] }, key })).toEqual([
      'chat/c@p3',
      'chat/c@p1',
      'chat/d@p1',
      'chat/b@p2',
    ]);
  });

  it('an unknown requested model is a 404, a disallowed one a 403', () => {
    expect(planError({ model: 'chat/zzz' })).toMatchObject({ status: 404, param: 'model' });
    expect(planError({ model: 'chat/a', key: keyRecord({ allowed_models: ['chat/b'] }) })).toMatchObject({
      status: 403,
      code: 'model_not_allowed',
    });
  });

  it('an unknown model in the models list is a 400 naming it', () => {
    expect(planError({ body: { models: ['chat/b', 'chat/nope'] } })).toMatchObject({ status: 400, param: 'models[1]' });
  });

  it('allowed_models filters every fallback: the models list and the default models', () => {
    const key = keyRecord({
      allowed_models: ['chat/a', 'chat/d'],
      default_models: [
        { model_id: 'chat/b', priority: 1 },
        { model_id: 'chat/d', priority: 2 },
      ],
    });
    expect(plan({ body: { models: ['chat/b', 'chat/c'] }, key })).toEqual([
      'chat/a@p1',
      'chat/a@p3',
      'chat/a@p2',
      'chat/d@p1',
    ]);
  });

  it('a key with a template and no stored list falls back to the template models', () => {
    expect(plan({ model: 'chat/c', key: keyRecord({ template_id: 'cheap' }) })).toEqual([
      'chat/c@p3',
      'chat/c@p1',
      'chat/d@p1',
      'chat/b@p2',
    ]);
  });
});

describe('planRoute: manual mode', () => {
  it('ignores the requested model and its models list: the default models decide, priority 1 first', () => {
    const key = keyRecord({
      routing_mode: 'manual',
      default_models: [
        { model_id: 'chat/b', priority: 2 },
        { model_id: 'chat/d', priority: 1 },
      ],
    });
    expect(plan({ model: 'chat/a', body: { models: ['chat/c'] }, key })).toEqual(['chat/d@p1', 'chat/b@p2']);
    expect(plan({ model: 'does/not-exist', key })).toEqual(['chat/d@p1', 'chat/b@p2']);
  });

  it('uses the template when the key stored no list', () => {
    expect(plan({ model: 'chat/a', key: keyRecord({ routing_mode: 'manual', template_id: 'cheap' }) })).toEqual([
      'chat/d@p1',
      'chat/b@p2',
    ]);
  });

  it('allowed_models still filters, and nothing left is a 403', () => {
    const key = keyRecord({
      routing_mode: 'manual',
      allowed_models: ['chat/b'],
      default_models: [
        { model_id: 'chat/d', priority: 1 },
        { model_id: 'chat/b', priority: 2 },
      ],
    });
    expect(plan({ key })).toEqual(['chat/b@p2']);
    const none = keyRecord({
      routing_mode: 'manual',
      allowed_models: ['chat/a'],
      default_models: [{ model_id: 'chat/d', priority: 1 }],
    });
    expect(planError({ key: none })).toMatchObject({ status: 403, code: 'model_not_allowed' });
  });

  it('a manual key without default models routes the requested model', () => {
    expect(plan({ model: 'chat/b', key: keyRecord({ routing_mode: 'manual' }) })).toEqual(['chat/b@p2']);
  });
});

describe('planRoute: enable_search', () => {
  it('keeps only endpoints that support search, skipping fallback models without it', () => {
    expect(plan({ model: 'chat/c', body: { models: ['chat/b'] }, search: true })).toEqual(['chat/c@p3']);
  });

  it('a requested model without search is a 400 naming enable_search', () => {
    expect(planError({ model: 'chat/a', search: true })).toMatchObject({ status: 400, param: 'enable_search' });
  });

  it('manual mode with no search-capable default model is a 400 naming enable_search', () => {
    const key = keyRecord({ routing_mode: 'manual', default_models: [{ model_id: 'chat/d', priority: 1 }] });
    expect(planError({ key, search: true })).toMatchObject({ status: 400, param: 'enable_search' });
  });
});

describe('planRoute: preferences that leave nothing', () => {
  it('is a 400 naming provider', () => {
    let caught: unknown;
    try {
      planRoute({
        requestedModel: 'chat/b',
        routing: parseRequestRouting({}),
        key: null,
        enableSearch: false,
        directory,
        templates,
        rank: () => [],
      });
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({ status: 400, param: 'provider', code: 'no_endpoint_matches' });
  });
});
