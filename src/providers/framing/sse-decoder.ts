/**
 * Server-sent events framing (WHATWG), written once for every provider: bytes in, events out.
 * Handles LF, CRLF and CR line ends (Gemini sends CRLF), multi-line data, `event:` names,
 * comments, and events split across reads at any byte (including inside a UTF-8 character).
 */
export interface SseEvent {
  event: string | null;
  data: string;
  id: string | null;
}

export class SseDecoder {
  private readonly textDecoder = new TextDecoder();
  private buffer = '';
  private eventName: string | null = null;
  private dataLines: string[] = [];
  private lastId: string | null = null;
  private sawField = false;

  push(bytes: Uint8Array): SseEvent[] {
    this.buffer += this.textDecoder.decode(bytes, { stream: true });
    return this.drain(false);
  }

  /** Flushes a final event that was not followed by a blank line. */
  end(): SseEvent[] {
    this.buffer += this.textDecoder.decode();
    const events = this.drain(true);
    if (this.buffer.length > 0) {
      this.processLine(this.buffer, events);
      this.buffer = '';
    }
    if (this.sawField) this.dispatch(events);
    return events;
  }

  /** true when bytes of an unfinished event are buffered (the upstream closed mid-event). */
  get hasPartialEvent(): boolean {
    return this.buffer.length > 0 || this.sawField;
  }

  private drain(final: boolean): SseEvent[] {
    const events: SseEvent[] = [];
    let start = 0;
    const buffer = this.buffer;
    for (let index = 0; index < buffer.length; index++) {
      const code = buffer.charCodeAt(index);
      if (code !== 10 && code !== 13) continue;
      // A CR at the very end may be the first half of CRLF: wait for the next read.
      if (code === 13 && index === buffer.length - 1 && !final) break;
      this.processLine(buffer.slice(start, index), events);
      if (code === 13 && buffer.charCodeAt(index + 1) === 10) index++;
      start = index + 1;
    }
    this.buffer = buffer.slice(start);
    return events;
  }

  private processLine(line: string, events: SseEvent[]): void {
    if (line === '') {
      this.dispatch(events);
      return;
    }
    if (line.charCodeAt(0) === 58 /* : comment */) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    this.sawField = true;
    if (field === 'data') this.dataLines.push(value);
    else if (field === 'event') this.eventName = value;
    else if (field === 'id') this.lastId = value;
  }

  private dispatch(events: SseEvent[]): void {
    if (this.dataLines.length > 0 || this.eventName !== null) {
      events.push({ event: this.eventName, data: this.dataLines.join('\n'), id: this.lastId });
    }
    this.eventName = null;
    this.dataLines = [];
    this.sawField = false;
  }
}
