/**
 * A value that validates against a JSON schema, for the fake upstream's structured answers
 * (`response_format: json_schema`) and forced tool calls (`tool_choice: required` or named).
 *
 * Deterministic and pure: the same schema always gives the same value, so tests can assert it.
 * It covers what OpenAI's structured outputs accept and what zod, pydantic and the SDK helpers
 * emit: types (also as a list), enum, const, anyOf/oneOf/allOf, $ref into $defs or definitions,
 * properties with required, array item bounds, string length and formats, number ranges.
 * `pattern` cannot be satisfied in general; a string schema with one gets the plain sample.
 */

type Schema = Record<string, unknown>;

const MAX_DEPTH = 24;
/** Past this depth only what the schema requires is filled in, so recursive schemas end. */
const OPTIONAL_DEPTH = 4;
const SAMPLE_WORDS = ['lorem', 'ipsum', 'dolor', 'sit', 'amet', 'consectetur', 'adipiscing', 'elit'];
const FORMAT_SAMPLES: Record<string, string> = {
  'date-time': '2026-01-01T00:00:00Z',
  date: '2026-01-01',
  time: '00:00:00Z',
  email: 'someone@example.com',
  uri: 'https://example.com/',
  url: 'https://example.com/',
  hostname: 'example.com',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
  uuid: '00000000-0000-4000-8000-000000000000',
  duration: 'P1D',
};

function isObject(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Resolves a local reference (`#/$defs/X`, `#/definitions/X`, `#`); anything else is unknown. */
function resolveReference(root: Schema, reference: string): Schema {
  if (reference === '#') return root;
  if (!reference.startsWith('#/')) return {};
  let node: unknown = root;
  for (const raw of reference.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    node = isObject(node) ? node[key] : undefined;
  }
  return isObject(node) ? node : {};
}

/** The schema's keyword when it is a whole number, else the fallback. */
function integerOr(value: unknown, fallback: number): number {
  return Number.isInteger(value) ? (value as number) : fallback;
}

function sampleString(schema: Schema, name: string): string {
  if (typeof schema.format === 'string' && FORMAT_SAMPLES[schema.format]) return FORMAT_SAMPLES[schema.format];
  const minimum = integerOr(schema.minLength, 0);
  const maximum = integerOr(schema.maxLength, Infinity);
  let text = name === '' ? 'lorem ipsum' : `${name} lorem ipsum`;
  while (text.length < minimum) text += ' ' + SAMPLE_WORDS[text.length % SAMPLE_WORDS.length];
  return text.slice(0, Math.max(minimum, Math.min(maximum, text.length)));
}

function sampleNumber(schema: Schema, integer: boolean): number {
  const step = typeof schema.multipleOf === 'number' && schema.multipleOf > 0 ? schema.multipleOf : integer ? 1 : 0;
  let low = typeof schema.minimum === 'number' ? schema.minimum : -Infinity;
  let high = typeof schema.maximum === 'number' ? schema.maximum : Infinity;
  if (typeof schema.exclusiveMinimum === 'number') low = Math.max(low, schema.exclusiveMinimum + (step || 0.5));
  if (typeof schema.exclusiveMaximum === 'number') high = Math.min(high, schema.exclusiveMaximum - (step || 0.5));
  // 42 when the range allows it, else the lowest allowed value, else the highest.
  let value = 42;
  if (value < low) value = low;
  if (value > high) value = high;
  if (step > 0) {
    const rounded = Math.ceil(value / step) * step;
    value = rounded <= high ? rounded : Math.floor(value / step) * step;
  }
  return integer ? Math.round(value) : value;
}

function firstType(schema: Schema): string | undefined {
  const type = schema.type;
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) return type.find((entry) => entry !== 'null') ?? type[0];
  if (isObject(schema.properties) || schema.required || schema.additionalProperties !== undefined) return 'object';
  if (schema.items !== undefined || schema.prefixItems !== undefined) return 'array';
  return undefined;
}

function merged(root: Schema, parts: unknown[]): Schema {
  const result: Schema = {};
  for (const part of parts) {
    if (!isObject(part)) continue;
    const schema = typeof part.$ref === 'string' ? { ...resolveReference(root, part.$ref), ...part } : part;
    for (const [key, value] of Object.entries(schema)) {
      if (key === 'properties' && isObject(result.properties))
        result.properties = { ...result.properties, ...(value as Schema) };
      else if (key === 'required' && Array.isArray(result.required))
        result.required = [...result.required, ...(value as unknown[])];
      else result[key] = value;
    }
  }
  return result;
}

function instanceOf(root: Schema, input: unknown, name: string, depth: number): unknown {
  if (!isObject(input) || depth > MAX_DEPTH) return null;
  let schema = input;
  if (typeof schema.$ref === 'string') {
    const { $ref, ...rest } = schema;
    schema = { ...resolveReference(root, $ref), ...rest };
  }
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if (Array.isArray(schema.allOf)) {
    const { allOf, ...rest } = schema;
    return instanceOf(root, merged(root, [rest, ...allOf]), name, depth + 1);
  }
  const choices = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined;
  if (choices && choices.length > 0) {
    // Prefer a choice that is not null, so optional fields still show a value.
    const choice = choices.find((entry: unknown) => !(isObject(entry) && entry.type === 'null')) ?? choices[0];
    const { anyOf: _anyOf, oneOf: _oneOf, ...rest } = schema;
    return instanceOf(root, merged(root, [rest, choice]), name, depth + 1);
  }
  switch (firstType(schema)) {
    case 'object': {
      const result: Record<string, unknown> = {};
      const properties = isObject(schema.properties) ? schema.properties : {};
      const required: string[] = Array.isArray(schema.required) ? schema.required : [];
      for (const [key, property] of Object.entries(properties)) {
        if (depth < OPTIONAL_DEPTH || required.includes(key)) result[key] = instanceOf(root, property, key, depth + 1);
      }
      for (const key of required) if (!(key in result)) result[key] = 'lorem ipsum';
      return result;
    }
    case 'array': {
      const minimum = integerOr(schema.minItems, 0);
      const maximum = integerOr(schema.maxItems, Infinity);
      // One item shows the shape; deep inside a recursive schema, no more than required.
      const count = Math.min(depth < OPTIONAL_DEPTH ? Math.max(minimum, 1) : minimum, maximum);
      const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : [];
      const items: unknown[] = [];
      for (let index = 0; index < Math.max(count, prefix.length); index++) {
        const itemSchema = prefix[index] ?? (isObject(schema.items) ? schema.items : {});
        items.push(instanceOf(root, itemSchema, name, depth + 1));
      }
      return items.slice(0, maximum === Infinity ? undefined : maximum);
    }
    case 'string':
      return sampleString(schema, name);
    case 'integer':
      return sampleNumber(schema, true);
    case 'number':
      return sampleNumber(schema, false);
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return 'lorem ipsum';
  }
}

/** A value valid against `schema` (a JSON schema object); null for a schema it cannot read. */
export function schemaInstance(schema: unknown): unknown {
  return isObject(schema) ? instanceOf(schema, schema, '', 0) : null;
}
