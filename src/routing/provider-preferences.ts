import { InvalidRequestError } from '../shared/errors.js';
import { decimalToUnits } from '../shared/decimal.js';

type EndpointSort = 'price' | 'throughput' | 'latency';

/** OpenRouter-style `provider` preferences of one request, checked and normalised. */
export interface ProviderPreferences {
  order: string[] | null;
  only: string[] | null;
  ignore: string[] | null;
  allowFallbacks: boolean;
  sort: EndpointSort | null;
  /** Micro-USD per million tokens (prompt, completion) and per request; null where not limited. */
  maxPrice: { promptMicros: number | null; completionMicros: number | null; requestMicros: number | null } | null;
}

export interface RequestRouting {
  preferences: ProviderPreferences;
  /** The request's `models` fallback list, in order (empty when absent). */
  models: string[];
}

const NO_PREFERENCES: ProviderPreferences = {
  order: null,
  only: null,
  ignore: null,
  allowFallbacks: true,
  sort: null,
  maxPrice: null,
};
const SORTS: readonly EndpointSort[] = ['price', 'throughput', 'latency'];
const PREFERENCE_FIELDS = new Set(['order', 'only', 'ignore', 'allow_fallbacks', 'sort', 'max_price']);
const PRICE_FIELDS = new Set(['prompt', 'completion', 'request']);

/**
 * Reads `provider` and `models` from a chat request body. Pure; a bad value is a 400 naming the
 * exact parameter (`provider.sort`, `models[2]`). Unknown fields are refused rather than
 * silently ignored, so a client never believes a preference was applied when it was not.
 */
export function parseRequestRouting(body: Record<string, unknown>): RequestRouting {
  return { preferences: parseProviderPreferences(body.provider), models: parseModels(body.models) };
}

function parseProviderPreferences(value: unknown): ProviderPreferences {
  if (value === undefined || value === null) return NO_PREFERENCES;
  if (!isPlainObject(value))
    throw new InvalidRequestError("Invalid type for 'provider': expected an object.", 'provider');
  for (const field of Object.keys(value)) {
    if (!PREFERENCE_FIELDS.has(field)) {
      throw new InvalidRequestError(
        `Unknown parameter: 'provider.${field}'. Supported: ${[...PREFERENCE_FIELDS].join(', ')}.`,
        `provider.${field}`,
      );
    }
  }
  const allowFallbacks = value.allow_fallbacks ?? true;
  if (typeof allowFallbacks !== 'boolean')
    throw new InvalidRequestError(
      "Invalid type for 'provider.allow_fallbacks': expected a boolean.",
      'provider.allow_fallbacks',
    );
  const sort = value.sort ?? null;
  if (sort !== null && !SORTS.includes(sort as EndpointSort)) {
    throw new InvalidRequestError(
      `Invalid value for 'provider.sort': expected one of ${SORTS.join(', ')}.`,
      'provider.sort',
    );
  }
  return {
    order: stringList(value.order, 'provider.order'),
    only: stringList(value.only, 'provider.only'),
    ignore: stringList(value.ignore, 'provider.ignore'),
    allowFallbacks,
    sort: sort as EndpointSort | null,
    maxPrice: parseMaxPrice(value.max_price),
  };
}

function parseMaxPrice(value: unknown): ProviderPreferences['maxPrice'] {
  if (value === undefined || value === null) return null;
  if (!isPlainObject(value))
    throw new InvalidRequestError("Invalid type for 'provider.max_price': expected an object.", 'provider.max_price');
  for (const field of Object.keys(value)) {
    if (!PRICE_FIELDS.has(field))
      throw new InvalidRequestError(
        `Unknown parameter: 'provider.max_price.${field}'. Supported: prompt, completion, request.`,
        `provider.max_price.${field}`,
      );
  }
  const price = (field: string): number | null => {
    const raw = value[field];
    if (raw === undefined || raw === null) return null;
    if (typeof raw !== 'number' || !Number.isFinite(raw) || raw < 0) {
      throw new InvalidRequestError(
        `Invalid value for 'provider.max_price.${field}': expected a number of USD, 0 or more.`,
        `provider.max_price.${field}`,
      );
    }
    // Prices are compared as integers of micro-USD, like the configured ones.
    try {
      return decimalToUnits(raw, 6);
    } catch {
      throw new InvalidRequestError(
        `Invalid value for 'provider.max_price.${field}': at most 6 decimal places.`,
        `provider.max_price.${field}`,
      );
    }
  };
  return { promptMicros: price('prompt'), completionMicros: price('completion'), requestMicros: price('request') };
}

function parseModels(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value))
    throw new InvalidRequestError("Invalid type for 'models': expected an array of model ids.", 'models');
  if (value.length > 16) throw new InvalidRequestError("Invalid 'models': at most 16 model ids.", 'models');
  return value.map((item, index) => {
    if (typeof item !== 'string' || item.length === 0)
      throw new InvalidRequestError(`Invalid type for 'models[${index}]': expected a model id.`, `models[${index}]`);
    return item;
  });
}

function stringList(value: unknown, param: string): string[] | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value))
    throw new InvalidRequestError(`Invalid type for '${param}': expected an array of provider ids.`, param);
  return value.map((item, index) => {
    if (typeof item !== 'string' || item.length === 0)
      throw new InvalidRequestError(
        `Invalid type for '${param}[${index}]': expected a provider id.`,
        `${param}[${index}]`,
      );
    return item;
  });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
