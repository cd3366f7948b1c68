import { ioredis } from '../store/ioredis-module.js';
import { isClusterUrl, parseClusterUrl } from '../store/redis-client.js';
import { request } from 'undici';
import { ConfigError } from '../config/load-config.js';
import type { GatewayConfig, ProviderConfig } from '../config/gateway-config.js';
import { openStore, describeDatabaseUrl } from '../store/database.js';
import { migrationsCheck, redisCheck, storeCheck } from '../observability/readiness-checks.js';
import { runReadinessChecks, type ReadinessCheck } from '../observability/health-routes.js';
import type { CliContext } from './cli-context.js';
import { createProviderRegistry, type ProviderRegistry } from '../providers/provider-registry.js';
import type { UpstreamHttpRequest } from '../providers/provider-adapter.js';
import { formatTable } from './users-command.js';

export interface DoctorRow {
  check: string;
  status: 'ok' | 'FAIL' | 'skip';
  detail: string;
}

/** How a provider's model-list call went, in the words the doctor's table uses. */
function describeModelListAnswer(httpStatus: number): { status: DoctorRow['status']; state: string } {
  if (httpStatus >= 200 && httpStatus < 300) return { status: 'ok', state: 'reachable and authenticated' };
  if (httpStatus === 401 || httpStatus === 403)
    return { status: 'FAIL', state: 'reachable but refused (the credentials were not accepted)' };
  if (httpStatus === 404)
    return { status: 'FAIL', state: 'reachable but refused (no model list there: check base_url)' };
  return { status: 'FAIL', state: 'reachable but failing' };
}

/** The number of models a model-list answer names (OpenAI `data`, Gemini `models`, Bedrock `modelSummaries`). */
function modelCount(text: string): number | undefined {
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    const list = body.data ?? body.models ?? body.modelSummaries;
    return Array.isArray(list) ? list.length : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The provider's own model-list call, with its credentials: a 2xx means reachable and
 * authenticated, 401/403/404 reachable but refused, no answer down.
 */
async function checkProvider(
  provider: ProviderConfig,
  registry: ProviderRegistry,
  timeoutMs: number,
): Promise<DoctorRow> {
  const check = `provider ${provider.id}`;
  const adapter = registry.get(provider.type);
  let call: UpstreamHttpRequest;
  try {
    if (!adapter?.buildModelListRequest) {
      call = { url: provider.baseUrl, method: 'GET', headers: { ...provider.headers }, body: '', warnings: [] };
    } else call = await adapter.buildModelListRequest(provider, new Date());
  } catch (error) {
    return { check, status: 'FAIL', detail: `misconfigured: ${(error as Error).message}` };
  }
  const where = `GET ${call.url.split('?')[0]}`;
  const started = Date.now();
  try {
    const response = await request(call.url, {
      method: 'GET',
      headers: call.headers,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.body.text();
    const { status, state } = describeModelListAnswer(response.statusCode);
    const count = status === 'ok' ? modelCount(text) : undefined;
    const models = count === undefined ? '' : `, ${count} model${count === 1 ? '' : 's'}`;
    return {
      check,
      status,
      detail: `${state}: HTTP ${response.statusCode} from ${where}${models} in ${Date.now() - started} ms`,
    };
  } catch (error) {
    const cause = error as { code?: string; name?: string; message?: string; cause?: { code?: string } };
    const reason =
      cause.name === 'TimeoutError' || cause.code === 'UND_ERR_HEADERS_TIMEOUT'
        ? `no answer within ${timeoutMs} ms`
        : (cause.code ?? cause.cause?.code ?? cause.message ?? String(error));
    return { check, status: 'FAIL', detail: `down: ${reason} (${where})` };
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
    const registry = createProviderRegistry();
    const store = openStore(config.databaseUrl);
    const options = { lazyConnect: true, enableOfflineQueue: false } as const;
    const clusterProbe = (cluster: ReturnType<typeof parseClusterUrl>, timeout: number) =>
      new (ioredis().Cluster)(cluster.nodes, {
        ...options,
        clusterRetryStrategy: () => null,
        redisOptions: {
          maxRetriesPerRequest: 0,
          connectTimeout: timeout,
          username: cluster.username,
          password: cluster.password,
          ...(cluster.tls ? { tls: {} } : {}),
        },
      });
    const redis = !config.redisUrl
      ? null
      : isClusterUrl(config.redisUrl)
        ? clusterProbe(parseClusterUrl(config.redisUrl), timeoutMs)
        : new (ioredis().Redis)(config.redisUrl, {
            ...options,
            maxRetriesPerRequest: 0,
            connectTimeout: timeoutMs,
            retryStrategy: () => null,
          });
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
        Promise.all(config.providers.map((provider) => checkProvider(provider, registry, timeoutMs))),
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
