import type { FastifyInstance } from 'fastify';
import { InvalidRequestError } from '../shared/errors.js';
import { exceedsJsonDepth } from './json-depth.js';

/**
 * JSON bodies, bounded before routing: their size by `server.body_limit_bytes` (Fastify's
 * bodyLimit, 413) and their nesting by `server.max_json_depth` (400 `json_too_deep`), checked on
 * the text before it is parsed. Parsing itself stays Fastify's (its prototype- and constructor-poisoning checks included).
 */
export function registerJsonBodyParser(app: FastifyInstance, maxDepth: number): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (exceedsJsonDepth(text, maxDepth)) {
      done(
        new InvalidRequestError(
          `The JSON body nests arrays and objects more than ${maxDepth} levels deep (server.max_json_depth).`,
          null,
          'json_too_deep',
        ),
        undefined,
      );
      return;
    }
    parseJson(request, text, done);
  });
}
