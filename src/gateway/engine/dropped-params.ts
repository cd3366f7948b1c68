import { InvalidRequestError } from '../../shared/errors.js';

/**
 * The response header naming the request parameters the gateway dropped because the endpoint
 * that answered cannot express them (a translation across protocols), comma-separated.
 */
export const DROPPED_PARAMS_HEADER = 'x-gateway-dropped-params';

/**
 * What the gateway does with a parameter the chosen endpoint cannot express (server.unsupported_params):
 * `drop` it and name it in the header (default: agents keep working), or `refuse` the request with a 400.
 * A client may ask for `refuse` on one request with the header `x-gateway-unsupported-params: refuse`.
 */
export type UnsupportedParamsPolicy = 'drop' | 'refuse';

export const UNSUPPORTED_PARAMS_REQUEST_HEADER = 'x-gateway-unsupported-params';

/** The policy for one request: the request's own header may only make it stricter. */
export function policyFor(configured: UnsupportedParamsPolicy | undefined, header: unknown): UnsupportedParamsPolicy {
  if (header === 'refuse') return 'refuse';
  return configured ?? 'drop';
}

/** Under `refuse`, a request with dropped parameters is a 400 naming them (and the setting that allows them). */
export function enforcePolicy(dropped: readonly string[], policy: UnsupportedParamsPolicy): void {
  if (policy !== 'refuse' || dropped.length === 0) return;
  throw new InvalidRequestError(
    `The model chosen cannot express these parameters: ${dropped.join(', ')}. Remove them, pick a model of the client's own API, or let the gateway drop them (server.unsupported_params: drop).`,
    dropped[0],
    'unsupported_parameter',
  );
}

/** Adds a name once, keeping the order of first appearance. */
export function addDropped(dropped: string[], name: string): void {
  if (!dropped.includes(name)) dropped.push(name);
}

/**
 * Translates leniently, and under strict refusals also strictly to learn the refusal the
 * translation would make: the engine raises it only when an endpoint of another API is to be
 * used (an endpoint of the client's own API takes the body as it is).
 */
export function translateForPolicy<T>(
  translate: (strict: boolean) => T,
  strict: boolean,
): { translation: T; strictRefusal?: InvalidRequestError } {
  if (strict) {
    try {
      translate(true);
    } catch (error) {
      if (!(error instanceof InvalidRequestError)) throw error;
      // What is left once the refused parts are dropped may not stand on its own: the refusal says why.
      let translation: T;
      try {
        translation = translate(false);
      } catch {
        throw error;
      }
      return { translation, strictRefusal: error };
    }
  }
  return { translation: translate(false) };
}
