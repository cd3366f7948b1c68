import type { ErrorObject } from 'ajv';
import { InvalidRequestError } from '../shared/errors.js';

/** JSON Pointer (/messages/0/role) → the parameter path OpenAI names (messages[0].role). */
function pointerToParam(pointer: string): string {
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

const RANGE_KEYWORDS = new Set([
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'maxItems',
  'minItems',
  'maxLength',
  'minLength',
  'pattern',
]);

const RANGE_WORDS: Record<string, string> = {
  minimum: 'at least',
  maximum: 'at most',
  exclusiveMinimum: 'greater than',
  exclusiveMaximum: 'less than',
};

/** The allowed values of a union of literals (TypeBox `Type.Union([Type.Literal…])`), else undefined. */
function literalValues(schema: unknown): unknown[] | undefined {
  const branches =
    (schema as { anyOf?: unknown[]; oneOf?: unknown[] } | undefined)?.anyOf ??
    (schema as { oneOf?: unknown[] } | undefined)?.oneOf;
  if (!Array.isArray(branches) || branches.length === 0) return undefined;
  if (!branches.every((branch) => typeof branch === 'object' && branch !== null && 'const' in branch)) return undefined;
  return branches.map((branch) => (branch as { const: unknown }).const);
}

/**
 * A query string with parameters the route does not take: every unknown one is named (Ajv stops
 * at the first), and the ones it does take are listed. `param` is the first unknown one.
 */
function unknownQueryParameters(error: ErrorObject, first: string): InvalidRequestError {
  const known = Object.keys((error.parentSchema as { properties?: object } | undefined)?.properties ?? {});
  const given = error.data !== null && typeof error.data === 'object' ? Object.keys(error.data) : [first];
  const unknown = given.filter((name) => !known.includes(name));
  const names = (unknown.length > 0 ? unknown : [first]).map((name) => `'${name}'`).join(', ');
  const supported =
    known.length === 0
      ? 'This endpoint takes no query parameters.'
      : `Supported parameters are: ${known.map((name) => `'${name}'`).join(', ')}.`;
  return new InvalidRequestError(
    `Unrecognized query parameter${unknown.length > 1 ? 's' : ''}: ${names}. ${supported}`,
    unknown[0] ?? first,
    'unknown_parameter',
  );
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
  // A branch's own range check on the union's value ("at most 2") says more than the union's
  // description; a failed type or const check only says "not this branch".
  const rangeChild = union
    ? errors.find((error) => error.instancePath === union.instancePath && RANGE_KEYWORDS.has(error.keyword))
    : undefined;
  const deepestUnionChild = union
    ? errors.find((error) => error.instancePath.startsWith(union.instancePath + '/') && error.keyword !== 'anyOf')
    : undefined;
  const unionChild =
    rangeChild ?? (deepestUnionChild && deepestUnionChild.keyword !== 'type' ? deepestUnionChild : undefined);
  const error = unionChild ?? union ?? errors[0];
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
      const { limit } = error.params as { limit: number };
      const bound = RANGE_WORDS[error.keyword];
      return new InvalidRequestError(
        `Invalid ${label(param)}: must be ${bound} ${limit}, got ${JSON.stringify(value)}.`,
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
      const allowed = literalValues(error.parentSchema);
      if (allowed) {
        return new InvalidRequestError(
          `Invalid value for ${label(param)}: ${JSON.stringify(value)}. Supported values are: ${allowed.map((item) => `'${String(item)}'`).join(', ')}.`,
          param,
          'invalid_value',
        );
      }
      const description = (error.parentSchema as { description?: string } | undefined)?.description;
      return new InvalidRequestError(
        `Invalid ${label(param)}: expected ${description ?? 'one of the documented shapes'}.`,
        param,
        'invalid_value',
      );
    }
    case 'additionalProperties': {
      const extra = (error.params as { additionalProperty: string }).additionalProperty;
      if (root === 'querystring' && !param) return unknownQueryParameters(error, extra);
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
