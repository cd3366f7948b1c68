import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { schemaInstance } from './mock-schema-instance.js';

const ajv = new Ajv2020({ strict: false });
addFormats.default(ajv);

function expectValid(schema: Record<string, unknown>): unknown {
  const value = schemaInstance(schema);
  const validate = ajv.compile(schema);
  expect(validate(value), JSON.stringify(validate.errors)).toBe(true);
  return value;
}

describe('schemaInstance: a value valid against the schema', () => {
  it.each([
    [
      'a flat object with every type',
      {
        type: 'object',
        properties: {
          name: { type: 'string' },
          age: { type: 'integer', minimum: 50, maximum: 60 },
          score: { type: 'number', exclusiveMaximum: 1 },
          active: { type: 'boolean' },
          nothing: { type: 'null' },
        },
        required: ['name', 'age', 'score', 'active', 'nothing'],
        additionalProperties: false,
      },
    ],
    [
      'enums, consts and nullable unions',
      {
        type: 'object',
        properties: {
          unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
          kind: { const: 'weather' },
          note: { anyOf: [{ type: 'string' }, { type: 'null' }] },
          maybe: { type: ['null', 'integer'] },
        },
        required: ['unit', 'kind', 'note', 'maybe'],
      },
    ],
    [
      'arrays with bounds and tuples',
      {
        type: 'object',
        properties: {
          tags: { type: 'array', items: { type: 'string', minLength: 30 }, minItems: 3, maxItems: 4 },
          pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }], items: false },
          short: { type: 'string', maxLength: 3 },
        },
        required: ['tags', 'pair', 'short'],
      },
    ],
    [
      'formats',
      {
        type: 'object',
        properties: {
          when: { type: 'string', format: 'date-time' },
          mail: { type: 'string', format: 'email' },
          id: { type: 'string', format: 'uuid' },
          site: { type: 'string', format: 'uri' },
          day: { type: 'string', format: 'date' },
        },
        required: ['when', 'mail', 'id', 'site', 'day'],
      },
    ],
    [
      'references into $defs, recursion, allOf',
      {
        $defs: {
          step: {
            type: 'object',
            properties: { explanation: { type: 'string' }, output: { type: 'string' } },
            required: ['explanation', 'output'],
          },
          node: {
            type: 'object',
            properties: {
              value: { type: 'integer', multipleOf: 5 },
              children: { type: 'array', items: { $ref: '#/$defs/node' } },
            },
            required: ['value'],
          },
        },
        type: 'object',
        properties: {
          steps: { type: 'array', items: { $ref: '#/$defs/step' } },
          tree: { $ref: '#/$defs/node' },
          both: {
            allOf: [
              { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
              { properties: { b: { type: 'integer' } }, required: ['b'] },
            ],
          },
        },
        required: ['steps', 'tree', 'both'],
      },
    ],
    [
      'a oneOf of objects',
      {
        type: 'object',
        properties: {
          shape: {
            oneOf: [
              { type: 'object', properties: { radius: { type: 'number', minimum: 100 } }, required: ['radius'] },
              { type: 'string' },
            ],
          },
        },
        required: ['shape'],
      },
    ],
  ])('%s', (_name, schema) => {
    expectValid(schema as Record<string, unknown>);
  });

  it('is deterministic', () => {
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    expect(schemaInstance(schema)).toEqual(schemaInstance(schema));
    expect(schemaInstance(schema)).toEqual({ city: 'city lorem ipsum' });
  });

  it('answers null for something that is not a schema, and stops at deep recursion', () => {
    expect(schemaInstance('nope')).toBeNull();
    const looping = { $ref: '#' };
    expect(() => schemaInstance(looping)).not.toThrow();
  });
});
