import { Writable } from 'node:stream';
import type { Logger } from 'pino';
import { buildApp, type AppDeps, type GatewayApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/load-config.js';
import type { GatewayConfig } from '../../src/config/gateway-config.js';
import { createAuth, migrateAuthTables, type Auth } from '../../src/users/create-auth.js';
import { createUser } from '../../src/users/create-user.js';
import type { Mailer } from '../../src/users/mailer.js';
import { createApiKey, type NewApiKey } from '../../src/keys/create-api-key.js';
import { createLogger } from '../../src/shared/logger.js';
import { randomIdGenerator } from '../../src/shared/ids.js';
import { createProviderRegistry } from '../../src/providers/provider-registry.js';
import { createTestStore, type StoreKind, type TestStore } from './test-store.js';

/** A config with one OpenAI-compatible provider at `upstreamUrl` serving `test/chat` (and more, if given). */
export function testConfigText(upstreamUrl: string, extra = ''): string {
  return `
server:
  body_limit_bytes: 65536
providers:
  - id: mock
    name: Mock AI
    type: openai
    base_url: ${upstreamUrl}
    api_key: upstream-secret
    timeouts: { connect_ms: 1000, first_byte_ms: 2000, idle_ms: 1500, total_ms: 5000 }
models:
  - id: test/chat
    name: Test Chat
    input_modalities: [text, image]
    output_modalities: [text]
    endpoints:
      - provider: mock
        upstream_model: mock-model
        pricing: { prompt: 0.5, completion: 1.5 }
        context_length: 128000
${extra}`;
}

export interface TestGateway {
  gateway: GatewayApp;
  config: GatewayConfig;
  testStore: TestStore;
  auth: Auth;
  /** http://127.0.0.1:PORT */
  url: string;
  /** The /v1 base URL for the openai SDK. */
  baseURL: string;
  userId: string;
  /** The test user's email (password: plum-orbit-42-lantern), for signing in to the account API. */
  email: string;
  /** A full API key of the test user. */
  apiKey: string;
  /** Every log line written during the test, as text. */
  logs: string[];
  createKey(input?: Partial<NewApiKey>): Promise<string>;
  close(): Promise<void>;
}

export interface TestGatewayOptions {
  configText: string;
  storeKind?: StoreKind;
  /** Share an existing store (a second instance) instead of creating one. */
  testStore?: TestStore;
  deps?: Partial<AppDeps>;
  /** Environment seen by the config loader (e.g. REDIS_URL); empty by default. */
  env?: Record<string, string>;
  /** Port to listen on (a browser test fixes it to match server.public_url); a free one by default. */
  port?: number;
  /** Where password-reset mails go (a capturing mailer, or SMTP to a local server); none by default. */
  mailer?: Mailer;
}

export async function startTestGateway(options: TestGatewayOptions): Promise<TestGateway> {
  const { config } = loadConfig({
    text: options.configText,
    env: options.env ?? {},
    knownProviderTypes: [...createProviderRegistry().keys()],
  });
  // Charging is on by default (CONTRACT §5). Tests that are not about credits would all need a
  // balance, so the shared helper turns it off unless the config says otherwise: tests about
  // credits set billing.require_credits explicitly. This is the one place that decides it.
  config.sections.billing = { require_credits: false, ...config.sections.billing };
  const testStore = options.testStore ?? (await createTestStore(options.storeKind ?? 'sqlite'));
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, callback) {
      logs.push(String(chunk));
      callback();
    },
  });
  const logger: Logger = createLogger('info', sink);
  // The same base URL as production's runtime, so better-auth's origin check sees what it sees there.
  const auth = createAuth(testStore.store, 'test-secret-test-secret-test-secret', {
    baseUrl: config.server.publicUrl,
    mailer: options.mailer,
    onMailError: (error) => logger.error({ err: error }, 'could not send a mail (password reset or email change)'),
  });
  await migrateAuthTables(auth, testStore.store);
  const gateway = await buildApp({
    config,
    store: testStore.store,
    logger,
    auth,
    keyCacheOptions: { pollIntervalMs: 100 },
    ...options.deps,
  });
  const url = await gateway.app.listen({ host: '127.0.0.1', port: options.port ?? 0 });
  const email = `user-${randomIdGenerator.next('').toLowerCase()}@example.com`;
  const user = await createUser(auth, testStore.store, { email, password: 'plum-orbit-42-lantern' });
  const createKey = async (input: Partial<NewApiKey> = {}) =>
    (
      await createApiKey(testStore.store, randomIdGenerator, Date.now(), {
        userId: user.id,
        name: 'test key',
        ...input,
      })
    ).fullKey;
  const apiKey = await createKey();
  return {
    gateway,
    config,
    testStore,
    auth,
    url,
    baseURL: `${url}/v1`,
    userId: user.id,
    email,
    apiKey,
    logs,
    createKey,
    async close() {
      await gateway.close();
      if (!options.testStore) await testStore.cleanup();
    },
  };
}
