/**
 * Newline-delimited JSON framing (Ollama's native API): bytes in, one parsed value per line out.
 * Lines may be split across reads at any byte, including inside a UTF-8 character; blank lines
 * and CRLF endings are tolerated. A line that is not JSON is an error, never skipped.
 */
export class NdjsonFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NdjsonFormatError';
  }
}

export class NdjsonDecoder {
  private readonly textDecoder = new TextDecoder();
  private buffer = '';

  push(bytes: Uint8Array): unknown[] {
    this.buffer += this.textDecoder.decode(bytes, { stream: true });
    const values: unknown[] = [];
    let newline = this.buffer.indexOf('\n');
    while (newline !== -1) {
      this.parseLine(this.buffer.slice(0, newline), values);
      this.buffer = this.buffer.slice(newline + 1);
      newline = this.buffer.indexOf('\n');
    }
    return values;
  }

  /** A last line without a newline still counts; a partial JSON value is an error. */
  end(): unknown[] {
    this.buffer += this.textDecoder.decode();
    const values: unknown[] = [];
    this.parseLine(this.buffer, values);
    this.buffer = '';
    return values;
  }

  private parseLine(line: string, values: unknown[]): void {
    const trimmed = line.trim();
    if (trimmed === '') return;
    try {
      values.push(JSON.parse(trimmed));
    } catch {
      throw new NdjsonFormatError(`a line is not JSON: ${trimmed.slice(0, 80)}`);
    }
  }
}
