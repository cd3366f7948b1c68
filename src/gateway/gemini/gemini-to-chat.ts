import { InvalidRequestError } from '../../shared/errors.js';
import type { ChatCompletionRequest, ChatMessage, ContentPart, FunctionTool } from '../../shared/openai-types.js';
import type { GeminiApiContent, GeminiApiRequest } from './gemini-api-types.js';

/** The request fields this translation reads; others are named as dropped. */
const TRANSLATED_FIELDS = new Set([
  'contents',
  'systemInstruction',
  'tools',
  'toolConfig',
  'generationConfig',
  'model',
  'provider',
  'models',
  // usage: {include: true} asks for the cost in the answer (read by the engine).
  'usage',
]);
const TRANSLATED_CONFIG = new Set([
  'temperature',
  'topP',
  'maxOutputTokens',
  'stopSequences',
  'candidateCount',
  'seed',
  'presencePenalty',
  'frequencyPenalty',
  'responseMimeType',
  'responseSchema',
  'responseJsonSchema',
  'thinkingConfig',
]);

export interface GeminiTranslation {
  chat: ChatCompletionRequest;
  dropped: string[];
  optionalSearchParam?: string;
}

type Drop = (name: string, error: () => InvalidRequestError) => void;

/**
 * A Gemini generateContent request → one chat request. Pure. Calls without ids get `call_<n>` and
 * their responses are matched by name in order; thought parts of earlier turns are dropped (their
 * signatures are Gemini's own). What chat cannot express is dropped and named, or (strict) refused.
 */
export function geminiToChat(
  model: string,
  request: GeminiApiRequest,
  options: { stream: boolean; strict?: boolean },
): GeminiTranslation {
  const dropped: string[] = [];
  const drop: Drop = (name, error) => {
    if (options.strict) throw error();
    if (!dropped.includes(name)) dropped.push(name);
  };
  for (const field of Object.keys(request)) if (!TRANSLATED_FIELDS.has(field)) drop(field, () => unsupported(field));
  const config = request.generationConfig ?? {};
  for (const field of Object.keys(config))
    if (!TRANSLATED_CONFIG.has(field))
      drop(`generationConfig.${field}`, () => unsupported(`generationConfig.${field}`));

  const messages: ChatMessage[] = [];
  const system = textOf(request.systemInstruction);
  if (system !== '') messages.push({ role: 'system', content: system });
  const pending = new Map<string, string[]>();
  let callCount = 0;
  (request.contents ?? []).forEach((content, index) =>
    messages.push(...convertContent(content, `contents[${index}]`, drop, pending, () => `call_${callCount++}`)),
  );
  if (messages.every((message) => message.role === 'system'))
    throw new InvalidRequestError('contents must hold at least one turn.', 'contents', 'missing_required_parameter');

  const chat: ChatCompletionRequest = { model, messages };
  let optionalSearchParam: string | undefined;
  const tools: FunctionTool[] = [];
  (request.tools ?? []).forEach((tool, index) => {
    for (const [kind, value] of Object.entries(tool)) {
      if (kind === 'functionDeclarations' && Array.isArray(value)) {
        for (const declaration of tool.functionDeclarations ?? [])
          tools.push({
            type: 'function',
            function: {
              name: declaration.name,
              ...(declaration.description ? { description: declaration.description } : {}),
              parameters:
                declaration.parametersJsonSchema ?? lowerCaseTypes(declaration.parameters ?? { type: 'object' }),
            },
          });
      } else if ((kind === 'googleSearch' || kind === 'googleSearchRetrieval') && !options.strict) {
        chat.enable_search = true;
        optionalSearchParam ??= `tools[${index}].${kind}`;
      } else drop(`tools[${index}].${kind}`, () => unsupported(`tools[${index}].${kind}`));
    }
  });
  if (tools.length > 0) {
    chat.tools = tools;
    const mode = request.toolConfig?.functionCallingConfig?.mode;
    const allowed = request.toolConfig?.functionCallingConfig?.allowedFunctionNames;
    if (mode === 'NONE') chat.tool_choice = 'none';
    else if (mode === 'ANY' && allowed?.length === 1)
      chat.tool_choice = { type: 'function', function: { name: allowed[0] } };
    else if (mode === 'ANY') chat.tool_choice = 'required';
  }
  if (typeof config.temperature === 'number') chat.temperature = config.temperature;
  if (typeof config.topP === 'number') chat.top_p = config.topP;
  if (typeof config.maxOutputTokens === 'number') chat.max_tokens = config.maxOutputTokens;
  if (config.stopSequences?.length) chat.stop = config.stopSequences;
  if (typeof config.candidateCount === 'number') chat.n = config.candidateCount;
  if (typeof config.seed === 'number') chat.seed = config.seed;
  if (typeof config.presencePenalty === 'number') chat.presence_penalty = config.presencePenalty;
  if (typeof config.frequencyPenalty === 'number') chat.frequency_penalty = config.frequencyPenalty;
  if (config.responseMimeType === 'application/json') {
    const schema = config.responseJsonSchema ?? (config.responseSchema ? lowerCaseTypes(config.responseSchema) : null);
    chat.response_format = schema
      ? { type: 'json_schema', json_schema: { name: 'response', schema } }
      : { type: 'json_object' };
  }
  const effort = effortOf(config.thinkingConfig);
  if (effort) chat.reasoning_effort = effort;
  for (const field of ['provider', 'models'] as const) if (request[field] !== undefined) chat[field] = request[field];
  if (options.stream) {
    chat.stream = true;
    chat.stream_options = { include_usage: true };
  }
  return { chat, dropped, ...(optionalSearchParam ? { optionalSearchParam } : {}) };
}

/** thinkingLevel as it is; a thinkingBudget as the effort of that many tokens; 0 and -1 (dynamic) as the provider's default. */
function effortOf(thinking: { thinkingBudget?: number; thinkingLevel?: string } | undefined): string | undefined {
  if (typeof thinking?.thinkingLevel === 'string') return thinking.thinkingLevel.toLowerCase();
  const budget = thinking?.thinkingBudget;
  if (typeof budget !== 'number' || budget <= 0) return undefined;
  return budget <= 2048 ? 'low' : budget <= 8192 ? 'medium' : 'high';
}

function convertContent(
  content: GeminiApiContent,
  where: string,
  drop: Drop,
  pending: Map<string, string[]>,
  nextId: () => string,
): ChatMessage[] {
  const parts = content.parts ?? [];
  if (content.role === 'model') {
    let text = '';
    const calls: NonNullable<ChatMessage['tool_calls']> = [];
    for (const part of parts) {
      if (part.thought) continue;
      if (typeof part.text === 'string') text += part.text;
      else if (part.functionCall) {
        const name = part.functionCall.name ?? '';
        const id = part.functionCall.id ?? nextId();
        pending.set(name, [...(pending.get(name) ?? []), id]);
        calls.push({
          id,
          type: 'function',
          function: { name, arguments: JSON.stringify(part.functionCall.args ?? {}) },
        });
      }
    }
    return [
      {
        role: 'assistant',
        content: text === '' && calls.length > 0 ? null : text,
        ...(calls.length ? { tool_calls: calls } : {}),
      },
    ];
  }
  const out: ChatMessage[] = [];
  const userParts: ContentPart[] = [];
  parts.forEach((part, index) => {
    const at = `${where}.parts[${index}]`;
    if (part.functionResponse) {
      const name = part.functionResponse.name ?? '';
      const id = part.functionResponse.id ?? pending.get(name)?.shift() ?? nextId();
      out.push({ role: 'tool', tool_call_id: id, content: JSON.stringify(part.functionResponse.response ?? {}) });
    } else if (typeof part.text === 'string') userParts.push({ type: 'text', text: part.text });
    else if (part.inlineData?.data) {
      const url = `data:${part.inlineData.mimeType ?? 'application/octet-stream'};base64,${part.inlineData.data}`;
      userParts.push(
        part.inlineData.mimeType?.startsWith('image/')
          ? { type: 'image_url', image_url: { url } }
          : { type: 'file', file: { file_data: url } },
      );
    } else {
      const kind = Object.keys(part).find((key) => key !== 'thoughtSignature') ?? 'part';
      drop(`parts:${kind}`, () => unsupported(`${at}.${kind}`));
    }
  });
  if (userParts.length > 0)
    out.push({
      role: 'user',
      content: userParts.every((part) => part.type === 'text')
        ? userParts.map((part) => (part as { text: string }).text).join('')
        : userParts,
    });
  return out;
}

function textOf(content: GeminiApiContent | string | undefined): string {
  if (typeof content === 'string') return content;
  return (content?.parts ?? []).map((part) => part.text ?? '').join('\n');
}

/** Gemini's OpenAPI schema (`type: "OBJECT"`) → JSON Schema (`type: "object"`). */
function lowerCaseTypes(schema: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'type' && typeof value === 'string') out.type = value.toLowerCase();
    else if (Array.isArray(value))
      out[key] = value.map((item) =>
        item && typeof item === 'object' ? lowerCaseTypes(item as Record<string, unknown>) : item,
      );
    else if (value && typeof value === 'object') out[key] = lowerCaseTypes(value as Record<string, unknown>);
    else out[key] = value;
  }
  return out;
}

function unsupported(param: string): InvalidRequestError {
  return new InvalidRequestError(`'${param}' cannot be expressed on this model's API.`, param, 'unsupported_parameter');
}
