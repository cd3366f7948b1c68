import type { SseEvent } from '../../providers/framing/sse-decoder.js';
import { formatSseEvent } from './native-stream-cost.js';

/**
 * A native stream from which the usage reader hides events (chat's usage-only chunk, which the
 * gateway asked for on its own behalf): the upstream's bytes still go out as they came, read by
 * read; only a read whose events include a hidden one is framed again without it (once a stream,
 * at its end). A read that ends inside an event is held until that event is complete, so bytes
 * of a hidden event never go out before it is known to be hidden; no event is parsed here.
 */
export class HiddenEventFilter {
  private bytes: Uint8Array[] = [];
  private events: SseEvent[] = [];
  private eol: string | null = null;

  constructor(private readonly hides: (event: SseEvent) => boolean) {}

  /** What to write for one read: its bytes (with any held before), or nothing while an event is incomplete. */
  push(bytes: Uint8Array, events: SseEvent[], partial: boolean): Uint8Array | string {
    this.eol ??= Buffer.from(bytes).includes('\r\n') ? '\r\n' : '\n';
    this.bytes.push(bytes);
    for (const event of events) this.events.push(event);
    return partial ? '' : this.flush();
  }

  /** The stream's end: what was held, and the events the decoder flushed last. */
  end(events: SseEvent[]): Uint8Array | string {
    for (const event of events) this.events.push(event);
    return this.flush();
  }

  private flush(): Uint8Array | string {
    const bytes = this.bytes;
    const events = this.events;
    this.bytes = [];
    this.events = [];
    if (!events.some(this.hides)) return bytes.length === 1 ? bytes[0]! : Buffer.concat(bytes);
    let text = '';
    for (const event of events) if (!this.hides(event)) text += formatSseEvent(event, this.eol ?? '\n');
    return text;
  }
}
