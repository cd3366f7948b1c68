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

  /**
   * Writes the events. Returns a promise only when the socket is full: it settles once the client
   * drained it, or rejects when the client took nothing for the stall time (it is cut). No promise
   * for a write that went through: a stream's chunk reader hands the next chunk over at once.
   */
  write(events: Array<{ type: string; [field: string]: unknown }>): void | Promise<void> {
    if (events.length === 0 || this.reply.raw.destroyed) return;
    let text = '';
    for (const event of events) {
      const payload = this.options.sequenceNumbers ? { ...event, sequence_number: this.sequence++ } : event;
      text += `event: ${event.type}\ndata: ${JSON.stringify(payload)}\n\n`;
    }
    if (this.reply.raw.write(text)) return;
    const stallMs = this.options.writeStallMs;
    return waitForDrain(this.reply.raw, stallMs).then((result) => {
      if (result === 'stalled') throw clientStalled(stallMs);
    });
  }

  end(): void {
    if (!this.reply.raw.destroyed) this.reply.raw.end();
  }

  destroy(): void {
    this.reply.raw.destroy();
  }
}
