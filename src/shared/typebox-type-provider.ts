import type { FastifyInstance, FastifyTypeProvider } from 'fastify';
import { Type, type Static, type TSchema } from '@sinclair/typebox';

/**
 * Fastify's type provider for TypeBox: a route's `request.body`, `query` and `params` take the
 * types of the schemas it declares, the same schemas Ajv checks at run time, so a handler needs no
 * cast. (What @fastify/type-provider-typebox declares, without its run-time compiler: the app keeps
 * its own Ajv instances, http/… and composition/http-server.ts.)
 */
export interface TypeBoxTypeProvider extends FastifyTypeProvider {
  validator: this['schema'] extends TSchema ? Static<this['schema']> : unknown;
  serializer: this['schema'] extends TSchema ? Static<this['schema']> : unknown;
}

/** The app, with route types read from their TypeBox schemas. */
export function typed(app: FastifyInstance) {
  return app.withTypeProvider<TypeBoxTypeProvider>();
}

/**
 * A string enum whose static type is the union of its values. Ajv checks the same `{ type: string,
 * enum }` as before (and words its error the same); `Type.Unsafe` only gives it the literal type.
 */
export const stringEnum = <const T extends string[]>(values: T, options: { description?: string } = {}) =>
  Type.Unsafe<T[number]>(Type.String({ ...options, enum: values }));
