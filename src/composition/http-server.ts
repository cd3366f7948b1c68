import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import type { Logger } from 'pino';
import type { ServerConfig } from '../config/gateway-config.js';
import { newRequestId } from '../shared/ids.js';
import { registerCors } from '../http/cors.js';
import { registerErrorHandling } from '../http/error-handler.js';
import { answerClientError, renderFrameworkError } from '../http/framework-errors.js';
import { registerJsonBodyParser } from '../http/json-body-parser.js';
import { lazyRequestLogger } from '../http/lazy-request-logger.js';
import { ErrorEnvelopeSchema } from '../http/openapi-shared.js';
import { closeQueryStrings } from '../http/closed-query-strings.js';
import { originCheck } from '../http/origin-check.js';
import { registerDefaultContentSecurityPolicy } from '../http/page-security-headers.js';
import { acceptEmptyJsonBodies } from '../http/empty-json-body.js';
import type { OriginSettings } from '../http/trusted-origins.js';
import { withAuthPaths } from '../accounts/auth-openapi.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** server.trust_proxy as a hop count: the nearest `hops` proxies are believed (Fastify types take it as a function). */
function trustHops(hops: number): (address: string, hop: number) => boolean {
  return (_address, hop) => hop < hops;
}

/** The browser origins allowed to act with the session cookie (`server:`). */
export function originSettingsOf(server: ServerConfig): OriginSettings {
  return {
    publicUrl: server.publicUrl,
    publicUrlConfigured: server.publicUrlConfigured,
    corsOrigins: server.corsOrigins,
  };
}

/**
 * The Fastify instance with what every route shares: request ids, validators, the error envelope,
 * the JSON parser, CORS, the origin check, the default CSP and the OpenAPI document. No route yet;
 * `watch` registers the observers' hooks in their place (after the request id, before any check).
 */
export async function createHttpServer(
  server: ServerConfig,
  logger: Logger,
  options: { withAuth: boolean; watch: (app: FastifyInstance) => void },
): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: logger as unknown as FastifyBaseLogger,
    // One log line per request would be the hot path's biggest cost; errors are still logged.
    logController: new LogController({ disableRequestLogging: true }),
    // request.log is made when a request first logs, not for every request (lazy-request-logger.ts).
    childLoggerFactory: lazyRequestLogger,
    bodyLimit: server.bodyLimitBytes,
    // Honour a caller's x-request-id when it is sane, so traces join up across services.
    genReqId: (request) => {
      const incoming = request.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : newRequestId();
    },
    forceCloseConnections: 'idle',
    // request.ip and request.protocol/host: the socket peer unless server.trust_proxy names the proxy.
    trustProxy: typeof server.trustProxy === 'number' ? trustHops(server.trustProxy) : server.trustProxy,
    return503OnClosing: true,
    routerOptions: { ignoreTrailingSlash: true },
    // A request (headers and body) must arrive within the timeout, or the connection is answered
    // 408 and closed: a trickled body cannot hold a connection. Node checks at this interval.
    requestTimeout: server.requestTimeoutMs,
    http: {
      headersTimeout: server.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, server.requestTimeoutMs),
    },
    frameworkErrors: renderFrameworkError(server.bodyLimitBytes),
    clientErrorHandler: answerClientError(server.requestTimeoutMs),
  });
  setValidators(app);
  // Unknown query parameters are a 400 naming them on every account and rankings route; set before any route exists.
  app.addHook('onRoute', closeQueryStrings(['/api-account', '/rankings']));
  // A callback hook, not an async one: no promise and no extra microtask on every request.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  // Metrics and traces see every request, including those the checks below refuse.
  options.watch(app);
  await registerOpenApi(app, options.withAuth);
  app.addSchema(ErrorEnvelopeSchema);
  registerErrorHandling(app, server.bodyLimitBytes);
  registerJsonBodyParser(app, server.maxJsonDepth);
  registerCors(app, server.corsOrigins);
  // Before any body is read: cookie-authenticated writes from foreign origins go no further.
  app.addHook('onRequest', originCheck(originSettingsOf(server)));
  app.addHook('onRequest', acceptEmptyJsonBodies);
  // Every HTML answer carries a Content-Security-Policy: its own page's, or the strictest.
  registerDefaultContentSecurityPolicy(app);
  return app;
}

/** Bodies: strict types and ranges, unknown parameters kept (passed through). Query strings: coerced. */
function setValidators(app: FastifyInstance): void {
  const common = {
    removeAdditional: false,
    useDefaults: true,
    allErrors: false,
    verbose: true,
    strict: false,
  } as const;
  const bodyAjv = new Ajv({ ...common, coerceTypes: false });
  const queryAjv = new Ajv({ ...common, coerceTypes: 'array' });
  addFormats.default(bodyAjv);
  addFormats.default(queryAjv);
  app.setValidatorCompiler(({ schema, httpPart }) =>
    httpPart === 'body' ? bodyAjv.compile(schema) : queryAjv.compile(schema),
  );
}

async function registerOpenApi(app: FastifyInstance, withAuth: boolean): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'LLM Gateway', version: '0.1.0', description: 'OpenAI-compatible gateway and account service.' },
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key, sk-gw-…' },
          sessionAuth: {
            type: 'http',
            scheme: 'bearer',
            description:
              'A session token from POST /api-account/auth/sign-in/email (browsers: the HttpOnly session cookie instead)',
          },
        },
      },
    },
    // better-auth's routes are one catch-all in Fastify: their description is added by hand.
    transformObject: (document) => {
      const openapi = 'openapiObject' in document ? document.openapiObject : document.swaggerObject;
      if (!withAuth) return openapi;
      return withAuthPaths(openapi as { paths?: Record<string, unknown> }) as typeof openapi;
    },
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
