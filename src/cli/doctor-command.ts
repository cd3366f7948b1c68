import { Redis } from 'ioredis';
import { request } from 'undici';
import { ConfigError } from '../config/load-config.js';
import type { GatewayConfig, ProviderConfig } from '../config/gateway-config.js';
import { openStore, describeDatabaseUrl } from '../store/database.js';
import { migrationsCheck, redisCheck, storeCheck } from '../observability/readiness-checks.js';
import { runReadinessChecks, type ReadinessCheck } from '../observability/health-routes.js';
import type { CliContext } from './cli-context.js';
import { formatTable } from './users-command.js';

export interface DoctorRow {
  check: string;
  status: 'ok' | 'FAIL' | 'skip';
  detail: string;
}

/** Any HTTP answer means the provider is reachable (401 without a key is still an answer). */
async function providerReachable(provider: ProviderConfig, timeoutMs: number): Promise<DoctorRow> {
  const check = `provider ${provider.id}`;
  const started = Date.now();
  try {
    const response = await request(provider.baseUrl, {
      method: 'GET',
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.body.dump();
    return {
      check,
      status: 'ok',
      detail: `HTTP ${response.statusCode} from ${provider.baseUrl} in ${Date.now() - started} ms`,
    };
  } catch (error) {
    const cause = error as { code?: string; name?: string; message?: string; cause?: { code?: string } };
    const reason =
      cause.name === 'TimeoutError' || cause.code === 'UND_ERR_HEADERS_TIMEOUT'
        ? `no answer within ${timeoutMs} ms`
        : (cause.code ?? cause.cause?.code ?? cause.message ?? String(error));
    return { check, status: 'FAIL', detail: `${reason} (${provider.baseUrl})` };
  }
}

/**
 * `gateway doctor`: config, store, migrations, Redis and every provider, checked at once without
 * changing anything (no migration is run), as a table. Exit status 1 when a check failed.
 */
export async function runDoctor(
  context: CliContext,
  timeoutMs: number,
): Promise<{ rows: DoctorRow[]; ok: boolean; table: string }> {
  const rows: DoctorRow[] = [];
  let config: GatewayConfig | null = null;
  try {
    config = context.loadConfig();
    rows.push({
      check: 'config',
      status: 'ok',
      detail: `${config.source}: ${config.providers.length} providers, ${config.models.length} models`,
    });
  } catch (error) {
    rows.push({
      check: 'config',
      status: 'FAIL',
      detail: error instanceof ConfigError ? error.message : String(error),
    });
  }
  if (config) {
    const store = openStore(config.databaseUrl);
    const redis = config.redisUrl
      ? new Redis(config.redisUrl, {
          lazyConnect: true,
          enableOfflineQueue: false,
          maxRetriesPerRequest: 0,
          connectTimeout: timeoutMs,
          retryStrategy: () => null,
        })
      : null;
    redis?.on('error', () => undefined);
    try {
      const checks: ReadinessCheck[] = [storeCheck(store), migrationsCheck(store)];
      if (redis)
        checks.push(
          redisCheck(async () => {
            await redis.connect();
            await redis.ping();
          }),
        );
      const [readiness, providers] = await Promise.all([
        runReadinessChecks(checks, timeoutMs),
        Promise.all(config.providers.map((provider) => providerReachable(provider, timeoutMs))),
      ]);
      const detailOf = (name: string, okDetail: string) =>
        readiness.checks[name] === 'ok' ? okDetail : readiness.checks[name];
      const statusOf = (name: string) => (readiness.checks[name] === 'ok' ? 'ok' : 'FAIL') as DoctorRow['status'];
      rows.push({ check: 'store', status: statusOf('store'), detail: detailOf('store', store.description) });
      rows.push({
        check: 'migrations',
        status: readiness.checks.store === 'ok' ? statusOf('migrations') : 'skip',
        detail: readiness.checks.store === 'ok' ? detailOf('migrations', 'all applied') : 'the store is not reachable',
      });
      rows.push(
        redis
          ? { check: 'redis', status: statusOf('redis'), detail: detailOf('redis', describeRedis(config.redisUrl!)) }
          : { check: 'redis', status: 'skip', detail: 'REDIS_URL is not set (limits and breakers are per process)' },
      );
      if (providers.length === 0)
        rows.push({
          check: 'providers',
          status: 'FAIL',
          detail: 'none configured (set OPENAI_API_KEY or write gateway.config.yaml)',
        });
      rows.push(...providers);
    } finally {
      redis?.disconnect();
      await store.destroy().catch(() => undefined);
    }
  } else {
    rows.push({
      check: 'store',
      status: 'skip',
      detail: `no config (${describeDatabaseUrl(context.env.DATABASE_URL ?? 'sqlite:./data/gateway.db')})`,
    });
  }
  const table = formatTable(
    ['CHECK', 'STATUS', 'DETAIL'],
    rows.map((row) => [row.check, row.status, row.detail]),
  );
  return { rows, ok: rows.every((row) => row.status !== 'FAIL'), table };
}

function describeRedis(url: string): string {
  return url.replace(/:[^:@/]*@/, ':***@');
}
