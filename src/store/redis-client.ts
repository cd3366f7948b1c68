import type { Cluster, ClusterNode, Redis } from 'ioredis';
import { ioredis } from './ioredis-module.js';
import { DEFAULT_REDIS_SETTINGS, type RedisSettings } from '../config/gateway-config.js';
import { openRedis, type GatewayRedisOptions } from './open-redis.js';

/**
 * The installation's Redis as features see it: one server (REDIS_URL=redis://…) or a Redis
 * Cluster (REDIS_URL=redis+cluster://host:port,host:port,…). Both run the same commands and
 * scripts; every multi-key script hash-tags its keys so they share one slot (docs/deploy.md).
 */
export type RedisClient = Redis | Cluster;

const CLUSTER_SCHEMES = ['redis+cluster:', 'rediss+cluster:'];

/** REDIS_URL names a cluster: `redis+cluster://[user:password@]host:port,host:port/` (rediss+cluster: TLS). */
export function isClusterUrl(url: string): boolean {
  return CLUSTER_SCHEMES.some((scheme) => url.startsWith(`${scheme}//`));
}

/** The installation's Redis from REDIS_URL: a server or a cluster (see isClusterUrl). */
export function openRedisClient(url: string, timeouts: RedisSettings = DEFAULT_REDIS_SETTINGS): RedisClient {
  return isClusterUrl(url) ? openRedisCluster(url, timeouts) : openRedis(url, timeouts);
}

/**
 * A Cluster client with the same fail-fast behaviour as openRedis on every node connection: a
 * short command timeout, nothing queued while disconnected, nothing resent after a reconnect,
 * background reconnects. (The lag-aware timeout of GatewayRedis is not applied to cluster node
 * connections: ioredis builds those itself.)
 */
function openRedisCluster(url: string, timeouts: RedisSettings = DEFAULT_REDIS_SETTINGS): Cluster {
  const { nodes, username, password, tls } = parseClusterUrl(url);
  const cluster = new (ioredis().Cluster)(nodes, {
    lazyConnect: true,
    enableOfflineQueue: false,
    // Slots are found again in the background when a node moves or comes back.
    clusterRetryStrategy: (times) => Math.min(times * 200, 2_000),
    slotsRefreshTimeout: timeouts.connectTimeoutMs,
    redisOptions: {
      commandTimeout: timeouts.commandTimeoutMs,
      connectTimeout: timeouts.connectTimeoutMs,
      autoResendUnfulfilledCommands: false,
      maxRetriesPerRequest: 1,
      ...(username ? { username } : {}),
      ...(password ? { password } : {}),
      ...(tls ? { tls: {} } : {}),
    },
  });
  cluster.on('error', () => undefined);
  return cluster;
}

/** A cluster URL's password (undefined: none), or null when the URL is not a cluster URL (or is bad). */
export function redisUrlPassword(url: string): string | undefined | null {
  if (!isClusterUrl(url)) return null;
  try {
    return parseClusterUrl(url).password;
  } catch {
    return null;
  }
}

export function parseClusterUrl(url: string): {
  nodes: ClusterNode[];
  username?: string;
  password?: string;
  tls: boolean;
} {
  const scheme = CLUSTER_SCHEMES.find((candidate) => url.startsWith(`${candidate}//`));
  if (!scheme) throw new Error(`not a Redis Cluster URL (redis+cluster://host:port,…): ${url}`);
  let rest = url.slice(scheme.length + 2).replace(/\/.*$/, '');
  let username: string | undefined;
  let password: string | undefined;
  const at = rest.lastIndexOf('@');
  if (at >= 0) {
    const credentials = rest.slice(0, at);
    rest = rest.slice(at + 1);
    const colon = credentials.indexOf(':');
    username = decodeURIComponent(colon >= 0 ? credentials.slice(0, colon) : credentials) || undefined;
    password = colon >= 0 ? decodeURIComponent(credentials.slice(colon + 1)) : undefined;
  }
  const nodes = rest
    .split(',')
    .filter((node) => node !== '')
    .map((node) => {
      const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(node);
      if (!match) throw new Error(`bad Redis Cluster node "${node}" in REDIS_URL (host:port expected)`);
      return { host: match[1].replace(/^\[|\]$/g, ''), port: match[2] ? Number(match[2]) : 6379 };
    });
  if (nodes.length === 0)
    throw new Error('REDIS_URL names a Redis Cluster without any node (redis+cluster://host:port,…)');
  return { nodes, username, password, tls: scheme === 'rediss+cluster:' };
}

/**
 * A new connection to the same Redis (server or cluster) with the same fail-fast options, some
 * of them changed: features derive the connections they need (a subscriber, a blocking reader).
 */
export function deriveRedis(base: RedisClient, override: Partial<GatewayRedisOptions> = {}): RedisClient {
  if (!(base instanceof ioredis().Cluster)) return base.duplicate(override);
  // Node connections are the cluster's: it reconnects them and queues (or not) for them.
  const { lazyConnect, enableOfflineQueue, retryStrategy: _retry, ...node } = override;
  return base.duplicate([], {
    ...base.options,
    ...(lazyConnect !== undefined ? { lazyConnect } : {}),
    ...(enableOfflineQueue !== undefined ? { enableOfflineQueue } : {}),
    redisOptions: {
      ...base.options.redisOptions,
      ...(enableOfflineQueue !== undefined ? { enableOfflineQueue } : {}),
      ...node,
    },
  });
}

/** The command timeout a client was opened with (ms; undefined: none). */
export function commandTimeoutOf(client: RedisClient): number | undefined {
  return client instanceof ioredis().Cluster
    ? client.options.redisOptions?.commandTimeout
    : client.options.commandTimeout;
}
