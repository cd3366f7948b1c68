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
export type Balance = Answer<'/api-account/user/balance', 'get'>;
export type Usage = Answer<'/api-account/user/usage', 'get'>;
export type UsageFailure = Usage['failures'][number];

export type Billing = Answer<'/api-account/user/billing', 'get'>;
export type OrderPage = Answer<'/api-account/user/billing/orders', 'get'>;
export type Order = OrderPage['data'][number];
export type DocumentLink = Answer<'/api-account/user/billing/document', 'post'>;
export type TransactionPage = Answer<'/api-account/user/transactions', 'get'>;

export type CatalogModel = Answer<'/api-account/models/{*}', 'get'>;
export type CatalogPage = Answer<'/api-account/models', 'get'>;
export type CatalogFilters = Answer<'/api-account/models/filters', 'get'>;
export type FilterValue = CatalogFilters['authors'][number];

export type ProviderSummary = Answer<'/api-account/providers', 'get'>['data'][number];
export type ProviderDetail = Answer<'/api-account/providers/{id}', 'get'>;
export type ProviderStats = Answer<'/api-account/providers/{id}/stats', 'get'>;

export type Leaderboard = Answer<'/api-account/rankings/models', 'get'>;
export type RankingChart = Answer<'/api-account/rankings/charts', 'get'>;
export type Benchmarks = Answer<'/api-account/rankings/benchmarks', 'get'>;
export type Speed = Answer<'/api-account/rankings/speed', 'get'>;
