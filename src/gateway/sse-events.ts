import type { FastifyReply } from 'fastify';
import { clientStalled, openSseStream, waitForDrain } from './sse.js';

/**
 * Named SSE events (`event: <type>` + `data: <json>`), as the Responses and Anthropic Messages
 * streams frame them. Takes over the reply and sends the headers at once (openSseStream).
 */
export class SseEventWriter {
  private sequence = 0;

  constructor(
    private readonly reply: FastifyReply,
    private readonly options: { sequenceNumbers: boolean; writeStallMs?: number },
  ) {}

  open(requestId: string, headers: Record<string, string>): void {
    openSseStream(this.reply, requestId, headers);
  }

  /** Writes the events; waits when the socket is full (a client that stops reading is cut). */
  async write(events: Array<{ type: string; [field: string]: unknown }>): Promise<void> {
    if (events.length === 0 || this.reply.raw.destroyed) return;
    let text = '';
    for (const event of events) {
      const payload = this.options.sequenceNumbers ? { ...event, sequence_number: this.sequence++ } : event;
      text += `event: ${event.type}\ndata: ${JSON.stringify(payload)}\n\n`;
    }
    if (!this.reply.raw.write(text) && (await waitForDrain(this.reply.raw, this.options.writeStallMs)) === 'stalled')
      throw clientStalled(this.options.writeStallMs);
  }

  end(): void {
    if (!this.reply.raw.destroyed) this.reply.raw.end();
  }

  destroy(): void {
    this.reply.raw.destroy();
  }
}
