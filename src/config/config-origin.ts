import { isMap, isPair, isScalar, isSeq, type Document, type LineCounter } from 'yaml';

/** Where the config file wrote each field: the file's name and `dotted.path[0]` → line. */
export interface ConfigOrigin {
  file: string;
  lines: ReadonlyMap<string, number>;
}

/** Joins a field path the way messages show it: `models[0].endpoints[1].pricing`. */
export function joinFieldPath(parent: string, segment: string | number): string {
  if (typeof segment === 'number') return `${parent}[${segment}]`;
  return parent ? `${parent}.${segment}` : segment;
}

/** Every field and list item of the document with the line it starts on. */
export function originOfDocument(document: Document, lineCounter: LineCounter, file: string): ConfigOrigin {
  const lines = new Map<string, number>();
  const lineAt = (offset: number | undefined) => (offset === undefined ? undefined : lineCounter.linePos(offset).line);
  const walk = (node: unknown, path: string): void => {
    if (isMap(node)) {
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        const key = isScalar(pair.key) ? String(pair.key.value) : undefined;
        if (key === undefined) continue;
        const field = joinFieldPath(path, key);
        const line = lineAt((pair.key as { range?: [number, number, number] }).range?.[0]);
        if (line !== undefined) lines.set(field, line);
        walk(pair.value, field);
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, index) => {
        const field = joinFieldPath(path, index);
        const line = lineAt((item as { range?: [number, number, number] } | null)?.range?.[0]);
        if (line !== undefined) lines.set(field, line);
        walk(item, field);
      });
    }
  };
  walk(document.contents, '');
  return { file, lines };
}

/** The line of a field, or of the nearest enclosing one the file has (a missing field's parent). */
export function lineOfField(origin: ConfigOrigin | undefined, field: string): number | undefined {
  if (!origin) return undefined;
  let path = field;
  while (path) {
    const line = origin.lines.get(path);
    if (line !== undefined) return line;
    path = path.replace(/(\[\d+\]|\.?[^.[\]]+)$/, '');
  }
  return undefined;
}

/**
 * A feature receives only its own section (`config.sections.billing`), so the section carries its
 * origin itself, out of sight of validators and spreads (a non-enumerable symbol key): every parser
 * can then name the file and line without the file being threaded through each feature's deps.
 */
const ORIGIN = Symbol('config origin');

export function attachOrigin(section: object, origin: ConfigOrigin): void {
  Object.defineProperty(section, ORIGIN, { value: origin, enumerable: false });
}

export function originOf(section: unknown): ConfigOrigin | undefined {
  return section !== null && typeof section === 'object' ? (section as { [ORIGIN]?: ConfigOrigin })[ORIGIN] : undefined;
}
