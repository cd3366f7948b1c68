import { createServer, type Server } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { AuthenticationError } from '../shared/errors.js';
import type { GatewayMetrics } from './gateway-metrics.js';
import type { MetricsSettings } from './observability-settings.js';

/**
 * Counts every HTTP request, streams included. A hijacked reply (SSE) skips Fastify's onResponse
 * hook, so the raw response's 'close' event is what ends the measurement.
 */
export function registerHttpMetrics(app: FastifyInstance, metrics: GatewayMetrics): void {
  // A callback hook (no promise per request), and one listener on the raw response.
  app.addHook('onRequest', (request, reply, done) => {
    const started = performance.now();
    const route = request.routeOptions.url;
    const method = request.method;
    reply.raw.once('close', () =>
      metrics.observeHttp(route, method, reply.raw.statusCode, (performance.now() - started) / 1000),
    );
    done();
  });
}

function tokenMatches(header: string | undefined, token: string): boolean {
  const given = Buffer.from(header?.startsWith('Bearer ') ? header.slice(7) : '');
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** `GET <path>` on the API port, open or behind a bearer token (when no admin port is configured). */
export function registerMetricsRoute(app: FastifyInstance, metrics: GatewayMetrics, settings: MetricsSettings): void {
  app.get(settings.path, { schema: { hide: true } }, async (request, reply) => {
    if (settings.bearerToken && !tokenMatches(request.headers.authorization, settings.bearerToken))
      throw new AuthenticationError('The metrics endpoint needs its bearer token.', 'invalid_metrics_token');
    const { contentType, body } = await metrics.render();
    return reply.type(contentType).send(body);
  });
}

/** A separate admin listener that serves only the metrics (config: metrics.port). */
export async function startMetricsServer(
  metrics: GatewayMetrics,
  settings: MetricsSettings,
): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (request.method !== 'GET' || path !== settings.path) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    if (settings.bearerToken && !tokenMatches(request.headers.authorization, settings.bearerToken)) {
      response.writeHead(401, { 'content-type': 'text/plain' }).end('bearer token required\n');
      return;
    }
    metrics.render().then(
      ({ contentType, body }) => response.writeHead(200, { 'content-type': contentType }).end(body),
      (error: Error) => response.writeHead(500, { 'content-type': 'text/plain' }).end(`${error.message}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(settings.port ?? 0, settings.host, () => resolve());
  });
  const address = server.address() as { address: string; port: number; family: string };
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}${settings.path}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
