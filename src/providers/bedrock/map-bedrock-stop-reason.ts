import type { FinishReason } from '../../shared/openai-types.js';

const STOP_REASONS: Record<string, FinishReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  content_filtered: 'content_filter',
  guardrail_intervened: 'content_filter',
};

/**
 * Converse stopReason → OpenAI finish_reason. `jsonModeTool` is set when the gateway forced its
 * own tool to get JSON: that "tool use" is the answer, so it finishes as `stop`.
 */
export function mapBedrockStopReason(stopReason: string | undefined, jsonModeTool: boolean): FinishReason {
  if (stopReason === 'tool_use' && jsonModeTool) return 'stop';
  return (stopReason && STOP_REASONS[stopReason]) || 'stop';
}
