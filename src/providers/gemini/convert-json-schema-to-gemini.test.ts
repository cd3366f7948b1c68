import { describe, expect, it } from 'vitest';
import { convertJsonSchemaToGemini, isEmptyObjectSchema } from './convert-json-schema-to-gemini.js';
import { applyPartialArgs, parseJsonPath } from './gemini-partial-args.js';
import { decodeGeminiToolCallId, encodeGeminiToolCallId } from './gemini-tool-call-id.js';

describe('convertJsonSchemaToGemini', () => {
  it.each([
    [
      'drops keywords Gemini refuses',
      {
        type: 'object',
        $schema: 'x',
        additionalProperties: false,
        properties: { a: { type: 'string', format: 'date-time' } },
      },
      { type: 'object', properties: { a: { type: 'string', format: 'date-time' } } },
    ],
    [
      'type with null → nullable',
      { type: ['integer', 'null'], minimum: 0 },
      { type: 'integer', nullable: true, minimum: 0 },
    ],
    ['const → enum', { type: 'string', const: 'yes' }, { type: 'string', enum: ['yes'] }],
    [
      'oneOf with null → nullable variant',
      { oneOf: [{ type: 'string' }, { type: 'null' }] },
      { type: 'string', nullable: true },
    ],
    [
      'anyOf kept',
      { anyOf: [{ type: 'string' }, { type: 'number' }] },
      { anyOf: [{ type: 'string' }, { type: 'number' }] },
    ],
    [
      'local $refs inlined',
      {
        type: 'object',
        properties: { point: { $ref: '#/$defs/Point' } },
        $defs: { Point: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] } },
      },
      {
        type: 'object',
        properties: { point: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] } },
      },
    ],
    [
      'recursive $ref stops at a plain object',
      {
        $ref: '#/definitions/Node',
        definitions: { Node: { type: 'object', properties: { next: { $ref: '#/definitions/Node' } } } },
      },
      expect.objectContaining({ type: 'object' }),
    ],
  ])('%s', (_name, schema, expected) => {
    expect(convertJsonSchemaToGemini(schema as Record<string, unknown>)).toEqual(expected);
  });

  it.each([
    [undefined, true],
    [{ type: 'object', properties: {} }, true],
    [{ type: 'object' }, true],
    [{ type: 'object', properties: { a: { type: 'string' } } }, false],
  ])('isEmptyObjectSchema(%j) is %s', (schema, expected) => {
    expect(isEmptyObjectSchema(schema as Record<string, unknown> | undefined)).toBe(expected);
  });
});

describe('Vertex partialArgs', () => {
  it.each([
    ['$.location', ['location']],
    ['$.a.b[2].c', ['a', 'b', 2, 'c']],
    ["$['odd key']", ['odd key']],
  ])('parseJsonPath(%s)', (path, expected) => {
    expect(parseJsonPath(path)).toEqual(expected);
  });

  it('rebuilds arguments from fragments, appending strings for one path', () => {
    const args: Record<string, unknown> = {};
    applyPartialArgs(args, [{ jsonPath: '$.city', stringValue: 'San ' }]);
    applyPartialArgs(args, [
      { jsonPath: '$.city', stringValue: 'Francisco' },
      { jsonPath: '$.days', numberValue: 3 },
    ]);
    applyPartialArgs(args, [
      { jsonPath: '$.units.metric', boolValue: true },
      { jsonPath: '$.tags[0]', stringValue: 'a' },
      { jsonPath: '$.note', nullValue: null },
    ]);
    expect(args).toEqual({ city: 'San Francisco', days: 3, units: { metric: true }, tags: ['a'], note: null });
  });
});

describe('Gemini tool call ids', () => {
  it.each([
    ['call_1', undefined],
    ['call_2', 'EskgCsYgAb4+9vtF/7499YQ='],
    ['call_3', 'abc'],
  ])('%s with signature %s round-trips', (id, signature) => {
    const encoded = encodeGeminiToolCallId(id, signature);
    expect(encoded).toMatch(/^[A-Za-z0-9_.-]+$/);
    const decoded = decodeGeminiToolCallId(encoded);
    expect(decoded.id).toBe(id);
    if (signature)
      expect(Buffer.from(decoded.thoughtSignature ?? '', 'base64')).toEqual(Buffer.from(signature, 'base64'));
    else expect(decoded.thoughtSignature).toBeUndefined();
  });
});
