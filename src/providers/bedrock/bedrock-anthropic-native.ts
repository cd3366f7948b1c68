import { UpstreamError } from '../../shared/errors.js';
import { anthropicNative } from '../anthropic/anthropic-native.js';
import {
  AwsEventStreamDecoder,
  EventStreamFormatError,
  type EventStreamMessage,
} from '../framing/aws-event-stream-decoder.js';
import type { NativeRequest, NativeSupport } from '../native-api.js';
import type { StreamTranscoder, TranslationContext, UpstreamHttpRequest } from '../provider-adapter.js';
import { mapBedrockStreamException } from './bedrock-error.js';
import { bedrockModelRequest } from './bedrock-http-request.js';

/** The Messages API version Bedrock's Anthropic models take in the body (instead of a header). */
const BEDROCK_ANTHROPIC_VERSION = 'bedrock-2023-05-31';

/**
 * Whether a Bedrock model id is one of Anthropic's: a foundation model (`anthropic.claude-…`), a
 * cross-region profile (`us.anthropic.claude-…`, `global.anthropic.…`) or an ARN naming either.
 * An application inference profile's ARN names no model: such endpoints stay on Converse.
 */
export function servesAnthropicMessages(upstreamModel: string): boolean {
  return /(^|[./:])anthropic\./.test(upstreamModel);
}

/**
 * The client's Messages body as InvokeModel takes it: the model goes in the URL and the stream
 * choice in the operation (so neither stays in the body), `anthropic_version` is Bedrock's, and
 * the betas the client opted into (`anthropic-beta`) go in the body as `anthropic_beta`.
 */
export function bedrockAnthropicBody(request: NativeRequest): Record<string, unknown> {
  const { model: _model, stream: _stream, ...body } = request.body;
  const betas = request.clientHeaders['anthropic-beta']
    ?.split(',')
    .map((beta) => beta.trim())
    .filter(Boolean);
  const existing = Array.isArray(body.anthropic_beta) ? (body.anthropic_beta as unknown[]) : [];
  return {
    ...body,
    anthropic_version: BEDROCK_ANTHROPIC_VERSION,
    ...(betas?.length ? { anthropic_beta: [...existing, ...betas] } : {}),
  };
}

/**
 * InvokeModelWithResponseStream wraps each of Anthropic's events in a binary `chunk` frame whose
 * JSON payload holds the event's JSON in base64 (`{"bytes": "…"}`, with padding fields). The
 * event's JSON is written as it came, under its own `event:` name; only the framing changes.
 * An exception frame is the upstream failing mid-stream (thrown; the client gets Anthropic's
 * error event).
 */
class BedrockAnthropicTranscoder implements StreamTranscoder {
  private readonly frames = new AwsEventStreamDecoder();
  private readonly utf8 = new TextDecoder();

  constructor(private readonly context: TranslationContext) {}

  push(bytes: Uint8Array): string {
    let text = '';
    for (const message of this.read(() => this.frames.push(bytes))) text += this.event(message);
    return text;
  }

  end(): void {
    this.read(() => this.frames.end());
  }

  private read(next: () => EventStreamMessage[]): EventStreamMessage[] {
    try {
      return next();
    } catch (error) {
      if (!(error instanceof EventStreamFormatError)) throw error;
      throw new UpstreamError(
        502,
        'upstream_bad_response',
        `${this.context.provider.name} sent a broken event stream: ${error.message}.`,
        { cause: error },
      );
    }
  }

  private event(message: EventStreamMessage): string {
    const messageType = message.headers[':message-type'];
    if (messageType === 'exception' || messageType === 'error') {
      const type = message.headers[':exception-type'] ?? message.headers[':error-code'] ?? 'exception';
      throw mapBedrockStreamException(String(type), this.messageOf(message), this.context.provider.name);
    }
    if (message.headers[':event-type'] !== 'chunk') return '';
    const wrapper = this.json(message.payload) as { bytes?: unknown } | null;
    if (typeof wrapper?.bytes !== 'string') throw this.badEvent();
    const data = Buffer.from(wrapper.bytes, 'base64').toString('utf8');
    // Anthropic's events name their type first; the SSE event name is that type.
    const type = /^\s*\{\s*"type"\s*:\s*"([^"]+)"/.exec(data)?.[1];
    if (!type) throw this.badEvent();
    const lines = data.includes('\n') ? data.split('\n').join('\ndata: ') : data;
    return `event: ${type}\ndata: ${lines}\n\n`;
  }

  private messageOf(message: EventStreamMessage): string {
    const errorMessage = message.headers[':error-message'];
    if (typeof errorMessage === 'string') return errorMessage;
    const payload = this.json(message.payload) as { message?: unknown } | null;
    return typeof payload?.message === 'string' ? payload.message : '';
  }

  private json(payload: Uint8Array): unknown {
    try {
      return JSON.parse(this.utf8.decode(payload));
    } catch {
      return null;
    }
  }

  private badEvent(): UpstreamError {
    return new UpstreamError(
      502,
      'upstream_bad_response',
      `${this.context.provider.name} sent a stream chunk that is not an Anthropic event.`,
    );
  }
}

/**
 * Messages on Bedrock's Anthropic models: InvokeModel (a whole answer, Anthropic's own JSON) or
 * InvokeModelWithResponseStream (Anthropic's events in Bedrock's framing). Usage is read as on
 * Anthropic (message_start, message_delta). Token counting is not forwarded (Bedrock's
 * CountTokens takes and answers other shapes): the gateway estimates it.
 */
export const bedrockAnthropicNative: NativeSupport = {
  buildRequest: (request: NativeRequest, context: TranslationContext): Promise<UpstreamHttpRequest> =>
    bedrockModelRequest(
      context.provider,
      context.upstreamModel,
      request.stream ? 'invoke-with-response-stream' : 'invoke',
      JSON.stringify(bedrockAnthropicBody(request)),
      { stream: request.stream, signingDate: new Date(context.created * 1000) },
    ),
  createUsageReader: (request) => anthropicNative.createUsageReader(request),
  createStreamTranscoder: (context) => new BedrockAnthropicTranscoder(context),
  actions: [],
};
