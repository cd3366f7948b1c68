import type { ErrorObject } from 'ajv';
import { InvalidRequestError } from '../shared/errors.js';

/** JSON Pointer (/messages/0/role) → the parameter path OpenAI names (messages[0].role). */
export function pointerToParam(pointer: string): string {
  let param = '';
  for (const raw of pointer.split('/').slice(1)) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    param += /^\d+$/.test(part) ? `[${part}]` : param ? `.${part}` : part;
  }
  return param;
}

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  integer: 'an integer',
  boolean: 'a boolean',
  array: 'an array',
  object: 'an object',
  null: 'null',
};

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'an integer' : 'a decimal';
  return TYPE_NAMES[typeof value] ?? typeof value;
}

/**
 * Turns the first Ajv error into a 400 that names the parameter, in OpenAI's wording.
 * Ajv lists the failures of each branch of a union before the union's own error; the union's
 * description ("a string or an array of content parts") says more, so it wins when present.
 */
export function schemaErrorToRequestError(
  errors: ErrorObject[],
  root: 'body' | 'querystring' | 'params' | 'headers' = 'body',
): InvalidRequestError {
  const union = errors.find((error) => error.keyword === 'anyOf' || error.keyword === 'oneOf');
  const deepestUnionChild = union
    ? errors.find((error) => error.instancePath.startsWith(union.instancePath + '/') && error.keyword !== 'anyOf')
    : undefined;
  const error = deepestUnionChild && deepestUnionChild.keyword !== 'type' ? deepestUnionChild : (union ?? errors[0]);
  let param = pointerToParam(error.instancePath);
  const value = error.data;
  const label = (name: string) => `'${name || root}'`;
  switch (error.keyword) {
    case 'required': {
      const missing = (error.params as { missingProperty: string }).missingProperty;
      param = param ? `${param}.${missing}` : missing;
      return new InvalidRequestError(
        `Missing required parameter: ${label(param)}.`,
        param,
        'missing_required_parameter',
      );
    }
    case 'type': {
      const expected = String((error.params as { type: string }).type)
        .split(',')
        .map((type) => TYPE_NAMES[type] ?? type)
        .join(' or ');
      return new InvalidRequestError(
        `Invalid type for ${label(param)}: expected ${expected}, but got ${describeValue(value)} instead.`,
        param,
        'invalid_type',
      );
    }
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum': {
      const { comparison, limit } = error.params as { comparison: string; limit: number };
      return new InvalidRequestError(
        `Invalid ${label(param)}: expected a value ${comparison} ${limit}, but got ${JSON.stringify(value)} instead.`,
        param,
        'invalid_value',
      );
    }
    case 'minItems':
      return new InvalidRequestError(
        `Invalid ${label(param)}: ${Array.isArray(value) && value.length === 0 ? 'empty array' : 'too few items'}. Expected an array with at least ${(error.params as { limit: number }).limit} item(s).`,
        param,
        Array.isArray(value) && value.length === 0 ? 'empty_array' : 'invalid_value',
      );
    case 'maxItems':
      return new InvalidRequestError(
        `Invalid ${label(param)}: expected at most ${(error.params as { limit: number }).limit} item(s).`,
        param,
        'invalid_value',
      );
    case 'minLength':
      return new InvalidRequestError(
        `Invalid ${label(param)}: the string is too short (at least ${(error.params as { limit: number }).limit} character(s)).`,
        param,
        'invalid_value',
      );
    case 'maxLength':
      return new InvalidRequestError(
        `Invalid ${label(param)}: the string is too long (at most ${(error.params as { limit: number }).limit} characters).`,
        param,
        'invalid_value',
      );
    case 'enum':
    case 'const': {
      const allowed = (error.params as { allowedValues?: unknown[]; allowedValue?: unknown }).allowedValues ?? [
        (error.params as { allowedValue?: unknown }).allowedValue,
      ];
      return new InvalidRequestError(
        `Invalid value for ${label(param)}: ${JSON.stringify(value)}. Supported values are: ${allowed.map((item) => `'${String(item)}'`).join(', ')}.`,
        param,
        'invalid_value',
      );
    }
    case 'pattern': {
      const description = (error.parentSchema as { description?: string } | undefined)?.description;
      return new InvalidRequestError(
        `Invalid ${label(param)}: ${description ? `expected ${description}` : `does not match ${(error.params as { pattern: string }).pattern}`}.`,
        param,
        'invalid_value',
      );
    }
    case 'anyOf':
    case 'oneOf': {
      const description = (error.parentSchema as { description?: string } | undefined)?.description;
      return new InvalidRequestError(
        `Invalid ${label(param)}: expected ${description ?? 'one of the documented shapes'}.`,
        param,
        'invalid_value',
      );
    }
    case 'additionalProperties': {
      const extra = (error.params as { additionalProperty: string }).additionalProperty;
      param = param ? `${param}.${extra}` : extra;
      return new InvalidRequestError(`Unrecognized parameter: ${label(param)}.`, param, 'unknown_parameter');
    }
    case 'format':
      return new InvalidRequestError(
        `Invalid ${label(param)}: expected the ${(error.params as { format: string }).format} format.`,
        param,
        'invalid_value',
      );
    default:
      return new InvalidRequestError(
        `Invalid ${label(param)}: ${error.message ?? 'invalid value'}.`,
        param,
        'invalid_value',
      );
  }
}
