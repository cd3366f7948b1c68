import type { FastifyInstance } from 'fastify';

/** One dependency readiness waits for; check() rejects (or outlasts the timeout) when it is not usable. */
export interface ReadinessCheck {
  name: string;
  check(): Promise<void>;
}

export interface HealthOptions {
  /** A check slower than this counts as failed: a hung database must not hang the probe. */
  timeoutMs?: number;
}

function withTimeout(promise: Promise<void>, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Runs every check at once; each reports `ok` or its error message. */
export async function runReadinessChecks(
  checks: ReadinessCheck[],
  timeoutMs: number,
): Promise<{ ready: boolean; checks: Record<string, string> }> {
  const results = await Promise.all(
    checks.map(async ({ name, check }) => {
      try {
        await withTimeout(check(), timeoutMs);
        return [name, 'ok'] as const;
      } catch (error) {
        return [name, (error as Error)?.message || String(error)] as const;
      }
    }),
  );
  return { ready: results.every(([, result]) => result === 'ok'), checks: Object.fromEntries(results) };
}

/**
 * Liveness (`/health/live`, also `/health`): the process answers; a restart would not help with
 * anything else. Readiness (`/health/ready`): the store answers, its migrations are applied and
 * Redis (when configured) answers, so a load balancer sends traffic only to instances that can
 * serve it. While shutting down, Fastify answers 503 to both.
 */
export function registerHealthRoutes(
  app: FastifyInstance,
  checks: ReadinessCheck[],
  options: HealthOptions = {},
): void {
  const timeoutMs = options.timeoutMs ?? 2000;
  const live = async () => ({ status: 'ok' });
  app.get('/health', { schema: { hide: true } }, live);
  app.get('/health/live', { schema: { hide: true } }, live);
  app.get('/health/ready', { schema: { hide: true } }, async (_request, reply) => {
    const result = await runReadinessChecks(checks, timeoutMs);
    if (result.ready) return { status: 'ready', checks: result.checks };
    const failing = Object.entries(result.checks)
      .filter(([, value]) => value !== 'ok')
      .map(([name, value]) => `${name}: ${value}`)
      .join('; ');
    return reply.code(503).send({
      error: {
        message: `Not ready: ${failing}`,
        type: 'service_unavailable',
        code: 'not_ready',
        param: null,
      },
      checks: result.checks,
    });
  });
}
