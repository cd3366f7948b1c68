import type { paths } from './schema';

/**
 * Names for the bodies the console reads, every one taken from the generated OpenAPI types
 * (schema.d.ts), so a change to a route's response schema is a type error here and not a
 * silent drift from a hand-written copy.
 */
type SuccessBody<Responses> = Responses extends { 200: { content: { 'application/json': infer Body } } }
  ? Body
  : Responses extends { 201: { content: { 'application/json': infer Body } } }
    ? Body
    : never;

/** The JSON body of an operation's success answer (200, or 201 for creations). */
export type Answer<
  Path extends keyof paths,
  Method extends 'get' | 'post' | 'put' | 'patch' | 'delete',
> = paths[Path][Method] extends { responses: infer Responses } ? SuccessBody<Responses> : never;

export type User = Answer<'/api-account/user/me', 'get'>;
export type Usage = Answer<'/api-account/user/usage', 'get'>;
export type UsageFailure = Usage['failures'][number];

export type Billing = Answer<'/api-account/user/billing', 'get'>;
type OrderPage = Answer<'/api-account/user/billing/orders', 'get'>;
export type Order = OrderPage['data'][number];

export type CatalogModel = Answer<'/api-account/models/{*}', 'get'>;
type CatalogFilters = Answer<'/api-account/models/filters', 'get'>;
export type FilterValue = CatalogFilters['authors'][number];

export type Speed = Answer<'/api-account/rankings/speed', 'get'>;
