/**
 * Native pass-through: when the client speaks the endpoint's own API, the gateway forwards the
 * client's body with only the model (and its own fields) changed and streams the upstream's bytes
 * back as they are. An adapter says which client APIs its endpoints speak and how usage is read
 * from that API's answer, without parsing every event. Generic code never names a provider.
 */
import type { ProviderConfig } from '../config/gateway-config.js';
import type { Usage } from '../shared/openai-types.js';
import type { SseEvent } from './framing/sse-decoder.js';
import type { TranslationContext, UpstreamHttpRequest } from './provider-adapter.js';

/** The client APIs the gateway serves that a provider may speak natively. */
export type NativeApi = 'anthropic-messages' | 'openai-responses' | 'gemini-generate-content';

export interface NativeRequest {
  /** The client's body without the gateway's own fields; the adapter sets the upstream model. */
  body: Record<string, unknown>;
  stream: boolean;
  /** Client headers the API defines (anthropic-version, anthropic-beta), lower-case. */
  clientHeaders: Record<string, string>;
  /** The API's method where its URL names one (Gemini: generateContent, countTokens, embedContent, …). */
  action?: string;
}

/**
 * Reads what metering needs from one native answer. A stream's SSE events are offered one by one
 * and only those that carry usage or the end are parsed (the rest pass as bytes, never parsed).
 */
export interface NativeUsageReader {
  event(event: SseEvent): void;
  /** A whole (non-stream) answer's body. */
  whole(body: Uint8Array): void;
  /** The stream's end: parse what was held back (Gemini's last chunk). */
  end(): void;
  /** Usage as reported so far (final once the answer is complete); null when none was reported. */
  readonly usage: Usage | null;
  /** The upstream said the answer is complete (message_stop, response.completed, a finishReason). */
  readonly complete: boolean;
  /** An error event the upstream sent in the stream (passed to the client as it is); its code. */
  readonly errorCode: string | null;
  /** Characters of generated text seen, for the estimate when no usage was reported. */
  readonly outputCharacters: number;
}

export interface NativeSupport {
  buildRequest(request: NativeRequest, context: TranslationContext): UpstreamHttpRequest;
  createUsageReader(): NativeUsageReader;
}

/** Implemented by adapters whose endpoints speak a client API natively (per provider: a preset may not). */
export interface NativeCapable {
  native?(api: NativeApi, provider: ProviderConfig): NativeSupport | undefined;
}

/**
 * The length of the first JSON string value after one of the keys in a raw event payload, without
 * parsing it: the text a delta event adds, for the estimate of a stream cut before its usage.
 */
export function textLengthAfter(payload: string, keys: readonly string[]): number {
  for (const key of keys) {
    const at = payload.indexOf(key);
    if (at === -1) continue;
    let index = at + key.length;
    let length = 0;
    while (index < payload.length) {
      const code = payload.charCodeAt(index);
      if (code === 34 /* " */) return length;
      // An escape (\n, \", \uXXXX) is one character of text.
      if (code === 92 /* \ */) index += payload.charCodeAt(index + 1) === 117 /* u */ ? 6 : 2;
      else index++;
      length++;
    }
    return length;
  }
  return 0;
}
