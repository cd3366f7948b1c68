import { InvalidRequestError } from '../shared/errors.js';

/**
 * Chat `tools[]` entries the gateway cannot translate, refused before schema validation so the
 * client hears what is wrong ("custom tools are not supported") rather than which field of a
 * function tool is missing.
 */
export function refuseUnsupportedChatTools(body: unknown): void {
  const tools = (body as { tools?: unknown } | null)?.tools;
  if (!Array.isArray(tools)) return;
  tools.forEach((tool, index) => {
    const type = (tool as { type?: unknown } | null)?.type;
    if (type === 'custom') {
      throw new InvalidRequestError(
        `Invalid 'tools[${index}]': custom tools are not supported; use function tools ({"type": "function", "function": {…}}).`,
        `tools[${index}].type`,
        'unsupported_tool_type',
      );
    }
    if (typeof type === 'string' && type !== 'function') {
      throw new InvalidRequestError(
        `Invalid 'tools[${index}].type': '${type}' tools are not supported; use function tools.`,
        `tools[${index}].type`,
        'unsupported_tool_type',
      );
    }
  });
}
