/**
 * Whether JSON text nests arrays and objects deeper than `maxDepth`, found by one pass over the
 * text before it is parsed. A body nested 20,000 deep parses, but every recursive walk after
 * that (schema validation, serialising it for the provider) overflows the stack; bounding it
 * here keeps such a body from reaching routing at all. Brackets inside strings do not count.
 */
export function exceedsJsonDepth(text: string, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 92 /* \ */) index++;
      else if (code === 34 /* " */) inString = false;
    } else if (code === 34) {
      inString = true;
    } else if (code === 91 /* [ */ || code === 123 /* { */) {
      if (++depth > maxDepth) return true;
    } else if (code === 93 /* ] */ || code === 125 /* } */) {
      depth--;
    }
  }
  return false;
}
