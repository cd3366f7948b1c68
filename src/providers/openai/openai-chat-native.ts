import type { ProviderConfig } from '../../config/gateway-config.js';
import type { ChatCompletionRequest, Usage } from '../../shared/openai-types.js';
import type { SseEvent } from '../framing/sse-decoder.js';
import type { NativeRequest, NativeSupport, NativeUsageReader } from '../native-api.js';
import { textLengthAfter } from '../native-api.js';
import type { ProviderAdapter, TranslationContext } from '../provider-adapter.js';
import { decodeUtf8 } from '../shared/parse-upstream-json.js';
import { upstreamChecker } from '../shared/upstream-schema.js';
import { OpenAIUsageCarrierSchema } from './openai-chunk-schema.js';
import { readUsage } from './normalize-openai-compatible.js';

/** Where a delta's generated text starts (the first one present counts: one delta carries one of them). */
const DELTA_KEYS = ['"content":"', '"reasoning_content":"', '"reasoning":"', '"arguments":"'] as const;

/**
 * Usage from the chunk that carries it (OpenAI's trailing `choices: []` chunk; Groq's `x_groq.usage`),
 * read without parsing the other chunks: `"usage":{` with its quotes can only be a key, never text
 * inside a JSON string (whose quotes are escaped), and every other chunk says `"usage":null` or nothing.
 */
class ChatUsageReader implements NativeUsageReader {
  usage: Usage | null = null;
  complete = false;
  finished = false;
  errorCode: string | null = null;
  outputCharacters = 0;

  /** Present only when the client did not ask for the usage chunk (the gateway asks upstream for it regardless). */
  readonly hides?: (event: SseEvent) => boolean;

  constructor(clientWantsUsage: boolean) {
    if (!clientWantsUsage) this.hides = hidesUsageChunk;
  }

  event(event: SseEvent): void {
    const data = event.data;
    if (data === '[DONE]') {
      this.complete = true;
      this.finished = true;
      return;
    }
    if (event.event === 'error' || /^\s*\{\s*"error"\s*:/.test(data)) {
      const parsed = JSON.parse(data) as { error?: { code?: unknown; type?: unknown } };
      const code = parsed.error?.code ?? parsed.error?.type;
      this.errorCode = typeof code === 'string' ? code : 'upstream_error';
      return;
    }
    this.outputCharacters += textLengthAfter(data, DELTA_KEYS);
    // A finish reason is the answer's end for providers that send no [DONE] (as on the translated path).
    if (data.includes('"finish_reason":"')) this.complete = true;
    if (data.includes('"usage":{')) {
      this.readUsageFrom(JSON.parse(data));
    }
  }

  whole(body: Uint8Array): void {
    const parsed = JSON.parse(decodeUtf8(body)) as { choices?: Array<{ message?: { content?: unknown } }> };
    this.readUsageFrom(parsed);
    for (const choice of parsed.choices ?? [])
      if (typeof choice.message?.content === 'string') this.outputCharacters += choice.message.content.length;
    this.complete = true;
  }

  end(): void {}

  /** A usage that does not fit the schema counts as none reported: the answer's bytes already went out as they are. */
  private readUsageFrom(answer: unknown): void {
    if (!usageChecker.is(answer)) return;
    const usage = answer.usage ?? answer.x_groq?.usage;
    if (usage) this.usage = readUsage(usage);
  }
}

const usageChecker = upstreamChecker(OpenAIUsageCarrierSchema);

/** The usage-only chunk (no choices): a usage carried on a chunk with choices goes out with it. */
function hidesUsageChunk(event: SseEvent): boolean {
  return event.data.includes('"usage":{') && event.data.includes('"choices":[]');
}

/**
 * Chat completions forwarded to an endpoint that speaks OpenAI's chat wire. The request is what
 * the adapter already sends (the client's body with the upstream model, gateway-only fields
 * removed, `stream_options.include_usage: true` on a stream so metering gets exact figures);
 * the answer's bytes come back as they are. The client that did not ask for the usage chunk does
 * not see it (the reader hides it).
 */
export function chatNative(build: ProviderAdapter['buildRequest']): NativeSupport {
  return {
    buildRequest: (request: NativeRequest, context: TranslationContext) =>
      build(request.body as unknown as ChatCompletionRequest, context),
    createUsageReader(request: NativeRequest): NativeUsageReader {
      const options = request.body.stream_options as { include_usage?: unknown } | undefined;
      return new ChatUsageReader(options?.include_usage === true);
    },
  };
}

/**
 * Whether an endpoint's chat answers go back as its own bytes. Pass-through cannot smooth what
 * the translated path smooths (DeepSeek's `reasoning_content`, Mistral's thinking arrays, fields
 * OpenAI's document requires that some servers leave out), so it is on where the upstream is
 * OpenAI's own API and where the operator says the upstream speaks OpenAI's chat wire exactly:
 * `options: { chat_pass_through: true }` (`false` turns it off for OpenAI too).
 */
export function passesChatThrough(provider: ProviderConfig): boolean {
  const setting = provider.options.chat_pass_through;
  if (typeof setting === 'boolean') return setting;
  return provider.preset === 'openai' || /^https:\/\/api\.openai\.com\//.test(provider.baseUrl);
}
