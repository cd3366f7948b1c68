/**
 * Whether JSON text nests arrays and objects deeper than `maxDepth`, found by one pass over the
 * text before it is parsed. A body nested 20,000 deep parses, but every recursive walk after
 * that (schema validation, serialising it for the provider) overflows the stack; bounding it
 * here keeps such a body from reaching routing at all. Brackets inside strings do not count.
 */
export function exceedsJsonDepth(text: string, maxDepth: number): boolean {
  let depth = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 34 /* " */) {
      index = closingQuote(text, index);
    } else if (code === 91 /* [ */ || code === 123 /* { */) {
      if (++depth > maxDepth) return true;
    } else if (code === 93 /* ] */ || code === 125 /* } */) {
      depth--;
    }
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
