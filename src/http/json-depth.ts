/** What one pass over JSON text found before it is parsed. */
export type JsonScan =
  /** Arrays and objects nest deeper than allowed. */
  | 'too-deep'
  /**
   * A key that is, or may be once its escapes are read, `__proto__` or `constructor`: the text
   * goes through the prototype-poisoning checks of secure-json-parse.
   */
  | 'suspect-key'
  /** Neither: plain JSON.parse is safe. */
  | 'plain';

/**
 * One pass over JSON text before it is parsed: whether it nests arrays and objects deeper than
 * `maxDepth`, and whether any key could poison a prototype. A body nested 20,000 deep parses,
 * but every recursive walk after that (schema validation, serialising it for the provider)
 * overflows the stack; bounding it here keeps such a body from reaching routing at all.
 * Brackets inside strings do not count. The keys are found on the same walk (a string followed
 * by a colon), which costs far less than secure-json-parse's two regular expressions over the
 * whole text (a 55 KB body: 107 µs of regex after a 41 µs parse).
 */
export function scanJson(text: string, maxDepth: number): JsonScan {
  let depth = 0;
  let suspect = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 34 /* " */) {
      const close = closingQuote(text, index);
      if (!suspect && isKey(text, close + 1) && mayPoison(text, index + 1, close)) suspect = true;
      index = close;
    } else if (code === 91 /* [ */ || code === 123 /* { */) {
      if (++depth > maxDepth) return 'too-deep';
    } else if (code === 93 /* ] */ || code === 125 /* } */) {
      depth--;
    }
  }
  return suspect ? 'suspect-key' : 'plain';
}

/** Whether JSON text nests arrays and objects deeper than `maxDepth` (see scanJson). */
export function exceedsJsonDepth(text: string, maxDepth: number): boolean {
  return scanJson(text, maxDepth) === 'too-deep';
}

/**
 * Whether the string between `start` and `end` may read `__proto__` or `constructor`: it does,
 * or it has the length of one with escapes left to read (a backslash anywhere: `\u005f_proto__`).
 */
function mayPoison(text: string, start: number, end: number): boolean {
  const length = end - start;
  if (length === 9 || length === 11) {
    const word = text.slice(start, end);
    if (word === '__proto__' || word === 'constructor') return true;
  }
  if (length < 9) return false;
  for (let index = start; index < end; index++) if (text.charCodeAt(index) === 92 /* \ */) return true;
  return false;
}

/** Whether a colon (after whitespace) follows: the string just closed is an object's key. */
function isKey(text: string, from: number): boolean {
  for (let index = from; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 58 /* : */) return true;
    if (code !== 32 && code !== 9 && code !== 10 && code !== 13) return false;
  }
  return false;
}

/**
 * Where the string opened at `open` ends (text.length if it never does). Strings are most of a
 * chat body (the prompt), so they are skipped with indexOf rather than walked a character at a
 * time: a quote ends the string unless an odd number of backslashes comes right before it.
 */
function closingQuote(text: string, open: number): number {
  for (let at = text.indexOf('"', open + 1); at !== -1; at = text.indexOf('"', at + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === 92 /* \ */) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
  return text.length;
}
