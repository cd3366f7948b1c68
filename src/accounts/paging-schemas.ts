import { Type } from '@sinclair/typebox';

/**
 * The largest `offset` any paged account list takes. Past it the schema answers 400 naming the
 * parameter: an unbounded integer reached the database (`offset=99999999999999999999` is an
 * "integer" to JSON Schema, and neither PostgreSQL's bigint nor SQLite's int64 holds it) and came
 * back as a 500 (issue 25, item 6). A billion rows is past any list a person pages through, and the
 * bound stays an exact JS number and a 32-bit integer on every store.
 */
const MAX_PAGE_OFFSET = 1_000_000_000;

/** `offset` of a paged list: rows to skip, 0 to MAX_PAGE_OFFSET. */
export function offsetParameter() {
  return Type.Optional(
    Type.Integer({ minimum: 0, maximum: MAX_PAGE_OFFSET, default: 0, description: 'rows to skip (default 0)' }),
  );
}

/** `limit` of a paged list: 1 to `maximum` rows, `fallback` when absent. */
export function limitParameter(maximum: number, fallback?: number, description?: string) {
  return Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum,
      ...(fallback === undefined ? {} : { default: fallback }),
      description:
        description ?? `rows per page, 1 to ${maximum}${fallback === undefined ? '' : ` (default ${fallback})`}`,
    }),
  );
}
