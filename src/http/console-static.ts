import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fastifyStatic from '@fastify/static';
import { contentSecurityPolicy, inlineSources } from '../shared/content-security-policy.js';
import { setPageSecurityHeaders } from './page-security-headers.js';

/** console/dist of this checkout: two folders up from src/http (or dist/http once compiled). */
const DEFAULT_CONSOLE_DIR = fileURLToPath(new URL('../../console/dist', import.meta.url));

/**
 * Paths that belong to the API: never answered with the console's page, so their 404s stay JSON.
 * `/rankings` alone is the console's rankings page; the public rankings API lives below it.
 */
const API_PATHS = new Set(['/v1', '/api-account', '/openapi.json', '/health']);
const API_PREFIXES = ['/v1/', '/api-account/', '/rankings/', '/billing/', '/openapi.json/', '/health/', '/assets/'];

const MISSING_BUILD = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Console not built</title>
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem}</style></head>
<body>
<h1>The web console is not built</h1><p>The gateway and its API are running, but <code>console/dist</code> is missing.
Run <code>npm install</code> (or <code>npm run build</code>) in the project folder, then reload this page.</p>
<p>The API: <a href="/openapi.json">/openapi.json</a>.</p></body></html>`;

/** The meta tag of console/index.html that receives each page's style nonce. */
const NONCE_SLOT = '<meta name="csp-nonce" content="" />';

/** A browser navigating to a console page (not a script or an API client asking for JSON). */
function wantsConsolePage(request: FastifyRequest): boolean {
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
  const indexHtml = built ? readFileSync(indexPath, 'utf8') : null;
  // The built page is trusted, static text: its inline scripts (the theme applied before the first
  // paint) are allowed by their hashes, taken from the very file served, so a rebuild needs nothing.
  const inline = inlineSources(indexHtml ?? MISSING_BUILD);
  const [beforeNonce, afterNonce] = indexHtml?.includes(NONCE_SLOT) ? indexHtml.split(NONCE_SLOT, 2) : [null, null];

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
    reply.header('cache-control', 'no-cache').header('referrer-policy', 'same-origin').type('text/html; charset=utf-8');
    if (!indexHtml) return setPageSecurityHeaders(reply, contentSecurityPolicy(inline)).status(503).send(MISSING_BUILD);
    if (beforeNonce === null) return setPageSecurityHeaders(reply, contentSecurityPolicy(inline)).send(indexHtml);
    // A fresh nonce per page, written only into the one meta tag made for it (never stamped on
    // whatever the page holds): the source of the inline styles that dialogs insert at run time.
    const nonce = randomBytes(16).toString('base64');
    setPageSecurityHeaders(
      reply,
      contentSecurityPolicy({ scripts: inline.scripts, styles: [...inline.styles, `'nonce-${nonce}'`] }),
    );
    return reply.send(`${beforeNonce}<meta name="csp-nonce" content="${nonce}" />${afterNonce}`);
  };

  app.get('/', { schema: { hide: true } }, async (_request, reply) => sendPage(reply));
  app.get('/*', { schema: { hide: true } }, async (request, reply) => {
    if (!wantsConsolePage(request)) return reply.callNotFound();
    return sendPage(reply);
  });
}
