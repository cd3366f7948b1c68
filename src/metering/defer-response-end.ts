import type { ServerResponse } from 'node:http';

/**
 * Holds back the end of a response until its settlement is durable (in the Redis stream, or
 * committed to the store), so a client that received a whole answer can count on its charge
 * being recorded even if the instance is killed right after. The body is written as usual; only
 * the final `end()` (the last bytes of a stream, or the whole of a JSON answer) waits. Returns the
 * function that lets it go; after `maxWaitMs` it goes by itself so nothing can hang on it.
 *
 * Once let go, the function forgets the response and the held arguments (the whole JSON answer):
 * it is kept in hash tables that outlive the request (metering's `endsAwaitingWrite` and its
 * `requests` WeakMap), and V8 leaves a grown or shrunk table's old copy in the old generation,
 * still pointing at what it held, until the next full collection. A function that still reached
 * the response made every scavenge in between keep and promote whole answers (docs/benchmarks.md,
 * "promotion").
 */
export function deferResponseEnd(raw: ServerResponse, maxWaitMs: number): () => void {
  const originalEnd = raw.end as (...args: unknown[]) => ServerResponse;
  let response: ServerResponse | null = raw;
  let released = false;
  let deferred: unknown[] | null = null;
  let timer: NodeJS.Timeout | undefined;
  const release = () => {
    if (released) return;
    released = true;
    clearTimeout(timer);
    timer = undefined;
    const target = response!;
    const args = deferred;
    response = null;
    deferred = null;
    target.end = originalEnd as ServerResponse['end'];
    if (args) originalEnd.apply(target, args);
  };
  raw.end = function (this: ServerResponse, ...args: unknown[]) {
    if (released || deferred) return originalEnd.apply(this, args);
    deferred = args;
    timer = setTimeout(release, maxWaitMs);
    return this;
  } as ServerResponse['end'];
  return release;
}
