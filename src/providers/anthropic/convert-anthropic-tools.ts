import type { ChatCompletionRequest } from '../../shared/openai-types.js';
import type { AnthropicTool, AnthropicToolChoice } from './anthropic-types.js';

export interface ConvertedAnthropicTools {
  tools?: AnthropicTool[];
  toolChoice?: AnthropicToolChoice;
  /** The tool we added to carry a JSON answer (response_format); its input is the answer. */
  jsonToolName?: string;
}

const JSON_TOOL_FALLBACK_NAME = 'json_response';

/**
 * Tools, tool_choice, response_format and enable_search in Anthropic terms. JSON mode has no
 * native switch on every Claude model, so it is a tool whose input schema is the wanted JSON:
 * forced when the client has no tools of its own, offered beside them when it has.
 */
export function convertAnthropicTools(
  request: ChatCompletionRequest,
  webSearchMaxUses?: number,
): ConvertedAnthropicTools {
  const tools: AnthropicTool[] = (request.tools ?? []).map((tool) => ({
    name: tool.function.name,
    ...(tool.function.description ? { description: tool.function.description } : {}),
    input_schema: tool.function.parameters ?? { type: 'object', properties: {} },
  }));
  let toolChoice = convertToolChoice(request);

  let jsonToolName: string | undefined;
  const format = request.response_format;
  if (format && (format.type === 'json_object' || format.type === 'json_schema')) {
    const taken = new Set(tools.map((tool) => tool.name));
    const wanted = format.type === 'json_schema' ? sanitizeToolName(format.json_schema?.name ?? '') : '';
    jsonToolName = wanted && !taken.has(wanted) ? wanted : JSON_TOOL_FALLBACK_NAME;
    while (taken.has(jsonToolName)) jsonToolName = `_${jsonToolName}`;
    tools.push({
      name: jsonToolName,
      description:
        format.json_schema?.description ?? 'Give the answer as JSON by calling this tool with it as the input.',
      input_schema:
        format.type === 'json_schema' && format.json_schema?.schema ? format.json_schema.schema : { type: 'object' },
    });
    if (!request.tools || request.tools.length === 0) toolChoice = { type: 'tool', name: jsonToolName };
  }

  if (request.enable_search) {
    tools.push({
      type: 'web_search_20250305',
      name: 'web_search',
      ...(webSearchMaxUses ? { max_uses: webSearchMaxUses } : {}),
    });
  }
  return { tools: tools.length > 0 ? tools : undefined, toolChoice, jsonToolName };
}

function convertToolChoice(request: ChatCompletionRequest): AnthropicToolChoice | undefined {
  const disableParallel = request.parallel_tool_calls === false ? { disable_parallel_tool_use: true } : {};
  const choice = request.tool_choice;
  if (choice === 'none') return { type: 'none' };
  if (choice === 'required') return { type: 'any', ...disableParallel };
  if (choice && typeof choice === 'object') return { type: 'tool', name: choice.function.name, ...disableParallel };
  if (choice === 'auto' || request.parallel_tool_calls === false)
    return request.tools?.length ? { type: 'auto', ...disableParallel } : undefined;
  return undefined;
}

function sanitizeToolName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
}
