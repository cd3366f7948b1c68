import { connect } from 'node:net';

/**
 * Vitest global setup: the tests use a real PostgreSQL and a real Redis. When either is down, stop
 * before any test file runs with one line saying what to start, instead of a hundred connection
 * errors scattered over the run. The addresses follow the tests' own overrides.
 */

const DEFAULT_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/test';
const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
const CONNECT_TIMEOUT_MS = 1_000;

export interface Service {
  name: string;
  url: string;
  defaultPort: number;
  /** How to start it on this kind of machine (the commands `.ci/run` uses). */
  start: (port: number) => string;
}

export function requiredServices(env: NodeJS.ProcessEnv = process.env): Service[] {
  return [
    {
      name: 'PostgreSQL',
      url: env.TEST_POSTGRES_URL || DEFAULT_POSTGRES_URL,
      defaultPort: 5432,
      start: () => 'pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start',
    },
    {
      name: 'Redis',
      url: env.TEST_REDIS_URL || DEFAULT_REDIS_URL,
      defaultPort: 6379,
      start: (port) => `redis-server --daemonize yes --bind 127.0.0.1 --port ${port} --save "" --appendonly no`,
    },
  ];
}

/** Resolves true when a TCP connection opens within the timeout. */
export function canConnect(host: string, port: number, timeoutMs = CONNECT_TIMEOUT_MS): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const finish = (open: boolean) => {
      socket.destroy();
      resolve(open);
    };
    socket.setTimeout(timeoutMs, () => finish(false));
    socket.once('connect', () => finish(true));
    socket.once('error', () => finish(false));
  });
}

/** The one line to print, or undefined when every service answers. */
export async function missingServicesMessage(services: Service[]): Promise<string | undefined> {
  const results = await Promise.all(
    services.map(async (service) => {
      const url = new URL(service.url);
      const host = url.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1';
      const port = Number(url.port) || service.defaultPort;
      return { service, port, address: `${host}:${port}`, open: await canConnect(host, port) };
    }),
  );
  const down = results.filter((result) => !result.open);
  if (down.length === 0) return undefined;
  const parts = down.map(
    ({ service, port, address }) => `${service.name} at ${address} (start it: ${service.start(port)})`,
  );
  return `Tests need ${parts.join(' and ')}; or run .ci/run, which starts both.`;
}

export default async function requireServices(): Promise<void> {
  const message = await missingServicesMessage(requiredServices());
  if (!message) return;
  // One line on stderr and a non-zero exit: a thrown error would add a stack trace and a banner.
  process.stderr.write(`${message}\n`);
  process.exit(1);
}
