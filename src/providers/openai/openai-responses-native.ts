import type { ProviderConfig } from '../../config/gateway-config.js';
import type { Usage } from '../../shared/openai-types.js';
import type { SseEvent } from '../framing/sse-decoder.js';
import type { NativeRequest, NativeSupport, NativeUsageReader } from '../native-api.js';
import { textLengthAfter } from '../native-api.js';
import type { TranslationContext, UpstreamHttpRequest } from '../provider-adapter.js';
import { decodeUtf8 } from '../shared/parse-upstream-json.js';

interface ResponsesUsage {
  input_tokens?: number;
  input_tokens_details?: { cached_tokens?: number } | null;
  output_tokens?: number;
  output_tokens_details?: { reasoning_tokens?: number } | null;
}

/** Responses usage → OpenAI chat usage (input includes cached input; output includes reasoning, as in chat). */
function mapResponsesUsage(usage: ResponsesUsage): Usage {
  const prompt = usage.input_tokens ?? 0;
  const completion = usage.output_tokens ?? 0;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: usage.input_tokens_details?.cached_tokens ?? 0 },
    completion_tokens_details: { reasoning_tokens: usage.output_tokens_details?.reasoning_tokens ?? 0 },
  };
}

/** The events that end a Responses stream; each carries the whole response with its usage. */
const FINAL_EVENTS = new Set(['response.completed', 'response.incomplete', 'response.failed']);

class ResponsesUsageReader implements NativeUsageReader {
  usage: Usage | null = null;
  complete = false;
  /** A final event was read: the API sends nothing after it. */
  finished = false;
  errorCode: string | null = null;
  outputCharacters = 0;

  event(event: SseEvent): void {
    // OpenAI names every event; the type is also in the payload, read only when the name is absent.
    const type = event.event ?? /"type":"([^"]+)"/.exec(event.data)?.[1] ?? '';
    if (type.endsWith('.delta')) {
      this.outputCharacters += textLengthAfter(event.data, ['"delta":"']);
    } else if (FINAL_EVENTS.has(type)) {
      const parsed = JSON.parse(event.data) as {
        response?: { usage?: ResponsesUsage | null; error?: { code?: string } };
      };
      if (parsed.response?.usage) this.usage = mapResponsesUsage(parsed.response.usage);
      if (type === 'response.failed') this.errorCode = parsed.response?.error?.code ?? 'upstream_error';
      this.complete = true;
      this.finished = true;
    } else if (type === 'error') {
      this.errorCode = (JSON.parse(event.data) as { code?: string }).code ?? 'upstream_error';
    }
  }

  whole(body: Uint8Array): void {
    const parsed = JSON.parse(decodeUtf8(body)) as { usage?: ResponsesUsage | null; output_text?: string };
    if (parsed.usage) this.usage = mapResponsesUsage(parsed.usage);
    this.outputCharacters = typeof parsed.output_text === 'string' ? parsed.output_text.length : 0;
    this.complete = true;
  }

  end(): void {}
}

/** Responses forwarded as the client sent them to `url`, with the endpoint's model and the provider's auth. */
export function responsesNative(
  url: (provider: ProviderConfig) => string,
  auth: (provider: ProviderConfig) => Record<string, string>,
): NativeSupport {
  return {
    buildRequest(request: NativeRequest, context: TranslationContext): UpstreamHttpRequest {
      const { provider } = context;
      return {
        url: url(provider),
        method: 'POST',
        headers: { 'content-type': 'application/json', ...provider.headers, ...auth(provider) },
        body: JSON.stringify({ ...request.body, model: context.upstreamModel }),
        warnings: [],
      };
    },
    createUsageReader: () => new ResponsesUsageReader(),
  };
}

/**
 * Whether an OpenAI-type provider serves the Responses API: OpenAI itself, or any provider whose
 * config says `options: { responses_api: true }` (most OpenAI-compatible services do not).
 */
export function speaksResponses(provider: ProviderConfig): boolean {
  if (provider.options.responses_api === false) return false;
  return (
    provider.options.responses_api === true ||
    provider.preset === 'openai' ||
    /^https:\/\/api\.openai\.com\//.test(provider.baseUrl)
  );
}

export const openAIResponsesNative = responsesNative(
  (provider) => `${provider.baseUrl}/responses`,
  (provider): Record<string, string> => (provider.apiKey ? { authorization: `Bearer ${provider.apiKey}` } : {}),
);
