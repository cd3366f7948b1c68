import { describe, expect, it } from 'vitest';
import type { Auth } from './create-auth.js';
import { AccountsUnavailableError, authTablesStamp, lazyAuth, resolveAuthPackages } from './lazy-auth.js';

/** A stand-in for better-auth's object: what the gateway calls on it. */
function fakeAuth(): Auth {
  return {
    api: { getSession: async (input: unknown) => ({ session: 'ok', input }) },
    handler: async () => new Response('handled'),
    $context: Promise.resolve({ options: { emailAndPassword: {} } }),
    options: { baseURL: 'http://127.0.0.1' },
  } as unknown as Auth;
}

describe('lazyAuth', () => {
  it('loads on the first call, not before, and concurrent first calls share that one load', async () => {
    let loads = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const auth = lazyAuth(async () => {
      loads++;
      await gate;
      return fakeAuth();
    });
    expect(loads).toBe(0);
    const calls = [
      auth.api.getSession({ headers: new Headers() }),
      auth.handler(new Request('http://127.0.0.1/api-account/auth/ok')),
      auth.$context,
      auth.api.getSession({ headers: new Headers() }),
    ];
    release();
    const [session, response, context] = await Promise.all(calls);
    expect(loads).toBe(1);
    expect(session).toMatchObject({ session: 'ok' });
    expect(await (response as Response).text()).toBe('handled');
    expect(context).toMatchObject({ options: { emailAndPassword: {} } });
    // Synchronous members are the loaded object's once it is there; the stand-in is never a thenable.
    expect(auth.options).toEqual({ baseURL: 'http://127.0.0.1' });
    expect((auth as unknown as { then?: unknown }).then).toBeUndefined();
    await auth.api.getSession({ headers: new Headers() });
    expect(loads).toBe(1);
  });

  it('answers a failed load with a 503 that names the cause, keeps nothing, and loads again on the next call', async () => {
    let loads = 0;
    const logged: unknown[] = [];
    const auth = lazyAuth(
      async () => {
        loads++;
        if (loads === 1) throw new Error("Cannot find package 'better-auth'");
        return fakeAuth();
      },
      (error) => logged.push(error),
    );
    const first = await auth.api.getSession({ headers: new Headers() }).catch((error: unknown) => error);
    expect(first).toBeInstanceOf(AccountsUnavailableError);
    expect(first).toMatchObject({ status: 503, type: 'service_unavailable', code: 'accounts_unavailable' });
    expect((first as Error).message).toContain("Cannot find package 'better-auth'");
    expect((first as Error).message).toContain('npm ci');
    expect(logged).toHaveLength(1);
    await expect(auth.api.getSession({ headers: new Headers() })).resolves.toMatchObject({ session: 'ok' });
    expect(loads).toBe(2);
  });
});

describe('resolveAuthPackages and the tables stamp', () => {
  it('finds every accounts package without evaluating it, and names a missing one', () => {
    const files = resolveAuthPackages();
    expect(files).toHaveLength(5);
    expect(Symbol.for('better-auth:global') in globalThis).toBe(false);
    expect(() =>
      resolveAuthPackages((specifier) => {
        if (specifier === 'better-auth/plugins') throw new Error(`Cannot find module '${specifier}'`);
        return `/somewhere/${specifier}`;
      }),
    ).toThrow(/cannot find the accounts package better-auth\/plugins \(better-auth\): reinstall .*npm ci/);
  });

  it('names the installed versions and the options, so an upgrade or an edited option migrates again', () => {
    const stamp = authTablesStamp();
    expect(stamp).toMatch(
      /^better-auth@\d+\.\d+\.\d+\S* @better-auth\/kysely-adapter@\d+\.\d+\.\d+\S* options:[0-9a-f]{16}$/,
    );
    expect(authTablesStamp()).toBe(stamp);
  });
});
