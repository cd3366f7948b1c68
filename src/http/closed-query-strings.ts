import type { RouteOptions } from 'fastify';

const CLOSED_EMPTY_QUERY = { type: 'object', properties: {}, additionalProperties: false } as const;

/**
 * One rule for query strings on the API (issue 17): a parameter a route does not declare is a
 * 400 naming it, never silently ignored (a typo such as `?windw=7d` would otherwise answer the
 * default). An `onRoute` hook closes every route's querystring schema under the given prefixes,
 * so no route has to remember to; a route without one accepts no parameter at all. Routes hidden
 * from the OpenAPI document (better-auth's catch-all, HTML pages) keep their query strings open.
 */
export function closeQueryStrings(prefixes: readonly string[]) {
  return function closeQueryString(route: RouteOptions): void {
    if (!prefixes.some((prefix) => route.url === prefix || route.url.startsWith(`${prefix}/`))) return;
    const schema = (route.schema ??= {});
    if ((schema as { hide?: boolean }).hide) return;
    const query = schema.querystring as { type?: string; additionalProperties?: unknown } | undefined;
    if (query === undefined) schema.querystring = CLOSED_EMPTY_QUERY;
    else if (query.additionalProperties === undefined) schema.querystring = { ...query, additionalProperties: false };
  };
}
