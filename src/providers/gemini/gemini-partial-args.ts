import type { GeminiPartialArg } from './gemini-types.js';

/**
 * Vertex AI's streamed function arguments (`partialArgs`): each fragment names a JSON path
 * (`$.location`, `$.items[0].name`) and a value; string fragments for one path are appended.
 * This rebuilds the argument object so the call can be passed on as one JSON string.
 */
export function applyPartialArgs(target: Record<string, unknown>, fragments: GeminiPartialArg[]): void {
  for (const fragment of fragments) {
    const path = parseJsonPath(fragment.jsonPath);
    if (path.length === 0) continue;
    let container: Record<string | number, unknown> = target;
    for (let step = 0; step < path.length - 1; step++) {
      const key = path[step];
      if (container[key] === undefined || container[key] === null || typeof container[key] !== 'object') {
        container[key] = typeof path[step + 1] === 'number' ? [] : {};
      }
      container = container[key] as Record<string | number, unknown>;
    }
    const last = path[path.length - 1];
    if (fragment.stringValue !== undefined) {
      const previous = container[last];
      container[last] = (typeof previous === 'string' ? previous : '') + fragment.stringValue;
    } else if (fragment.numberValue !== undefined) container[last] = fragment.numberValue;
    else if (fragment.boolValue !== undefined) container[last] = fragment.boolValue;
    else if ('nullValue' in fragment) container[last] = null;
  }
}

/** `$.a.b[2].c` → ['a', 'b', 2, 'c']. */
export function parseJsonPath(jsonPath: string): Array<string | number> {
  const path: Array<string | number> = [];
  const pattern = /\.([^.[\]]+)|\[(\d+)\]|\['([^']*)'\]/g;
  for (const match of jsonPath.replace(/^\$/, '').matchAll(pattern)) {
    if (match[1] !== undefined) path.push(match[1]);
    else if (match[2] !== undefined) path.push(Number(match[2]));
    else path.push(match[3]);
  }
  return path;
}
