import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * better-auth keeps per-call state (adapter, transaction, endpoint and request context) in
 * AsyncLocalStorage instances. On Node 20 the first `run()` of any of them turns on the async
 * hooks for the whole process, for good: from the first sign-in on, every promise of every
 * `/v1` request paid for context tracking that nothing on that path reads (measured: an `await`
 * costs ~2.9 times as much with them on; 4–5 % of the gateway's CPU under load).
 *
 * So every call into better-auth runs in a counted scope, and when the last one in flight ends
 * its storages are disabled again; the next call's `run()` enables them as needed. Disabling
 * only when nothing is in flight matters: a transaction that lost its storage mid-way would send
 * its next query outside the transaction (on SQLite, to wait behind itself for ever).
 */
let inFlight = 0;

const GLOBAL = Symbol.for('better-auth:global');

/** better-auth's AsyncLocalStorage instances (kept on a process-wide object of its own). */
export function betterAuthStorages(): AsyncLocalStorage<unknown>[] {
  const context = (globalThis as Record<symbol, { context?: Record<string, unknown> } | undefined>)[GLOBAL]?.context;
  return Object.values(context ?? {}).filter(
    (value): value is AsyncLocalStorage<unknown> => value instanceof AsyncLocalStorage,
  );
}

/** Runs one call into better-auth; the last call to end turns its context tracking off. */
async function inAuthScope<T>(call: () => Promise<T> | T): Promise<T> {
  inFlight++;
  try {
    return await call();
  } finally {
    if (--inFlight === 0) for (const storage of betterAuthStorages()) storage.disable();
  }
}

interface AuthLike {
  api: object;
  handler: (request: Request) => Promise<Response>;
  $context: Promise<unknown>;
}

/**
 * The auth object with every entry point scoped: each `api` endpoint and the request handler.
 * `$context` (better-auth's internal adapter) is reached through withAuthContext only.
 */
export function scopeAuthCalls<A extends AuthLike>(auth: A): A {
  const api = new Proxy(auth.api, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => inAuthScope(() => (value as (...a: unknown[]) => unknown).apply(target, args));
    },
  });
  const handler = (request: Request) => inAuthScope(() => auth.handler(request));
  return new Proxy(auth, {
    get(target, property, receiver) {
      if (property === 'api') return api;
      if (property === 'handler') return handler;
      return Reflect.get(target, property, receiver) as unknown;
    },
  });
}

/** better-auth's internal context (its adapter), for the few writes our code makes through it, in a scope. */
export function withAuthContext<A extends AuthLike, T>(
  auth: A,
  use: (context: Awaited<A['$context']>) => Promise<T>,
): Promise<T> {
  return inAuthScope(async () => use((await auth.$context) as Awaited<A['$context']>));
}
