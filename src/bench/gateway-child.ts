/**
 * The gateway in a process of its own, booted exactly as `gateway serve` boots it (startGateway:
 * migrations, accounts, auth on), for the benchmark (which reads this process's own CPU time and
 * memory from the kernel) and for the tests that SIGKILL it (test/helpers/child-gateway.ts): the one
 * child-gateway entry point. It reports { url, apiKey? } over IPC and stops on a 'stop' message or
 * when its parent goes (which also writes a --cpu-prof profile).
 *
 * Environment: CHILD_CONFIG (the config file text; without it, the benchmark's config for
 * BENCH_UPSTREAM_URL, and a user with a real API key, reported as apiKey), DATABASE_URL, REDIS_URL,
 * PGOPTIONS (a schema of its own), CHILD_REDIS_PREFIX (the Redis key prefix), BENCH_METERING=on|off
 * (on: usage events, credits required and granted, a key with rpm/tpm limits).
 */
import { loadConfig } from '../config/load-config.js';
import { createProviderRegistry } from '../providers/provider-registry.js';
import { createLogger } from '../shared/logger.js';
import { startGateway } from '../gateway-runtime.js';
import { createUser } from '../users/create-user.js';
import { createApiKey } from '../keys/create-api-key.js';
import { randomIdGenerator } from '../shared/ids.js';
import type { AppDeps } from '../app.js';
import { applyLedgerEntry } from '../credits/credit-ledger.js';
import { benchGatewayConfigText } from './bench-gateway-config.js';

/** The one place where "metering on/off" becomes an app option: on is the app's default. */
function meteringOverrides(enabled: boolean): Partial<AppDeps> {
  return enabled ? {} : { metering: false };
}

// Two gateways on the same Redis are up at once during the benchmark's rounds (and in the tests):
// each keeps its keys (hot counters, settlement stream, windows, breakers) under a prefix of its own.
const redisPrefix = process.env.CHILD_REDIS_PREFIX ? { redisKeyPrefix: process.env.CHILD_REDIS_PREFIX } : {};

const metering = process.env.BENCH_METERING !== 'off';

const configText = process.env.CHILD_CONFIG ?? benchConfigText();
const { config } = loadConfig({
  text: configText,
  env: { ...process.env, HOST: '127.0.0.1', PORT: '0' },
  knownProviderTypes: [...createProviderRegistry().keys()],
});
const logger = createLogger(config.server.logLevel);
const gateway = await startGateway(config, logger, { ...meteringOverrides(metering), ...redisPrefix });
// BENCH_API_KEY: the key an earlier process made on this store (bench-processes.ts: a restarted gateway).
const apiKey = process.env.BENCH_API_KEY || (process.env.CHILD_CONFIG === undefined ? await benchApiKey() : undefined);

function benchConfigText(): string {
  const upstreamUrl = process.env.BENCH_UPSTREAM_URL;
  if (!upstreamUrl) throw new Error('neither CHILD_CONFIG nor BENCH_UPSTREAM_URL is set');
  return benchGatewayConfigText(upstreamUrl);
}

/** The benchmark's user and key. */
async function benchApiKey(): Promise<string> {
  const { auth, store } = gateway.runtime;
  const user = await createUser(auth, store, {
    email: `bench-${randomIdGenerator.next('').toLowerCase()}@example.com`,
    password: 'benchmark-password',
  });
  // Metering on means the whole path: credits held and charged, and a key with rpm/tpm limits
  // (high enough never to refuse, so every request pays for checking them).
  if (metering)
    await applyLedgerEntry(store, {
      userId: user.id,
      kind: 'grant',
      amount: 100_000 * 1_000_000_000,
      reference: 'benchmark',
    });
  const limits = metering ? { rpmLimit: 100_000_000, tpmLimit: 100_000_000_000 } : {};
  const { fullKey } = await createApiKey(store, randomIdGenerator, Date.now(), {
    userId: user.id,
    name: 'benchmark',
    ...limits,
  });
  return fullKey;
}

process.send?.({ type: 'ready', url: gateway.url, apiKey });
let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await gateway.close().catch((error: unknown) => logger.error({ err: error }, 'error while stopping'));
  process.exit(0);
};
process.on('message', (message: { type?: string }) => {
  if (message?.type === 'stop') void stop();
});
process.on('disconnect', () => void stop());
