import { UpstreamError } from '../../shared/errors.js';
import type { ChatCompletion, ToolCall } from '../../shared/openai-types.js';
import type { TranslationContext } from '../provider-adapter.js';
import { decodeUtf8, parseUpstreamJson } from '../shared/parse-upstream-json.js';
import { upstreamChecker } from '../shared/upstream-schema.js';
import {
  AnthropicResponseSchema,
  AnthropicTextBlockSchema,
  AnthropicThinkingBlockSchema,
  AnthropicToolUseBlockSchema,
} from './anthropic-response-schema.js';
import { citationAnnotations, type UrlCitationAnnotation } from './anthropic-citations.js';
import { mapAnthropicStopReason } from './map-anthropic-stop-reason.js';
import { mapAnthropicUsage } from './map-anthropic-usage.js';

/**
 * A whole Anthropic message → an OpenAI chat.completion. Text blocks join into `content`,
 * thinking into `reasoning`, client tool_use blocks into `tool_calls`; the JSON-answer tool
 * (response_format) becomes the content; server tools (web search) and their results are the
 * provider's own work and are not the client's tool calls.
 */
export function parseAnthropicResponse(
  body: Uint8Array,
  context: TranslationContext,
  jsonToolName?: string,
): ChatCompletion {
  const json = parseUpstreamJson(decodeUtf8(body), context.provider.name, 'a response');
  if (!Array.isArray(json.content)) {
    throw new UpstreamError(502, 'upstream_bad_response', `${context.provider.name} answered without a content array.`);
  }
  const parsed = responseChecker.read(json, context.provider.name, 'a response');
  let content = '';
  let reasoning = '';
  let answeredWithJsonTool = false;
  const toolCalls: ToolCall[] = [];
  const annotations: UrlCitationAnnotation[] = [];
  for (const raw of parsed.content) {
    const block = readBlock(raw, context.provider.name);
    if (!block) continue;
    if (block.type === 'text') {
      annotations.push(...citationAnnotations(block.citations, content.length, block.text.length));
      content += block.text;
    } else if (block.type === 'thinking') {
      reasoning += block.thinking;
    } else if (block.type === 'tool_use' && jsonToolName && block.name === jsonToolName) {
      answeredWithJsonTool = true;
      content += JSON.stringify(block.input ?? {});
    } else if (block.type === 'tool_use') {
      toolCalls.push({
        id: block.id,
        type: 'function',
        function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) },
      });
    }
  }
  const message: ChatCompletion['choices'][number]['message'] = {
    role: 'assistant',
    content: content || (toolCalls.length > 0 ? null : ''),
    refusal: null,
  };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  if (reasoning) message.reasoning = reasoning;
  if (annotations.length > 0) message.annotations = annotations;
  return {
    id: context.completionId,
    object: 'chat.completion',
    created: context.created,
    model: context.publicModel,
    choices: [
      {
        index: 0,
        message,
        finish_reason: mapAnthropicStopReason(parsed.stop_reason, answeredWithJsonTool && toolCalls.length === 0),
        logprobs: null,
      },
    ],
    usage: mapAnthropicUsage(parsed.usage ?? {}),
  };
}

const responseChecker = upstreamChecker(AnthropicResponseSchema);
const blockCheckers = {
  text: upstreamChecker(AnthropicTextBlockSchema),
  thinking: upstreamChecker(AnthropicThinkingBlockSchema),
  tool_use: upstreamChecker(AnthropicToolUseBlockSchema),
};

/** A block the answer is made of, checked by its type's schema; null for the types the parser skips. */
function readBlock(block: { type: string }, providerName: string) {
  const what = `a ${block.type} block`;
  if (block.type === 'text') return blockCheckers.text.read(block, providerName, what);
  if (block.type === 'thinking') return blockCheckers.thinking.read(block, providerName, what);
  if (block.type === 'tool_use') return blockCheckers.tool_use.read(block, providerName, what);
  return null;
}
