import type { Static } from '@sinclair/typebox';
import type { AnthropicCitationSchema, AnthropicUsageSchema } from './anthropic-response-schema.js';

/** The parts of the Anthropic Messages API wire format the gateway reads and writes. */
export type AnthropicContentBlock =
  | { type: 'text'; text: string; citations?: AnthropicCitation[] | null }
  | { type: 'image'; source: AnthropicSource }
  | { type: 'document'; source: AnthropicSource }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | {
      type: 'tool_result';
      tool_use_id: string;
      content: string | Array<{ type: 'text'; text: string }>;
      is_error?: boolean;
    }
  | { type: 'thinking'; thinking: string; signature?: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'server_tool_use'; id: string; name: string; input: unknown }
  | { type: 'web_search_tool_result'; tool_use_id: string; content: unknown };

type AnthropicSource = { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string };

export type AnthropicCitation = Static<typeof AnthropicCitationSchema>;

export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: AnthropicContentBlock[];
}

export type AnthropicTool =
  | { name: string; description?: string; input_schema: Record<string, unknown> }
  | { type: 'web_search_20250305'; name: 'web_search'; max_uses?: number };

export type AnthropicToolChoice =
  | { type: 'auto' | 'any'; disable_parallel_tool_use?: boolean }
  | { type: 'tool'; name: string; disable_parallel_tool_use?: boolean }
  | { type: 'none' };

export interface AnthropicRequest {
  model: string;
  messages: AnthropicMessage[];
  max_tokens: number;
  system?: Array<{ type: 'text'; text: string }>;
  temperature?: number;
  top_p?: number;
  top_k?: number;
  stop_sequences?: string[];
  stream?: boolean;
  tools?: AnthropicTool[];
  tool_choice?: AnthropicToolChoice;
  thinking?: { type: 'enabled'; budget_tokens: number } | { type: 'disabled' };
  metadata?: { user_id: string };
}

/** Declared once, as the schema the answers are checked against (anthropic-response-schema.ts). */
export type AnthropicUsage = Static<typeof AnthropicUsageSchema>;
