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
  candidates?: Array<{ index?: number; finishReason?: string; content?: { parts?: Array<{ text?: string }> } }>;
  error?: { status?: string };
}

/**
 * Gemini repeats running usage on every chunk and ends with a finishReason: only the last chunk
 * is parsed for usage, at the end (each chunk before it passes unparsed). The API has no end
 * marker (the body's end is the stream's end), so a chunk naming a finish reason is parsed as it
 * comes (usually the last one only) to say whether every candidate asked for has finished
 * (`endsIfQuiet`): the answer is then complete, should the upstream keep its response open.
 */
class GeminiUsageReader implements NativeUsageReader {
  usage: Usage | null = null;
  complete = false;
  endsIfQuiet = false;
  errorCode: string | null = null;
  outputCharacters = 0;
  private last: string | null = null;
  /** The last chunk parsed by noteFinishes (usually the stream's last): end() does not parse it again. */
  private parsed: { data: string; chunk: GeminiChunk } | null = null;
  /** The candidates (by index) whose latest chunk carried a finish reason. */
  private readonly done = new Set<number>();

  constructor(private readonly candidateCount: number) {}

  event(event: SseEvent): void {
    const data = event.data;
    this.last = data;
    this.outputCharacters += textLengthAfter(data, TEXT_KEYS);
    // Without its quotes: `"` is common in a chunk, and a pattern starting with it is searched
    // about 5 times slower (236 against 44 ns a 200-byte chunk). Text that names it is parsed: no harm.
    const namesFinish = data.includes('finishReason');
    if (!namesFinish && this.done.size === 0) return;
    // A chunk with no candidates (usage only) continues none: what was finished stays so. (The
    // quotes matter here: `candidatesTokenCount` is in the usage; this runs after a finish only.)
    if (!namesFinish && !data.includes('"candidates"')) return;
    if (!namesFinish && this.candidateCount === 1) {
      // Text after a finish reason (a server that stamps one early): the answer goes on.
      this.done.clear();
      this.endsIfQuiet = false;
      return;
    }
    this.noteFinishes(data);
  }

  /** Which candidates this chunk finishes or continues; a chunk that does not parse ends nothing (end() reports it). */
  private noteFinishes(data: string): void {
    let chunk: GeminiChunk;
    try {
      chunk = JSON.parse(data) as GeminiChunk;
    } catch {
      this.endsIfQuiet = false;
      return;
    }
    this.parsed = { data, chunk };
    for (const candidate of chunk.candidates ?? []) {
      const index = typeof candidate.index === 'number' ? candidate.index : 0;
      if (candidate.finishReason && candidate.finishReason !== 'FINISH_REASON_UNSPECIFIED') this.done.add(index);
      else this.done.delete(index);
    }
    this.endsIfQuiet = chunk.error === undefined && this.done.size >= this.candidateCount;
  }

  end(): void {
    const last = this.last;
    if (last !== null) this.read(this.parsed?.data === last ? this.parsed.chunk : (JSON.parse(last) as GeminiChunk));
    // Every candidate finished, in this chunk or an earlier one (the last may carry usage only).
    if (this.endsIfQuiet) this.complete = true;
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
  createUsageReader: (request) => new GeminiUsageReader(candidatesAsked(request.body)),
};

/** generationConfig.candidateCount (1 when absent or not a positive integer: the upstream refuses those). */
function candidatesAsked(body: Record<string, unknown>): number {
  const config = body.generationConfig as { candidateCount?: unknown } | undefined;
  const count = config?.candidateCount;
  return typeof count === 'number' && Number.isInteger(count) && count > 1 ? count : 1;
}
