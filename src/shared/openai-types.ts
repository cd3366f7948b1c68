/**
 * The OpenAI chat-completions wire format: what clients send us and what we answer.
 * Every provider adapter translates to and from these shapes.
 */
export type Role = 'system' | 'developer' | 'user' | 'assistant' | 'tool';

export interface TextPart {
  type: 'text';
  text: string;
}
export interface ImagePart {
  type: 'image_url';
  image_url: { url: string; detail?: 'auto' | 'low' | 'high' };
}
export interface AudioPart {
  type: 'input_audio';
  input_audio: { data: string; format: string };
}
export interface FilePart {
  type: 'file';
  file: { file_data?: string; file_id?: string; filename?: string };
}
export type ContentPart = TextPart | ImagePart | AudioPart | FilePart;

export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ChatMessage {
  role: Role;
  content?: string | ContentPart[] | null;
  name?: string;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  /** Reasoning text some providers return on assistant turns (DeepSeek, Anthropic thinking). */
  reasoning?: string;
}

export interface FunctionTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean };
}

export type ToolChoice = 'none' | 'auto' | 'required' | { type: 'function'; function: { name: string } };

export interface ResponseFormat {
  type: 'text' | 'json_object' | 'json_schema';
  json_schema?: { name: string; description?: string; schema?: Record<string, unknown>; strict?: boolean };
}

/** A validated client request. Unknown extra fields are kept and passed to OpenAI-compatible upstreams. */
export interface ChatCompletionRequest {
  model: string;
  messages: ChatMessage[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  temperature?: number;
  top_p?: number;
  max_tokens?: number;
  max_completion_tokens?: number;
  frequency_penalty?: number;
  presence_penalty?: number;
  n?: number;
  stop?: string | string[];
  seed?: number;
  user?: string;
  logprobs?: boolean;
  top_logprobs?: number;
  tools?: FunctionTool[];
  tool_choice?: ToolChoice;
  parallel_tool_calls?: boolean;
  response_format?: ResponseFormat;
  enable_search?: boolean;
  [extra: string]: unknown;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens?: number; cache_write_tokens?: number; [key: string]: unknown };
  completion_tokens_details?: { reasoning_tokens?: number; [key: string]: unknown };
  [key: string]: unknown;
}

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'function_call' | (string & {});

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: Array<{
    index: number;
    message: {
      role: 'assistant';
      content: string | null;
      tool_calls?: ToolCall[];
      refusal?: string | null;
      reasoning?: string;
      [key: string]: unknown;
    };
    finish_reason: FinishReason | null;
    logprobs?: unknown;
  }>;
  usage?: Usage;
  system_fingerprint?: string | null;
  [key: string]: unknown;
}

export interface ChunkToolCallDelta {
  index: number;
  id?: string;
  type?: 'function';
  function?: { name?: string; arguments?: string };
}

export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: Array<{
    index: number;
    delta: {
      role?: 'assistant';
      content?: string | null;
      tool_calls?: ChunkToolCallDelta[];
      refusal?: string | null;
      reasoning?: string;
      [key: string]: unknown;
    };
    finish_reason: FinishReason | null;
    logprobs?: unknown;
  }>;
  usage?: Usage | null;
  system_fingerprint?: string | null;
  [key: string]: unknown;
}
