import { InvalidRequestError } from '../../shared/errors.js';

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * The shape the gateway itself reads from a generateContent request (the turns it meters and
 * translates, the tools and settings it maps), checked before anything else so bad input is a
 * 400 naming the field on every endpoint, native or not; everything else passes as it is.
 */
export function checkGeminiRequest(body: unknown): void {
  if (!isObject(body)) throw new InvalidRequestError('The request body must be a JSON object.', null);
  const contents = body.contents;
  if (!Array.isArray(contents))
    throw new InvalidRequestError('contents must be an array of Content objects.', 'contents');
  contents.forEach((content, index) => {
    if (!isObject(content))
      throw new InvalidRequestError(`contents[${index}] must be an object.`, `contents[${index}]`);
    if (content.role !== undefined && typeof content.role !== 'string')
      throw new InvalidRequestError(`contents[${index}].role must be a string.`, `contents[${index}].role`);
    checkParts(content.parts, `contents[${index}].parts`);
  });
  const system = body.systemInstruction;
  if (system !== undefined && typeof system !== 'string') {
    if (!isObject(system))
      throw new InvalidRequestError('systemInstruction must be a Content object.', 'systemInstruction');
    checkParts(system.parts, 'systemInstruction.parts');
  }
  if (body.tools !== undefined && (!Array.isArray(body.tools) || !body.tools.every(isObject)))
    throw new InvalidRequestError('tools must be an array of Tool objects.', 'tools');
  for (const field of ['generationConfig', 'toolConfig'] as const)
    if (body[field] !== undefined && !isObject(body[field]))
      throw new InvalidRequestError(`${field} must be an object.`, field);
}

function checkParts(parts: unknown, param: string): void {
  if (parts === undefined) return;
  if (!Array.isArray(parts) || !parts.every(isObject))
    throw new InvalidRequestError(`${param} must be an array of Part objects.`, param);
}
