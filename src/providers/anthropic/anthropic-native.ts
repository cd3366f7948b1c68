import type { Usage } from '../../shared/openai-types.js';
import type { SseEvent } from '../framing/sse-decoder.js';
import type { NativeRequest, NativeSupport, NativeUsageReader } from '../native-api.js';
import { textLengthAfter } from '../native-api.js';
import type { TranslationContext, UpstreamHttpRequest } from '../provider-adapter.js';
import { decodeUtf8 } from '../shared/parse-upstream-json.js';
import type { AnthropicUsage } from './anthropic-types.js';
import { mapAnthropicUsage, mergeAnthropicUsage } from './map-anthropic-usage.js';

const ANTHROPIC_VERSION = '2023-06-01';
const DELTA_KEYS = ['"text":"', '"partial_json":"', '"thinking":"'] as const;

/** Messages forwarded to Anthropic as the client sent them: the model, auth and version are the gateway's. */
function buildAnthropicNativeRequest(request: NativeRequest, context: TranslationContext): UpstreamHttpRequest {
  const { provider } = context;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'anthropic-version':
      request.clientHeaders['anthropic-version'] ??
      (typeof provider.options.anthropic_version === 'string' ? provider.options.anthropic_version : ANTHROPIC_VERSION),
    ...provider.headers,
  };
  // Betas the client opted into (context management, interleaved thinking, …) are its to ask for.
  const beta = request.clientHeaders['anthropic-beta'];
  if (beta) headers['anthropic-beta'] = headers['anthropic-beta'] ? `${headers['anthropic-beta']},${beta}` : beta;
  if (provider.apiKey) headers['x-api-key'] = provider.apiKey;
  return {
    // count_tokens takes the same body and headers at its own path.
    url:
      request.action === 'count_tokens' ? `${provider.baseUrl}/messages/count_tokens` : `${provider.baseUrl}/messages`,
    method: 'POST',
    headers,
    body: JSON.stringify({ ...request.body, model: context.upstreamModel }),
    warnings: [],
  };
}

/** Usage from message_start (input, cache) and the cumulative message_delta (output); message_stop ends. */
class AnthropicUsageReader implements NativeUsageReader {
  private reported: AnthropicUsage | null = null;
  complete = false;
  /** message_stop was read: nothing follows it in the API, whatever the upstream's connection does. */
  finished = false;
  errorCode: string | null = null;
  outputCharacters = 0;

  get usage(): Usage | null {
    return this.reported ? mapAnthropicUsage(this.reported) : null;
  }

  event(event: SseEvent): void {
    switch (event.event) {
      case 'content_block_delta':
        this.outputCharacters += textLengthAfter(event.data, DELTA_KEYS);
        return;
      case 'message_start': {
        const parsed = JSON.parse(event.data) as { message?: { usage?: AnthropicUsage } };
        this.reported = mergeAnthropicUsage(this.reported ?? {}, parsed.message?.usage);
        return;
      }
      case 'message_delta': {
        const parsed = JSON.parse(event.data) as { usage?: AnthropicUsage };
        this.reported = mergeAnthropicUsage(this.reported ?? {}, parsed.usage);
        return;
      }
      case 'message_stop':
        this.complete = true;
        this.finished = true;
        return;
      case 'error': {
        const parsed = JSON.parse(event.data) as { error?: { type?: string } };
        this.errorCode = parsed.error?.type ?? 'upstream_error';
        return;
      }
    }
  }

  whole(body: Uint8Array): void {
    const parsed = JSON.parse(decodeUtf8(body)) as { usage?: AnthropicUsage; content?: Array<{ text?: string }> };
    this.reported = parsed.usage ?? null;
    for (const block of parsed.content ?? []) this.outputCharacters += block.text?.length ?? 0;
    this.complete = true;
  }

  end(): void {}
}

export const anthropicNative: NativeSupport = {
  buildRequest: buildAnthropicNativeRequest,
  createUsageReader: () => new AnthropicUsageReader(),
};
