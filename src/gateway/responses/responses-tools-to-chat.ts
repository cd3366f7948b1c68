import { InvalidRequestError } from '../../shared/errors.js';
import type { FunctionTool, ToolChoice } from '../../shared/openai-types.js';
import type { ResponsesRequest, ResponsesTool } from './responses-types.js';
import { flatToolName, type NamespaceMap } from './namespace-tools.js';

/** Built-in Responses tools the gateway maps onto a chat feature. */
const SEARCH_TOOLS = new Set([
  'web_search',
  'web_search_preview',
  'web_search_2025_08_26',
  'web_search_preview_2025_03_11',
]);

/** Records a parameter chat cannot express: dropped and named, or (strict) the error thrown. */
export type Drop = (name: string, error: () => InvalidRequestError) => void;

export interface ToolsTranslation {
  tools: FunctionTool[];
  /** The hosted search tool's parameter name, when the client offered one. */
  search: string | null;
  namespaces: NamespaceMap;
}

/**
 * Responses tools → chat function tools. Function tools map one to one; `namespace` tools are
 * flattened (namespace-tools.ts); hosted `web_search` asks for the model's native search; other
 * hosted tools (code_interpreter, file_search, …) and freeform `custom` tools are dropped and named.
 */
export function convertTools(tools: ResponsesTool[], drop: Drop): ToolsTranslation {
  const converted: FunctionTool[] = [];
  const namespaces: NamespaceMap = new Map();
  let search: string | null = null;
  const addFunction = (tool: ResponsesTool, name: string) =>
    converted.push({
      type: 'function',
      function: {
        name,
        ...(tool.description ? { description: tool.description } : {}),
        ...(tool.parameters ? { parameters: tool.parameters } : {}),
        ...(typeof tool.strict === 'boolean' ? { strict: tool.strict } : {}),
      },
    });
  tools.forEach((tool, index) => {
    const where = `tools[${index}]`;
    if (tool.type === 'function') {
      if (!tool.name) throw missing(`${where}.name`);
      addFunction(tool, tool.name);
    } else if (tool.type === 'namespace' && typeof tool.name === 'string' && Array.isArray(tool.tools)) {
      const namespace = tool.name;
      (tool.tools as ResponsesTool[]).forEach((child, childIndex) => {
        const at = `${where}.tools[${childIndex}]`;
        if (child.type !== 'function') return drop(`${at}:${child.type}`, () => unsupportedTool(at, child.type));
        if (!child.name) throw missing(`${at}.name`);
        const flat = flatToolName(namespace, child.name);
        namespaces.set(flat, { namespace, name: child.name });
        addFunction(child, flat);
      });
    } else if (SEARCH_TOOLS.has(tool.type)) {
      search ??= `${where}:${tool.type}`;
    } else {
      drop(`${where}:${tool.type}`, () => unsupportedTool(where, tool.type));
    }
  });
  return { tools: converted, search, namespaces };
}

export function convertToolChoice(choice: ResponsesRequest['tool_choice'], hasTools: boolean): ToolChoice | undefined {
  if (choice === undefined || choice === null) return undefined;
  if (typeof choice === 'string') {
    if (!hasTools) return undefined;
    if (choice === 'auto' || choice === 'none' || choice === 'required') return choice;
    throw new InvalidRequestError(`Invalid value for 'tool_choice': '${choice}'.`, 'tool_choice', 'invalid_value');
  }
  if (choice.type === 'function' && choice.name) return { type: 'function', function: { name: choice.name } };
  if (SEARCH_TOOLS.has(choice.type)) return hasTools ? 'auto' : undefined;
  throw new InvalidRequestError(
    `Invalid value for 'tool_choice': '${choice.type}' cannot be forced; name a function tool.`,
    'tool_choice',
    'invalid_value',
  );
}

function missing(param: string): InvalidRequestError {
  return new InvalidRequestError(`Missing required parameter: '${param}'.`, param, 'missing_required_parameter');
}

function unsupportedTool(where: string, type: string): InvalidRequestError {
  return new InvalidRequestError(
    `Unsupported tool '${where}': built-in tool '${type}' is not supported by the gateway; use function tools (web_search maps to the model's native search).`,
    `${where}.type`,
    'unsupported_tool_type',
  );
}
