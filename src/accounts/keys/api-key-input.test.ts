import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../shared/errors.js';
import type { ApiKeysTable } from '../../store/schema.js';
import {
  parseExpiration,
  toApiKeyChanges,
  toDefaultModelsChanges,
  toNewApiKey,
  usdToMicros,
  type KeyInputContext,
} from './api-key-input.js';

const NOW = Date.parse('2030-06-15T12:00:00Z');
const context: KeyInputContext = {
  now: NOW,
  isKnownModel: (id) => ['a/one', 'a/two', 'b/three'].includes(id),
  templates: new Map([
    [
      'pair',
      {
        id: 'pair',
        name: 'Pair',
        description: '',
        defaultModels: [
          { model_id: 'a/one', priority: 1 },
          { model_id: 'gone/model', priority: 2 },
          { model_id: 'a/two', priority: 3 },
        ],
      },
    ],
  ]),
};

const row: ApiKeysTable = {
  id: 'key_1',
  user_id: 'u1',
  name: 'n',
  description: '',
  key_hash: 'h',
  key_start: 'sk-gw-abcd',
  key_end: 'wxyz',
  routing_mode: 'code',
  allowed_models: null,
  rpm_limit: 10,
  tpm_limit: null,
  monthly_quota_micros: 5_000_000,
  credit_limit_micros: null,
  expires_at: null,
  disabled: 0,
  template_id: null,
  default_models: JSON.stringify([{ model_id: 'a/one', priority: 1 }]),
  created_at: 1,
  updated_at: 1,
  last_used_at: null,
  revoked_at: null,
};

function paramOf(action: () => unknown): string | null {
  try {
    action();
  } catch (error) {
    if (error instanceof InvalidRequestError) return error.param;
    throw error;
  }
  throw new Error('expected an InvalidRequestError');
}

describe('usdToMicros', () => {
  it.each([
    [0, 0],
    [12.5, 12_500_000],
    [0.000001, 1],
    [100.123456, 100_123_456],
    [0.1 + 0.2, null],
  ])('%s USD → %s micro-USD (null: refused)', (usd, micros) => {
    if (micros === null) expect(paramOf(() => usdToMicros(usd, 'credit_limit'))).toBe('credit_limit');
    else expect(usdToMicros(usd, 'monthly_quota')).toBe(micros);
  });
});

describe('parseExpiration', () => {
  it('accepts a future date-time with any offset and refuses now and the past', () => {
    expect(parseExpiration('2030-06-15T14:00:00+02:00', NOW - 1)).toBe(NOW);
    expect(parseExpiration('2031-01-01T00:00:00Z', NOW)).toBe(Date.parse('2031-01-01T00:00:00Z'));
    expect(paramOf(() => parseExpiration('2030-06-15T12:00:00Z', NOW))).toBe('expiration');
    expect(paramOf(() => parseExpiration('2020-01-01T00:00:00Z', NOW))).toBe('expiration');
  });
});

describe('toNewApiKey', () => {
  it("adopts a template's served models, in priority order, and records the template", () => {
    const input = toNewApiKey('u1', { name: '  spaced  ', template_id: 'pair', routing_mode: 'manual' }, context);
    expect(input).toMatchObject({
      name: 'spaced',
      routingMode: 'manual',
      templateId: 'pair',
      defaultModels: [
        { model_id: 'a/one', priority: 1 },
        { model_id: 'a/two', priority: 3 },
      ],
    });
  });

  it.each([
    [
      {
        name: 'k',
        default_models: [
          { model_id: 'a/one', priority: 2 },
          { model_id: 'a/two', priority: 2 },
        ],
      },
      'default_models',
    ],
    [
      {
        name: 'k',
        default_models: [
          { model_id: 'a/one', priority: 1 },
          { model_id: 'zzz', priority: 2 },
        ],
      },
      'default_models[1].model_id',
    ],
    [
      { name: 'k', allowed_models: ['b/*'], default_models: [{ model_id: 'a/one', priority: 1 }] },
      'default_models[0].model_id',
    ],
    [{ name: 'k', routing_mode: 'manual' as const }, 'default_models'],
    [{ name: 'k', template_id: 'nope' }, 'template_id'],
    [{ name: 'k', template_id: 'nope', default_models: [{ model_id: 'a/one', priority: 1 }] }, 'template_id'],
  ])('refuses %j naming %s', (body, param) => {
    expect(paramOf(() => toNewApiKey('u1', body, context))).toBe(param);
  });

  it('lets a glob in allowed_models cover the default models', () => {
    const input = toNewApiKey(
      'u1',
      { name: 'k', allowed_models: ['a/*', 'a/*'], default_models: [{ model_id: 'a/two', priority: 4 }] },
      context,
    );
    expect(input.allowedModels).toEqual(['a/*']);
  });
});

describe('toApiKeyChanges', () => {
  it('leaves out what the body leaves out and clears what it sets to null', () => {
    const changes = toApiKeyChanges(row, { rpm_limit: null, monthly_quota: 7.25, disabled: true }, context);
    expect(changes).toMatchObject({ rpm_limit: null, monthly_quota_micros: 7_250_000, disabled: 1, updated_at: NOW });
    expect(changes).not.toHaveProperty('name');
    expect(changes).not.toHaveProperty('credit_limit_micros');
    expect(JSON.parse(changes.default_models!)).toEqual([{ model_id: 'a/one', priority: 1 }]);
  });

  it('checks the merged settings: narrowing allowed_models may not strand a default model', () => {
    expect(paramOf(() => toApiKeyChanges(row, { allowed_models: ['b/*'] }, context))).toBe(
      'default_models[0].model_id',
    );
    expect(paramOf(() => toApiKeyChanges({ ...row, default_models: null }, { routing_mode: 'manual' }, context))).toBe(
      'default_models',
    );
  });
});

describe('toDefaultModelsChanges', () => {
  it('needs a list or a template, and a custom list drops the template', () => {
    expect(paramOf(() => toDefaultModelsChanges(row, {}, context))).toBe('default_models');
    const custom = toDefaultModelsChanges(
      { ...row, template_id: 'pair' },
      { default_models: [{ model_id: 'b/three', priority: 1 }] },
      context,
    );
    expect(custom.template_id).toBeNull();
    const fromTemplate = toDefaultModelsChanges(row, { template_id: 'pair' }, context);
    expect(fromTemplate.template_id).toBe('pair');
  });
});
