/**
 * A gateway in a process of its own for tests that kill it (SIGKILL): booted as `gateway serve`
 * boots it, on the store, Redis and key prefix the test names. Reports { url } over IPC.
 *
 * Environment: CHILD_CONFIG (the config file text), DATABASE_URL, PGOPTIONS (the test's schema),
 * REDIS_URL, CHILD_REDIS_PREFIX.
 */
import { loadConfig } from '../../src/config/load-config.js';
import { createProviderRegistry } from '../../src/providers/provider-registry.js';
import { createLogger } from '../../src/shared/logger.js';
import { startGateway } from '../../src/gateway-runtime.js';

const { config } = loadConfig({
  text: process.env.CHILD_CONFIG ?? '',
  env: { ...process.env, HOST: '127.0.0.1', PORT: '0' },
  knownProviderTypes: [...createProviderRegistry().keys()],
});
const logger = createLogger('warn');
const gateway = await startGateway(config, logger, { redisKeyPrefix: process.env.CHILD_REDIS_PREFIX });
process.send?.({ type: 'ready', url: gateway.url });
process.on('message', (message: { type?: string }) => {
  if (message?.type === 'stop') void gateway.close().finally(() => process.exit(0));
});
