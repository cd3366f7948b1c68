/** The Anthropic Messages API shapes the gateway reads and writes (loose where clients vary). */

export interface AnthropicBlock {
  type: string;
  text?: string;
  source?: { type: 'base64' | 'url' | string; media_type?: string; data?: string; url?: string };
  id?: string;
  name?: string;
  input?: unknown;
  tool_use_id?: string;
  content?: string | AnthropicBlock[];
  is_error?: boolean;
  thinking?: string;
  [key: string]: unknown;
}

export interface MessagesRequest {
  model: string;
  max_tokens: number;
  system?: string | AnthropicBlock[];
  /** `system` entries are sent by Claude Code between turns (not in Anthropic's published schema). */
  messages: Array<{ role: 'user' | 'assistant' | 'system'; content: string | AnthropicBlock[] }>;
  tools?: Array<{ name: string; description?: string; input_schema?: Record<string, unknown>; type?: string }>;
  tool_choice?: { type: 'auto' | 'any' | 'tool' | 'none'; name?: string; disable_parallel_tool_use?: boolean };
  stop_sequences?: string[];
  temperature?: number;
  top_p?: number;
  top_k?: number;
  thinking?: { type: 'enabled' | 'disabled' | 'adaptive' | (string & {}); budget_tokens?: number };
  output_config?: {
    effort?: string;
    format?: { type: string; schema?: Record<string, unknown> };
    [key: string]: unknown;
  };
  metadata?: { user_id?: string };
  stream?: boolean;
  [extra: string]: unknown;
}

export type MessageContentBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown };

export interface MessageUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
}

export interface MessageObject {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: MessageContentBlock[];
  stop_reason: 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'refusal' | null;
  stop_sequence: string | null;
  usage: MessageUsage;
}
