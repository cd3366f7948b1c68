import type { FinishReason } from '../../shared/openai-types.js';

/**
 * Anthropic stop_reason → OpenAI finish_reason. A tool call that carries the JSON answer
 * (response_format) is a normal stop for the client, not a tool call.
 */
export function mapAnthropicStopReason(
  stopReason: string | null | undefined,
  answeredWithJsonTool = false,
): FinishReason {
  switch (stopReason) {
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return answeredWithJsonTool ? 'stop' : 'tool_calls';
    case 'refusal':
      return 'content_filter';
    case 'end_turn':
    case 'stop_sequence':
    case 'pause_turn':
    default:
      return 'stop';
  }
}
