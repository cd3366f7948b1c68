/** The Bedrock Converse wire shapes we send and read (only the fields we use). */

export type BedrockImageFormat = 'png' | 'jpeg' | 'gif' | 'webp';
export type BedrockDocumentFormat = 'pdf' | 'csv' | 'doc' | 'docx' | 'xls' | 'xlsx' | 'html' | 'txt' | 'md';

export type BedrockContentBlock =
  | { text: string }
  | { image: { format: BedrockImageFormat; source: { bytes: string } } }
  | { document: { format: BedrockDocumentFormat; name: string; source: { bytes: string } } }
  | { toolUse: { toolUseId: string; name: string; input: unknown } }
  | { toolResult: { toolUseId: string; content: Array<{ text: string }>; status?: 'success' | 'error' } }
  | { reasoningContent: { reasoningText?: { text: string; signature?: string }; redactedContent?: string } };

export interface BedrockMessage {
  role: 'user' | 'assistant';
  content: BedrockContentBlock[];
}

export interface BedrockToolSpec {
  toolSpec: { name: string; description?: string; inputSchema: { json: Record<string, unknown> } };
}

export type BedrockToolChoice =
  { auto: Record<string, never> } | { any: Record<string, never> } | { tool: { name: string } };

export interface BedrockConverseRequest {
  messages: BedrockMessage[];
  system?: Array<{ text: string }>;
  inferenceConfig?: { maxTokens?: number; temperature?: number; topP?: number; stopSequences?: string[] };
  toolConfig?: { tools: BedrockToolSpec[]; toolChoice?: BedrockToolChoice };
  additionalModelRequestFields?: Record<string, unknown>;
}

export interface BedrockUsage {
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  cacheReadInputTokens?: number;
  cacheWriteInputTokens?: number;
}

export interface BedrockConverseResponse {
  output?: { message?: { role?: string; content?: BedrockContentBlock[] } };
  stopReason?: string;
  usage?: BedrockUsage;
}
