import type { Static } from '@sinclair/typebox';
import type {
  AudioPartSchema,
  ChatCompletionRequestSchema,
  FilePartSchema,
  FunctionToolSchema,
  ImagePartSchema,
  MessageSchema,
  TextPartSchema,
  ToolCallSchema,
  ToolChoiceSchema,
} from './chat-request-schema.js';

/**
 * The OpenAI chat-completions wire format: what clients send us and what we answer.
 * Every provider adapter translates to and from these shapes.
 */
/** Extra fields a client may send: kept and passed to OpenAI-compatible upstreams. */
type Open<T> = T & { [extra: string]: unknown };

type TextPart = Static<typeof TextPartSchema>;
type ImagePart = Static<typeof ImagePartSchema>;
type AudioPart = Static<typeof AudioPartSchema>;
type FilePart = Static<typeof FilePartSchema>;
export type ContentPart = TextPart | ImagePart | AudioPart | FilePart;
export type ToolCall = Static<typeof ToolCallSchema>;
/** A client may send more (`reasoning` on assistant turns from DeepSeek or Anthropic thinking): unknown, so read with a type check. */
export type ChatMessage = Open<Static<typeof MessageSchema>>;
export type FunctionTool = Static<typeof FunctionToolSchema>;
export type ToolChoice = Static<typeof ToolChoiceSchema>;

/** A validated client request: the type of its schema (shared/chat-request-schema.ts), declared once. */
export type ChatCompletionRequest = Open<Omit<Static<typeof ChatCompletionRequestSchema>, 'messages'>> & {
  messages: ChatMessage[];
};

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

interface ChunkToolCallDelta {
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
