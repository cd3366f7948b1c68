import { UpstreamError } from '../../shared/errors.js';
import type { ChatCompletion, ToolCall } from '../../shared/openai-types.js';
import type { TranslationContext } from '../provider-adapter.js';
import type { BedrockConverseResponse } from './bedrock-types.js';
import { convertBedrockUsage } from './convert-bedrock-usage.js';
import { JSON_MODE_TOOL_NAME } from './convert-to-bedrock-request.js';
import { mapBedrockStopReason } from './map-bedrock-stop-reason.js';

/** A whole Converse answer → an OpenAI chat.completion with exact usage. */
export function parseBedrockResponse(body: Uint8Array, context: TranslationContext): ChatCompletion {
  let parsed: BedrockConverseResponse;
  try {
    parsed = JSON.parse(new TextDecoder().decode(body)) as BedrockConverseResponse;
  } catch {
    throw new UpstreamError(
      502,
      'upstream_bad_response',
      `${context.provider.name} answered with a body that is not JSON.`,
    );
  }
  const blocks = parsed?.output?.message?.content;
  if (!Array.isArray(blocks)) {
    throw new UpstreamError(
      502,
      'upstream_bad_response',
      `${context.provider.name} answered without output.message.content.`,
    );
  }
  let content = '';
  let reasoning = '';
  let jsonMode = false;
  const toolCalls: ToolCall[] = [];
  for (const block of blocks) {
    if ('text' in block && typeof block.text === 'string') content += block.text;
    else if ('reasoningContent' in block) reasoning += block.reasoningContent.reasoningText?.text ?? '';
    else if ('toolUse' in block) {
      if (block.toolUse.name === JSON_MODE_TOOL_NAME) {
        // The forced JSON tool's input is the answer itself.
        jsonMode = true;
        content += JSON.stringify(block.toolUse.input ?? {});
      } else {
        toolCalls.push({
          id: block.toolUse.toolUseId,
          type: 'function',
          function: { name: block.toolUse.name, arguments: JSON.stringify(block.toolUse.input ?? {}) },
        });
      }
    }
  }
  const message: ChatCompletion['choices'][number]['message'] = {
    role: 'assistant',
    content: content === '' && toolCalls.length > 0 ? null : content,
  };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  if (reasoning) message.reasoning = reasoning;
  const completion: ChatCompletion = {
    id: context.completionId,
    object: 'chat.completion',
    created: context.created,
    model: context.publicModel,
    choices: [{ index: 0, message, finish_reason: mapBedrockStopReason(parsed.stopReason, jsonMode), logprobs: null }],
  };
  if (parsed.usage) completion.usage = convertBedrockUsage(parsed.usage);
  return completion;
}
