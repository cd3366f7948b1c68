import type { ServerResponse } from 'node:http';

/**
 * Holds back the end of a response until its settlement is durable (in the Redis stream, or
 * committed to the store), so a client that received a whole answer can count on its charge
 * being recorded even if the instance is killed right after. The body is written as usual; only
 * the final `end()` (the last bytes of a stream, or the whole of a JSON answer) waits. Returns the
 * function that lets it go; after `maxWaitMs` it goes by itself so nothing can hang on it.
 */
export function deferResponseEnd(raw: ServerResponse, maxWaitMs: number): () => void {
  const originalEnd = raw.end;
  let released = false;
  let deferred: unknown[] | null = null;
  let timer: NodeJS.Timeout | undefined;
  const release = () => {
    if (released) return;
    released = true;
    clearTimeout(timer);
    raw.end = originalEnd;
    if (deferred) (originalEnd as (...args: unknown[]) => ServerResponse).apply(raw, deferred);
  };
  raw.end = function (this: ServerResponse, ...args: unknown[]) {
    if (released || deferred) return (originalEnd as (...args: unknown[]) => ServerResponse).apply(raw, args);
    deferred = args;
    timer = setTimeout(release, maxWaitMs);
    return raw;
  } as ServerResponse['end'];
  return release;
}
