import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../shared/errors.js';
import { parseRequestRouting } from './provider-preferences.js';

describe('parseRequestRouting', () => {
  it('no preferences: every endpoint allowed, fallbacks on, no models list', () => {
    expect(parseRequestRouting({})).toEqual({
      preferences: { order: null, only: null, ignore: null, allowFallbacks: true, sort: null, maxPrice: null },
      models: [],
    });
  });

  it('reads every field, max_price as integer micro-USD', () => {
    const parsed = parseRequestRouting({
      provider: {
        order: ['b', 'a'],
        only: ['a', 'b'],
        ignore: ['c'],
        allow_fallbacks: false,
        sort: 'latency',
        max_price: { prompt: 0.15, completion: 2.5, request: 0.001 },
      },
      models: ['x/one', 'x/two'],
    });
    expect(parsed.preferences).toEqual({
      order: ['b', 'a'],
      only: ['a', 'b'],
      ignore: ['c'],
      allowFallbacks: false,
      sort: 'latency',
      maxPrice: { promptMicros: 150_000, completionMicros: 2_500_000, requestMicros: 1000 },
    });
    expect(parsed.models).toEqual(['x/one', 'x/two']);
  });

  const bad: Array<[string, Record<string, unknown>, string]> = [
    ['provider not an object', { provider: 'openai' }, 'provider'],
    ['provider as an array', { provider: ['openai'] }, 'provider'],
    ['unknown provider field', { provider: { prefer: ['a'] } }, 'provider.prefer'],
    ['order not an array', { provider: { order: 'a' } }, 'provider.order'],
    ['order item not a string', { provider: { order: ['a', 3] } }, 'provider.order[1]'],
    ['only item empty', { provider: { only: [''] } }, 'provider.only[0]'],
    ['ignore not an array', { provider: { ignore: {} } }, 'provider.ignore'],
    ['allow_fallbacks as a string', { provider: { allow_fallbacks: 'no' } }, 'provider.allow_fallbacks'],
    ['sort of an unknown value', { provider: { sort: 'cheapest' } }, 'provider.sort'],
    ['max_price not an object', { provider: { max_price: 1 } }, 'provider.max_price'],
    ['max_price negative', { provider: { max_price: { prompt: -1 } } }, 'provider.max_price.prompt'],
    ['max_price as a string', { provider: { max_price: { completion: '1' } } }, 'provider.max_price.completion'],
    ['max_price unknown field', { provider: { max_price: { image: 1 } } }, 'provider.max_price.image'],
    ['max_price too precise', { provider: { max_price: { request: 0.0000001 } } }, 'provider.max_price.request'],
    ['models not an array', { models: 'x/one' }, 'models'],
    ['models item not a string', { models: ['x/one', 2] }, 'models[1]'],
    ['models too long', { models: Array.from({ length: 17 }, (_, index) => `m${index}`) }, 'models'],
  ];

  it.each(bad)('%s is a 400 naming %s', (_name, body, param) => {
    let caught: unknown;
    try {
      parseRequestRouting(body);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvalidRequestError);
    expect((caught as InvalidRequestError).param).toBe(param);
    expect((caught as InvalidRequestError).status).toBe(400);
  });
});
