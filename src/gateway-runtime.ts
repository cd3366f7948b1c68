import type { Logger } from 'pino';
import { buildApp, type AppDeps, type GatewayApp } from './app.js';
import type { GatewayConfig } from './config/gateway-config.js';
import { openStore, type Store } from './store/database.js';
import { migrateToLatest } from './store/migrate.js';
import { createAuth, migrateAuthTables, resolveAuthSecret, type Auth } from './users/create-auth.js';
import { systemClock } from './shared/clock.js';
import { stripeSettingsFromEnvironment } from './billing/stripe-payment-provider.js';

export interface Runtime {
  store: Store;
  auth: Auth;
  /** The installation's secret (better-auth, signed links). */
  secret: string;
  /** Migrations applied by this call (ours and better-auth's). */
  applied: string[];
}

/** Opens the store named by the config, brings its schema up to date and sets up accounts. */
export async function openRuntime(
  config: GatewayConfig,
  env: Record<string, string | undefined> = process.env,
): Promise<Runtime> {
  const store = openStore(config.databaseUrl);
  try {
    const { applied } = await migrateToLatest(store);
    const secret = await resolveAuthSecret(store, env, systemClock.now());
    const auth = createAuth(store, secret, { baseUrl: config.server.publicUrl });
    const authApplied = await migrateAuthTables(auth);
    return { store, auth, secret, applied: [...applied, ...authApplied] };
  } catch (error) {
    await store.destroy().catch(() => undefined);
    throw error;
  }
}

export interface StartedGateway extends GatewayApp {
  runtime: Runtime;
  url: string;
}

/** Everything `gateway serve` does before listening, reusable by tests and benchmarks. */
export async function startGateway(
  config: GatewayConfig,
  logger: Logger,
  overrides: Partial<AppDeps> = {},
  env: Record<string, string | undefined> = process.env,
): Promise<StartedGateway> {
  const runtime = await openRuntime(config, env);
  const stripe = stripeSettingsFromEnvironment(env);
  const gateway = await buildApp({
    config,
    store: runtime.store,
    logger,
    auth: runtime.auth,
    secret: runtime.secret,
    stripe,
    ...overrides,
  });
  const address = await gateway.app.listen({ host: config.server.host, port: config.server.port });
  return {
    ...gateway,
    runtime,
    url: address,
    async close() {
      await gateway.close();
      await runtime.store.destroy();
    },
  };
}
