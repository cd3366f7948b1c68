/** The OpenAI Responses API shapes the gateway reads and writes (loose where clients vary). */

export interface ResponsesContentPart {
  type: string;
  text?: string;
  image_url?: string | null;
  file_id?: string | null;
  detail?: 'auto' | 'low' | 'high';
  file_data?: string;
  filename?: string;
}

export interface ResponsesInputItem {
  type?: string;
  role?: 'user' | 'assistant' | 'system' | 'developer';
  content?: string | ResponsesContentPart[];
  // function_call
  call_id?: string;
  name?: string;
  arguments?: string;
  id?: string;
  // function_call_output
  output?: string | ResponsesContentPart[];
  [key: string]: unknown;
}

export interface ResponsesTool {
  type: string;
  name?: string;
  description?: string | null;
  parameters?: Record<string, unknown> | null;
  strict?: boolean | null;
  [key: string]: unknown;
}

export interface ResponsesRequest {
  model: string;
  input?: string | ResponsesInputItem[];
  instructions?: string | null;
  tools?: ResponsesTool[];
  tool_choice?: string | { type: string; name?: string };
  text?: {
    format?: {
      type: 'text' | 'json_object' | 'json_schema';
      name?: string;
      schema?: Record<string, unknown>;
      strict?: boolean | null;
      description?: string;
    };
    verbosity?: string;
  };
  max_output_tokens?: number | null;
  temperature?: number | null;
  top_p?: number | null;
  reasoning?: { effort?: string | null; summary?: string | null } | null;
  metadata?: Record<string, string> | null;
  store?: boolean | null;
  previous_response_id?: string | null;
  stream?: boolean | null;
  parallel_tool_calls?: boolean | null;
  user?: string;
  [extra: string]: unknown;
}

interface OutputTextPart {
  type: 'output_text';
  text: string;
  annotations: unknown[];
  logprobs: unknown[];
}

export type ResponseOutputItem =
  | {
      type: 'message';
      id: string;
      status: 'in_progress' | 'completed' | 'incomplete';
      role: 'assistant';
      content: OutputTextPart[];
    }
  | {
      type: 'function_call';
      id: string;
      call_id: string;
      name: string;
      /** The namespace of a `namespace` tool's function (namespace-tools.ts). */
      namespace?: string;
      arguments: string;
      status: 'in_progress' | 'completed' | 'incomplete';
    }
  | {
      type: 'reasoning';
      id: string;
      summary: Array<{ type: 'summary_text'; text: string }>;
      content?: Array<{ type: 'reasoning_text'; text: string }>;
      status?: string;
    };

export interface ResponseUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number; cache_write_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

export interface ResponseObject {
  id: string;
  object: 'response';
  created_at: number;
  completed_at: number | null;
  status: 'completed' | 'incomplete' | 'in_progress' | 'failed';
  error: { code: string; message: string } | null;
  incomplete_details: { reason: 'max_output_tokens' | 'content_filter' } | null;
  instructions: string | null;
  max_output_tokens: number | null;
  model: string;
  output: ResponseOutputItem[];
  output_text?: string;
  parallel_tool_calls: boolean;
  previous_response_id: string | null;
  reasoning: { effort: string | null; summary: string | null };
  store: boolean;
  temperature: number | null;
  text: { format: Record<string, unknown> };
  tool_choice: unknown;
  tools: unknown[];
  top_p: number | null;
  truncation: 'disabled';
  usage?: ResponseUsage;
  user?: string;
  metadata: Record<string, string>;
}
