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
  /** The event's data lines joined so far; null before its first `data:` line. */
  private data: string | null = null;
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
      this.processLine(this.buffer, 0, this.buffer.length, events);
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
    const buffer = this.buffer;
    let start = 0;
    if (buffer.indexOf('\r') === -1) {
      // LF only (nearly every provider): the native search finds line ends, not a loop per character.
      for (let end = buffer.indexOf('\n'); end !== -1; end = buffer.indexOf('\n', start)) {
        this.processLine(buffer, start, end, events);
        start = end + 1;
      }
    } else {
      for (let index = 0; index < buffer.length; index++) {
        const code = buffer.charCodeAt(index);
        if (code !== 10 && code !== 13) continue;
        // A CR at the very end may be the first half of CRLF: wait for the next read.
        if (code === 13 && index === buffer.length - 1 && !final) break;
        this.processLine(buffer, start, index, events);
        if (code === 13 && buffer.charCodeAt(index + 1) === 10) index++;
        start = index + 1;
      }
    }
    this.buffer = start === 0 ? buffer : buffer.slice(start);
    return events;
  }

  /** The line `text[start, end)`, read where it lies: one slice for its value, none for the line. */
  private processLine(text: string, start: number, end: number, events: SseEvent[]): void {
    if (start === end) {
      this.dispatch(events);
      return;
    }
    if (text.charCodeAt(start) === 58 /* : comment */) return;
    this.sawField = true;
    if (text.startsWith('data: ', start)) {
      this.addData(text.slice(start + 6, end));
      return;
    }
    let colon = text.indexOf(':', start);
    if (colon === -1 || colon > end) colon = end;
    const field = text.slice(start, colon);
    let valueStart = colon < end ? colon + 1 : end;
    if (valueStart < end && text.charCodeAt(valueStart) === 32) valueStart++;
    const value = text.slice(valueStart, end);
    if (field === 'data') this.addData(value);
    else if (field === 'event') this.eventName = value;
    else if (field === 'id') this.lastId = value;
  }

  private addData(value: string): void {
    this.data = this.data === null ? value : this.data + '\n' + value;
  }

  private dispatch(events: SseEvent[]): void {
    if (this.data !== null || this.eventName !== null) {
      events.push({ event: this.eventName, data: this.data ?? '', id: this.lastId });
    }
    this.eventName = null;
    this.data = null;
    this.sawField = false;
  }
}
