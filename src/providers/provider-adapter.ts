/**
 * The contract between the gateway core and one wire protocol (openai, anthropic, gemini,
 * bedrock, …). An adapter is pure translation plus framing: it never opens sockets, reads
 * clocks or makes ids on its own; the core does the HTTP call (undici, keep-alive pool per
 * provider) and hands the adapter bytes. Generic code never names a provider.
 */
import type { ProviderConfig } from '../config/gateway-config.js';
import type { GatewayError } from '../shared/errors.js';
import type { SseEvent } from './framing/sse-decoder.js';
import type { ChatCompletion, ChatCompletionChunk, ChatCompletionRequest, Usage } from '../shared/openai-types.js';

/** Everything an adapter may need that is not the request itself. Injected so translation stays pure. */
export interface TranslationContext {
  provider: ProviderConfig;
  /** The name the upstream knows the model by. */
  upstreamModel: string;
  /** The public model id the client sees in every answer. */
  publicModel: string;
  /** The completion id we answer with (chatcmpl-…). */
  completionId: string;
  /** Unix seconds for `created`. */
  created: number;
  /** Makes ids the provider does not give (tool call ids), deterministic in tests. */
  generateId: (prefix: string) => string;
  /** Whether the client asked for a stream. */
  stream: boolean;
}

export interface UpstreamHttpRequest {
  /** Absolute URL. */
  url: string;
  method: 'POST' | 'GET';
  headers: Record<string, string>;
  body: string | Uint8Array;
  /** Parameters dropped because this provider cannot honour them (sent as x-gateway-warnings). */
  warnings: string[];
}

/** What a stream decoder yields as it reads upstream bytes. */
export type StreamEvent =
  | {
      type: 'chunk';
      chunk: ChatCompletionChunk;
      /**
       * The chunk's JSON as the client gets it, when the decoder had it without serialising
       * (the upstream's text with our id and model spliced in). Valid only while `chunk` is
       * unchanged and already conforms: a consumer that changes the chunk writes it out itself.
       */
      json?: string;
    }
  /** Usage so far; the last one seen counts (providers send running totals). */
  | { type: 'usage'; usage: Usage }
  /** The upstream said the answer is complete ([DONE], message_stop, …). */
  | { type: 'done' };

export interface StreamDecoder {
  /** Feed raw upstream bytes; returns events decoded so far. Throws a GatewayError for an upstream error event or bad data. */
  push(bytes: Uint8Array): StreamEvent[];
  /** The upstream closed the body; returns the last events. Throws if the stream ended mid-frame. */
  end(): StreamEvent[];
}

export interface ProviderAdapter extends NativeCapable {
  /** The `type` in config this adapter speaks. */
  readonly type: string;
  /** Whether `n > 1` can be honoured; otherwise the core answers 400 naming `n`. */
  readonly supportsMultipleChoices: boolean;
  buildRequest(
    request: ChatCompletionRequest,
    context: TranslationContext,
  ): UpstreamHttpRequest | Promise<UpstreamHttpRequest>;
  /** A whole (stream:false) upstream 2xx body → an OpenAI chat.completion, with exact usage. */
  parseResponse(body: Uint8Array, context: TranslationContext): ChatCompletion;
  createStreamDecoder(context: TranslationContext): StreamDecoder;
  /**
   * The provider's own model-list call (a GET with the provider's credentials). `gateway doctor`
   * uses it to tell "reachable and authenticated" from "reachable but refused" from "down".
   * Optional only so that adapters made up by tests need not have one.
   */
  buildModelListRequest?(provider: ProviderConfig, now: Date): UpstreamHttpRequest | Promise<UpstreamHttpRequest>;
  /** An upstream non-2xx answer → our error (client errors keep their status; others become 502/503/504). */
  mapError(
    status: number,
    body: Uint8Array,
    headers: Record<string, string | string[] | undefined>,
    context: TranslationContext,
  ): GatewayError;
}

// Native pass-through (see native-api.ts for the design note).

/** The client APIs the gateway serves that a provider may speak natively. */
export type NativeApi = 'anthropic-messages' | 'openai-responses' | 'gemini-generate-content' | 'openai-chat';

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
  /**
   * The upstream's last event was read (chat's `[DONE]`, Anthropic's `message_stop`, the Responses
   * `response.completed` / `.incomplete` / `.failed`): the client's answer ends there even if the
   * upstream keeps the connection open. Absent where the API has no such event (Gemini: endsIfQuiet).
   */
  readonly finished?: boolean;
  /**
   * An API with no end marker (Gemini) whose last event read may be its last: every candidate it
   * asked for has a finish reason. A body still open a grace after such an event, with nothing
   * more read, is dropped and the answer ends with what came; an event read meanwhile still goes
   * to the client (and one that finishes no candidate clears this).
   */
  readonly endsIfQuiet?: boolean;
  /** An error event the upstream sent in the stream (passed to the client as it is); its code. */
  readonly errorCode: string | null;
  /** Characters of generated text seen, for the estimate when no usage was reported. */
  readonly outputCharacters: number;
  /**
   * Events the gateway asked the upstream for on its own behalf (metering), which the client did
   * not ask for and must not see: chat's usage-only chunk when the client left out
   * stream_options.include_usage. Absent when every event goes to the client as it came.
   */
  hides?(event: SseEvent): boolean;
}

export interface NativeSupport {
  buildRequest(request: NativeRequest, context: TranslationContext): UpstreamHttpRequest | Promise<UpstreamHttpRequest>;
  /** A reader for one answer; it may depend on what the client asked (chat: whether it wants the usage chunk). */
  createUsageReader(request: NativeRequest): NativeUsageReader;
  /**
   * For an upstream that frames the API's events its own way (Bedrock's binary event stream around
   * Anthropic's events): re-frames the bytes as the API's SSE, each event's JSON as it came.
   * Absent when the upstream already sends the API's SSE.
   */
  createStreamTranscoder?(context: TranslationContext): StreamTranscoder;
  /** The API methods besides the main one it forwards (count_tokens, countTokens, …); absent: all of them. */
  readonly actions?: readonly string[];
}

/** Upstream stream bytes → the client API's SSE text. Throws a GatewayError for an upstream error frame. */
export interface StreamTranscoder {
  push(bytes: Uint8Array): string;
  /** The body ended: throws when it ended inside a frame. */
  end(): void;
}

/** Implemented by adapters whose endpoints speak a client API natively (per provider or model: a preset may not). */
interface NativeCapable {
  native?(api: NativeApi, provider: ProviderConfig, upstreamModel: string): NativeSupport | undefined;
}
