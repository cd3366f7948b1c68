/** The Gemini API shapes the gateway reads and writes (loose where clients vary). */

export interface GeminiApiPart {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
  inlineData?: { mimeType?: string; data?: string };
  fileData?: { mimeType?: string; fileUri?: string };
  functionCall?: { id?: string; name?: string; args?: Record<string, unknown> };
  functionResponse?: { id?: string; name?: string; response?: unknown };
  [key: string]: unknown;
}

export interface GeminiApiContent {
  role?: string;
  parts?: GeminiApiPart[];
}

interface GeminiApiTool {
  functionDeclarations?: Array<{
    name: string;
    description?: string;
    parameters?: Record<string, unknown>;
    parametersJsonSchema?: Record<string, unknown>;
  }>;
  googleSearch?: unknown;
  googleSearchRetrieval?: unknown;
  [key: string]: unknown;
}

export interface GeminiApiRequest {
  contents?: GeminiApiContent[];
  systemInstruction?: GeminiApiContent | string;
  tools?: GeminiApiTool[];
  toolConfig?: { functionCallingConfig?: { mode?: string; allowedFunctionNames?: string[] } };
  generationConfig?: {
    temperature?: number;
    topP?: number;
    topK?: number;
    maxOutputTokens?: number;
    stopSequences?: string[];
    candidateCount?: number;
    seed?: number;
    presencePenalty?: number;
    frequencyPenalty?: number;
    responseMimeType?: string;
    responseSchema?: Record<string, unknown>;
    responseJsonSchema?: Record<string, unknown>;
    thinkingConfig?: { thinkingBudget?: number; thinkingLevel?: string; includeThoughts?: boolean };
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

export interface GeminiApiUsage {
  promptTokenCount: number;
  candidatesTokenCount: number;
  totalTokenCount: number;
  cachedContentTokenCount?: number;
  thoughtsTokenCount?: number;
}

export interface GeminiApiResponse {
  candidates: Array<{
    content: { role: 'model'; parts: GeminiApiPart[] };
    finishReason?: string;
    index: number;
  }>;
  usageMetadata?: GeminiApiUsage;
  modelVersion: string;
  responseId: string;
}
