/**
 * A JSON Schema (as OpenAI tools and response_format carry it) → the OpenAPI subset Gemini's
 * `parameters` and `responseSchema` accept. Keywords Gemini rejects are left out
 * (additionalProperties, $schema, strict, …), `type: [x, "null"]` becomes `nullable`, `const`
 * an enum, `oneOf` an anyOf, and local `$ref`s are inlined (recursion stops at a plain object).
 */
const KEPT_KEYWORDS = new Set([
  'type',
  'format',
  'title',
  'description',
  'nullable',
  'enum',
  'maxItems',
  'minItems',
  'properties',
  'required',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'pattern',
  'example',
  'anyOf',
  'propertyOrdering',
  'default',
  'items',
  'minimum',
  'maximum',
]);

const MAX_REF_DEPTH = 8;

type Schema = Record<string, unknown>;

export function convertJsonSchemaToGemini(schema: Schema): Schema {
  const definitions = {
    ...((schema.definitions as Schema | undefined) ?? {}),
    ...((schema.$defs as Schema | undefined) ?? {}),
  };
  return convert(schema, definitions, 0);
}

/** Gemini refuses an OBJECT with no properties as function parameters; such a function simply takes none. */
export function isEmptyObjectSchema(schema: Schema | undefined): boolean {
  if (!schema) return true;
  const properties = schema.properties as Schema | undefined;
  return schema.type === 'object' && (!properties || Object.keys(properties).length === 0);
}

function convert(schema: Schema, definitions: Schema, depth: number): Schema {
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.replace(/^#\/(\$defs|definitions)\//, '');
    const target = definitions[name] as Schema | undefined;
    if (!target || depth >= MAX_REF_DEPTH) return { type: 'object' };
    return convert({ ...target, ...withoutRef(schema) }, definitions, depth + 1);
  }
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'type' && Array.isArray(value)) {
      const types = value.filter((type) => type !== 'null');
      if (types.length !== value.length) out.nullable = true;
      if (types.length === 1) out.type = types[0];
      else if (types.length > 1) out.anyOf = types.map((type) => ({ type }));
    } else if (key === 'const') {
      out.enum = [value];
    } else if (key === 'oneOf' || key === 'anyOf') {
      const variants = (value as Schema[]).filter((variant) => variant.type !== 'null');
      if (variants.length !== (value as Schema[]).length) out.nullable = true;
      if (variants.length === 1) Object.assign(out, convert(variants[0], definitions, depth));
      else out.anyOf = variants.map((variant) => convert(variant, definitions, depth));
    } else if (key === 'properties' && value && typeof value === 'object') {
      out.properties = Object.fromEntries(
        Object.entries(value as Schema).map(([name, property]) => [
          name,
          convert(property as Schema, definitions, depth),
        ]),
      );
    } else if (key === 'items' && value && typeof value === 'object' && !Array.isArray(value)) {
      out.items = convert(value as Schema, definitions, depth);
    } else if (KEPT_KEYWORDS.has(key)) {
      out[key] = value;
    }
  }
  return out;
}

function withoutRef(schema: Schema): Schema {
  const { $ref: _ref, ...rest } = schema;
  return rest;
}
