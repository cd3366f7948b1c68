import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';

/**
 * Validates answers against OpenAI's published OpenAPI schemas (a trimmed copy in
 * test/fixtures/openai-openapi/schemas.json; its `source` field says where it comes from).
 */
const document = JSON.parse(
  readFileSync(new URL('../fixtures/openai-openapi/schemas.json', import.meta.url), 'utf8'),
) as { components: { schemas: Record<string, unknown> } };

const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });
ajv.addSchema({ $id: 'openai', components: document.components });
const compiled = new Map<string, ValidateFunction>();

/** The Ajv errors of `value` against components.schemas[name], or null when it conforms. */
export function openApiErrors(name: string, value: unknown): string | null {
  let validate = compiled.get(name);
  if (!validate) {
    validate = ajv.compile({ $ref: `openai#/components/schemas/${name}` });
    compiled.set(name, validate);
  }
  if (validate(value)) return null;
  return ajv.errorsText(validate.errors, { separator: '\n' });
}
