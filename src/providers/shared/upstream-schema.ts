import type { Static, TSchema } from '@sinclair/typebox';
import type { ValueError } from '@sinclair/typebox/errors';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { UpstreamError } from '../../shared/errors.js';

/**
 * An upstream's JSON checked against its wire format's schema: the same TypeBox schema gives the
 * run-time check and the static type, so nothing read from a provider is cast. An answer that does
 * not fit is a bad gateway (502) naming the first field that is wrong, never a crash further on.
 */
export function upstreamChecker<S extends TSchema>(schema: S) {
  const compiled = TypeCompiler.Compile(schema);
  return {
    is: (value: unknown): value is Static<S> => compiled.Check(value),
    /** The value, typed; throws a 502 naming the first mismatch. */
    read(value: unknown, providerName: string, what: string): Static<S> {
      if (compiled.Check(value)) return value;
      const first = deepest(compiled.Errors(value).First());
      const where = first?.path ? ` at ${first.path}` : '';
      throw new UpstreamError(
        502,
        'upstream_bad_response',
        `${providerName} sent ${what} the gateway cannot read${where}: ${first?.message ?? 'unexpected shape'}.`,
      );
    },
  };
}

/**
 * A union's error ("Expected union value" at `/choices` for a nullable array) says less than the
 * error inside the branch that got furthest: that one names the field (`/choices/0/delta/content`).
 */
function deepest(error: ValueError | undefined): ValueError | undefined {
  let found = error;
  for (const branch of error?.errors ?? []) {
    const inner = deepest(branch.First());
    if (inner && inner.path.length > (found?.path.length ?? -1)) found = inner;
  }
  return found;
}
