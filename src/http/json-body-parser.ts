import type { FastifyInstance } from 'fastify';
import { InvalidRequestError } from '../shared/errors.js';
import { scanJson } from './json-depth.js';

/**
 * JSON bodies, bounded before routing: their size by `server.body_limit_bytes` (Fastify's
 * bodyLimit, 413) and their nesting by `server.max_json_depth` (400 `json_too_deep`), checked on
 * the text before it is parsed. A body whose keys cannot name `__proto__` or `constructor` (the
 * same pass over the text finds them) is parsed once with JSON.parse; any other body, and any
 * that does not parse, goes to Fastify's own parser, whose prototype- and constructor-poisoning
 * checks and errors (400, empty or invalid body) are the answer.
 */
export function registerJsonBodyParser(app: FastifyInstance, maxDepth: number): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    const scan = scanJson(text, maxDepth);
    if (scan === 'too-deep') {
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
    if (scan === 'plain') {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        // Fastify's parser says why (and takes a leading byte-order mark, which JSON.parse does not).
        parseJson(request, text, done);
        return;
      }
      // Outside the try: done() runs the rest of the request synchronously.
      done(null, parsed);
      return;
    }
    parseJson(request, text, done);
  });
}
