import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// Nothing here may import create-auth (or a helper that does): this file's process must load
// better-auth only when the gateway under test does. The store is prepared by the CLI, in a child.
import { runGatewayCli } from '../helpers/gateway-cli.js';
import { startMockUpstream, type MockUpstream } from '../../src/mock-upstream/mock-upstream.js';
import { loadConfig } from '../../src/config/load-config.js';
import { createProviderRegistry } from '../../src/providers/provider-registry.js';
import { createLogger } from '../../src/shared/logger.js';
import { startGateway, type StartedGateway } from '../../src/gateway-runtime.js';

/** better-auth's core keeps its state on this process-wide symbol from the moment it is evaluated; zod its registry. */
const accountsLoaded = () => ({
  betterAuth: Symbol.for('better-auth:global') in globalThis,
  zod: '__zod_globalRegistry' in globalThis,
});
/** ioredis is CommonJS: what was required of it is in the require cache. */
const loadedIoredis = () =>
  Object.keys(createRequire(import.meta.url).cache).filter((file) => /[\\/]node_modules[\\/]ioredis[\\/]/.test(file));

let upstream: MockUpstream;
let dir: string;
let gateway: StartedGateway;
let apiKey: string;
const logs: string[] = [];

function configText(upstreamUrl: string): string {
  return `
providers:
  - id: mock
    type: openai
    base_url: ${upstreamUrl}
    api_key: upstream-secret
models:
  - id: test/chat
    endpoints:
      - provider: mock
        upstream_model: mock-model
        pricing: { prompt: 0.5, completion: 1.5 }
`;
}

beforeAll(async () => {
  upstream = await startMockUpstream();
  dir = mkdtempSync(join(tmpdir(), 'gateway-lazy-accounts-'));
  const where = ['--database-url', `sqlite:${join(dir, 'gateway.db')}`];
  // A store as a restarted gateway finds it: migrated (better-auth's tables too), with an account and a key.
  const user = await runGatewayCli(
    ['users', 'create', '--email', 'lazy@example.com', '--password', 'plum-orbit-42-lantern', ...where],
    {},
    dir,
  );
  expect(user.status, user.stderr).toBe(0);
  const key = await runGatewayCli(
    ['keys', 'create', '--email', 'lazy@example.com', '--name', 'lazy', ...where],
    {},
    dir,
  );
  expect(key.status, key.stderr).toBe(0);
  apiKey = key.stdout.match(/\b(sk-\S+)/)![1]!;

  const { config } = loadConfig({
    text: configText(upstream.url),
    env: { DATABASE_URL: `sqlite:${join(dir, 'gateway.db')}`, PORT: '0' },
    knownProviderTypes: [...createProviderRegistry().keys()],
  });
  config.server.port = 0;
  config.server.host = '127.0.0.1';
  const sink = new Writable({
    write(chunk, _encoding, callback) {
      logs.push(String(chunk));
      callback();
    },
  });
  gateway = await startGateway(config, createLogger('info', sink), { metering: false }, {});
}, 180_000);

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('accounts and ioredis loaded on first use (issue 31)', () => {
  it('serves /v1 on SQLite without loading better-auth or zod, then serves sign-up, sign-in and the session on first use', async () => {
    expect(accountsLoaded()).toEqual({ betterAuth: false, zod: false });
    const completion = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'test/chat', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(completion.status, await completion.clone().text()).toBe(200);
    expect((await completion.json()).choices[0].message.content).toBeTypeOf('string');
    expect(accountsLoaded()).toEqual({ betterAuth: false, zod: false });
    // No REDIS_URL: no Redis client, so ioredis is not loaded either.
    expect(loadedIoredis()).toEqual([]);

    // The routes were registered at start; their first request loads accounts.
    const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${gateway.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    const email = 'first-use@example.com';
    const signUp = await post('/api-account/auth/sign-up/email', { email, password: 'plum-orbit-42-lantern' });
    expect(signUp.status, await signUp.clone().text()).toBe(200);
    expect(accountsLoaded()).toEqual({ betterAuth: true, zod: true });
    const signIn = await post('/api-account/auth/sign-in/email', { email, password: 'plum-orbit-42-lantern' });
    expect(signIn.status).toBe(200);
    const { token } = (await signIn.json()) as { token: string };
    const session = await fetch(`${gateway.url}/api-account/auth/get-session`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(session.status).toBe(200);
    expect(((await session.json()) as { user: { email: string } }).user.email).toBe(email);
    // A route behind requireUser, and the account the CLI made before this start.
    const me = await fetch(`${gateway.url}/api-account/user/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(me.status, await me.clone().text()).toBe(200);
    const existing = await post('/api-account/auth/sign-in/email', {
      email: 'lazy@example.com',
      password: 'plum-orbit-42-lantern',
    });
    expect(existing.status).toBe(200);
    expect(gateway.runtime.applied).toEqual([]);
  });
});
