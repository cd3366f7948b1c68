import type { NativeApi } from '../../providers/native-api.js';
import type { SseEvent } from '../../providers/framing/sse-decoder.js';
import type { Usage } from '../../shared/openai-types.js';
import { copyCost } from './answer-cost.js';

/**
 * A native stream whose client asked for the cost: the events are written again one by one (not
 * as the upstream's bytes) so the final usage event can carry `cost` and `cost_details`:
 * Anthropic's `message_delta` (usage), the Responses `response.completed` / `response.incomplete`
 * (response.usage), chat's usage chunk (usage), and Gemini's last chunk (usageMetadata; Gemini reports running usage on every
 * chunk, so each chunk is held back until the next one arrives or the stream ends). `price` is
 * called once the usage event was read: the usage is final then.
 */
export class NativeStreamCost {
  private held: SseEvent | null = null;

  constructor(
    private readonly api: NativeApi,
    private readonly price: () => Usage | null,
    private readonly eol: string,
  ) {}

  /** The text to write for one event the usage reader has already seen. */
  push(event: SseEvent): string {
    if (this.api === 'gemini-generate-content') {
      const previous = this.held;
      this.held = event;
      return previous ? this.format(previous) : '';
    }
    const finalUsage =
      this.api === 'anthropic-messages'
        ? event.event === 'message_delta' || event.data.includes('"type":"message_delta"')
        : this.api === 'openai-chat'
          ? event.data.includes('"usage":{')
          : /"type"\s*:\s*"response\.(completed|incomplete)"/.test(event.data);
    return this.format(finalUsage ? this.withCost(event) : event);
  }

  /** The stream ended: what was held back, with the cost when the stream is complete. */
  end(complete: boolean): string {
    const last = this.held;
    this.held = null;
    if (!last) return '';
    return this.format(complete ? this.withCost(last) : last);
  }

  private withCost(event: SseEvent): SseEvent {
    let payload: Record<string, unknown>;
    try {
      payload = JSON.parse(event.data) as Record<string, unknown>;
    } catch {
      return event;
    }
    const usage = this.price();
    // Chat's usage is the gateway's own usage shape: the priced one replaces it whole.
    if (this.api === 'openai-chat') payload.usage = usage ?? payload.usage;
    else if (this.api === 'anthropic-messages') payload.usage = copyCost(objectOf(payload.usage), usage);
    else if (this.api === 'gemini-generate-content')
      payload.usageMetadata = copyCost(objectOf(payload.usageMetadata), usage);
    else {
      const response = objectOf(payload.response);
      response.usage = copyCost(objectOf(response.usage), usage);
      payload.response = response;
    }
    return { ...event, data: JSON.stringify(payload) };
  }

  private format(event: SseEvent): string {
    return formatSseEvent(event, this.eol);
  }
}

/** One decoded event framed again, with the upstream's line ends (a stream written event by event). */
export function formatSseEvent(event: SseEvent, eol: string): string {
  let text = '';
  if (event.event !== null) text += `event: ${event.event}${eol}`;
  if (event.id !== null) text += `id: ${event.id}${eol}`;
  for (const line of event.data.split('\n')) text += `data: ${line}${eol}`;
  return text + eol;
}

function objectOf(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' ? { ...(value as Record<string, unknown>) } : {};
}
