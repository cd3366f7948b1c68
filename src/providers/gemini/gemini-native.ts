import type { Usage } from '../../shared/openai-types.js';
import type { SseEvent } from '../framing/sse-decoder.js';
import type { NativeRequest, NativeSupport, NativeUsageReader } from '../native-api.js';
import { textLengthAfter } from '../native-api.js';
import type { TranslationContext, UpstreamHttpRequest } from '../provider-adapter.js';
import { decodeUtf8 } from '../shared/parse-upstream-json.js';
import type { GeminiUsageMetadata } from './gemini-types.js';
import { mapGeminiUsage } from './map-gemini-usage.js';

const TEXT_KEYS = ['"text": "', '"text":"'] as const;

/** The Gemini API forwarded as the client sent it: the model is in the URL, the key the gateway's. */
function buildGeminiNativeRequest(request: NativeRequest, context: TranslationContext): UpstreamHttpRequest {
  const { provider } = context;
  const model = encodeURIComponent(context.upstreamModel.replace(/^models\//, ''));
  const action = request.stream ? 'streamGenerateContent' : (request.action ?? 'generateContent');
  const url = `${provider.baseUrl}/models/${model}:${action}${request.stream ? '?alt=sse' : ''}`;
  const headers: Record<string, string> = { 'content-type': 'application/json', ...provider.headers };
  if (provider.apiKey) headers['x-goog-api-key'] = provider.apiKey;
  const body = { ...request.body };
  // Inside the body of embedContent and countTokens the model is the upstream's too.
  if (typeof body.model === 'string') body.model = `models/${context.upstreamModel.replace(/^models\//, '')}`;
  return { url, method: 'POST', headers, body: JSON.stringify(body), warnings: [] };
}

interface GeminiChunk {
  usageMetadata?: GeminiUsageMetadata;
  candidates?: Array<{ finishReason?: string; content?: { parts?: Array<{ text?: string }> } }>;
  error?: { status?: string };
}

/**
 * Gemini repeats running usage on every chunk and ends with a finishReason: only the last chunk
 * is parsed, at the end (each chunk before it passes unparsed).
 */
class GeminiUsageReader implements NativeUsageReader {
  usage: Usage | null = null;
  complete = false;
  errorCode: string | null = null;
  outputCharacters = 0;
  private last: string | null = null;

  event(event: SseEvent): void {
    this.last = event.data;
    this.outputCharacters += textLengthAfter(event.data, TEXT_KEYS);
  }

  end(): void {
    if (this.last !== null) this.read(JSON.parse(this.last) as GeminiChunk);
  }

  whole(body: Uint8Array): void {
    const parsed = JSON.parse(decodeUtf8(body)) as GeminiChunk;
    this.read(parsed);
    this.complete = true;
    for (const part of parsed.candidates?.[0]?.content?.parts ?? []) this.outputCharacters += part.text?.length ?? 0;
  }

  private read(chunk: GeminiChunk): void {
    if (chunk.usageMetadata) this.usage = mapGeminiUsage(chunk.usageMetadata);
    if (chunk.candidates?.some((candidate) => candidate.finishReason)) this.complete = true;
    if (chunk.error) this.errorCode = chunk.error.status ?? 'upstream_error';
  }
}

export const geminiNative: NativeSupport = {
  buildRequest: buildGeminiNativeRequest,
  createUsageReader: () => new GeminiUsageReader(),
};
