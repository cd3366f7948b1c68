import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GatewayError } from '../shared/errors.js';
import type { Auth } from './create-auth.js';

/** Every package create-auth.ts imports from better-auth (resolved at start, evaluated on first use). */
const AUTH_PACKAGES = [
  'better-auth',
  'better-auth/plugins',
  'better-auth/db/migration',
  'better-auth/api',
  '@better-auth/kysely-adapter',
] as const;

/** A first use of accounts whose code could not be loaded: 503 in the account API's envelope, tried again next time. */
export class AccountsUnavailableError extends GatewayError {
  constructor(cause: unknown) {
    super(
      503,
      'service_unavailable',
      'accounts_unavailable',
      `Accounts are unavailable: their code (better-auth) could not be loaded (${(cause as Error)?.message ?? String(cause)}). Reinstall the gateway's dependencies (npm ci); the next request tries again.`,
      { cause },
    );
  }
}

/**
 * Where each accounts package's entry file is, found without evaluating any of it: a gateway whose
 * better-auth is missing still fails at start, with the package named, as it did when it was
 * imported at start. Returns the entry files.
 */
export function resolveAuthPackages(
  resolve: (specifier: string) => string = createRequire(import.meta.url).resolve,
): string[] {
  return AUTH_PACKAGES.map((specifier) => {
    try {
      return resolve(specifier);
    } catch (error) {
      throw new Error(
        `cannot find the accounts package ${specifier} (better-auth): reinstall the gateway's dependencies (npm ci): ${(error as Error).message}`,
        { cause: error },
      );
    }
  });
}

/** The version in the package.json nearest above a package's entry file. */
function packageVersion(entryFile: string, name: string): string {
  for (let dir = dirname(entryFile); dir !== dirname(dir); dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (!existsSync(file)) continue;
    const manifest = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
    if (manifest.name === name) return manifest.version ?? 'unknown';
  }
  return 'unknown';
}

/**
 * What better-auth's tables depend on, without loading it: the versions of better-auth and its
 * Kysely adapter, and the text of create-auth (the options: plugins, additional user fields).
 * Stored once the tables are migrated; a serving start that finds the same stamp skips
 * better-auth's migration check (which would load it) and loads accounts on first use instead.
 * Any change (an upgrade, an edited option) makes the next start migrate as before.
 */
export function authTablesStamp(entryFiles: string[] = resolveAuthPackages()): string {
  const here = dirname(fileURLToPath(import.meta.url));
  // dist/ holds create-auth.js; the sources (tests) create-auth.ts.
  const source = ['create-auth.js', 'create-auth.ts'].map((name) => join(here, name)).find((file) => existsSync(file));
  const options = source ? createHash('sha256').update(readFileSync(source)).digest('hex').slice(0, 16) : 'unknown';
  return [
    `better-auth@${packageVersion(entryFiles[0]!, 'better-auth')}`,
    `@better-auth/kysely-adapter@${packageVersion(entryFiles[AUTH_PACKAGES.length - 1]!, '@better-auth/kysely-adapter')}`,
    `options:${options}`,
  ].join(' ');
}

/**
 * Accounts (better-auth and zod, ~11 MB of heap) loaded on first use rather than at start: a
 * gateway serving only `/v1` never needs them. The object stands in for `Auth` in every
 * asynchronous use (each `api` endpoint, the request handler, `$context`): the first call loads,
 * concurrent first calls share that one load, and a failed load is not kept (the next call tries
 * again) and throws AccountsUnavailableError. Synchronous members (`options`) exist once loaded.
 */
export function lazyAuth(load: () => Promise<Auth>, onLoadError?: (error: unknown) => void): Auth {
  let loaded: Auth | undefined;
  let loading: Promise<Auth> | undefined;
  const get = (): Promise<Auth> =>
    loaded
      ? Promise.resolve(loaded)
      : (loading ??= load().then(
          (auth) => (loaded = auth),
          (error: unknown) => {
            loading = undefined;
            onLoadError?.(error);
            throw new AccountsUnavailableError(error);
          },
        ));
  const api = new Proxy(
    {},
    {
      get(_target, name) {
        if (typeof name !== 'string' || name === 'then') return undefined;
        return (...args: unknown[]) =>
          get().then((auth) => (auth.api as Record<string, (...a: unknown[]) => unknown>)[name]!(...args));
      },
    },
  );
  const standIn = {
    api,
    handler: (request: Request) => get().then((auth) => auth.handler(request)),
    get $context() {
      return get().then((auth) => auth.$context);
    },
  };
  return new Proxy(standIn, {
    get(target, property, receiver) {
      if (property in target) return Reflect.get(target, property, receiver) as unknown;
      // Not a thenable: an `await` of the object itself must not take it for a promise.
      if (property === 'then') return undefined;
      return loaded === undefined ? undefined : (Reflect.get(loaded, property) as unknown);
    },
  }) as unknown as Auth;
}
