import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fastifyStatic from '@fastify/static';

/** console/dist of this checkout: two folders up from src/http (or dist/http once compiled). */
export const DEFAULT_CONSOLE_DIR = fileURLToPath(new URL('../../console/dist', import.meta.url));

/**
 * Paths that belong to the API: never answered with the console's page, so their 404s stay JSON.
 * `/rankings` alone is the console's rankings page; the public rankings API lives below it.
 */
const API_PATHS = new Set(['/v1', '/api-account', '/openapi.json', '/health']);
const API_PREFIXES = ['/v1/', '/api-account/', '/rankings/', '/billing/', '/openapi.json/', '/health/', '/assets/'];

const MISSING_BUILD = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Console not built</title></head>
<body style="font-family:system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem">
<h1>The web console is not built</h1><p>The gateway and its API are running, but <code>console/dist</code> is missing.
Run <code>npm install</code> (or <code>npm run build</code>) in the project folder, then reload this page.</p>
<p>The API: <a href="/openapi.json">/openapi.json</a>.</p></body></html>`;

/** A browser navigating to a console page (not a script or an API client asking for JSON). */
export function wantsConsolePage(request: FastifyRequest): boolean {
  const path = request.url.split('?')[0];
  if (API_PATHS.has(path) || API_PREFIXES.some((prefix) => path.startsWith(prefix))) return false;
  const accept = request.headers.accept ?? '';
  return accept.includes('text/html');
}

/**
 * The web console (console/, a Vite build) at `/`: hashed assets cached for a year, index.html
 * never cached (so a new build is picked up at once), and index.html for any other page a browser
 * asks for, so deep links work. Everything else falls through to the API's JSON 404.
 */
export async function registerConsoleStatic(app: FastifyInstance, consoleDir = DEFAULT_CONSOLE_DIR): Promise<void> {
  const indexPath = join(consoleDir, 'index.html');
  const built = existsSync(indexPath);
  // Read once: the build does not change under a running process, and every deep link serves it.
  const indexHtml = built ? readFileSync(indexPath) : null;

  if (built && existsSync(join(consoleDir, 'assets'))) {
    await app.register(fastifyStatic, {
      root: join(consoleDir, 'assets'),
      prefix: '/assets/',
      index: false,
      // File names carry a content hash: a changed file is a new URL.
      cacheControl: true,
      immutable: true,
      maxAge: '365d',
      schemaHide: true,
    });
  }

  const sendPage = (reply: import('fastify').FastifyReply) => {
    reply
      .header('cache-control', 'no-cache')
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'same-origin')
      .header('x-frame-options', 'DENY')
      .type('text/html; charset=utf-8');
    if (indexHtml) return reply.send(indexHtml);
    return reply.status(503).send(MISSING_BUILD);
  };

  app.get('/', { schema: { hide: true } }, async (_request, reply) => sendPage(reply));
  app.get('/*', { schema: { hide: true } }, async (request, reply) => {
    if (!wantsConsolePage(request)) return reply.callNotFound();
    return sendPage(reply);
  });
}
