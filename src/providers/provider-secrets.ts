import type { ProviderConfig } from '../config/gateway-config.js';
import { GatewayError, UpstreamClientError, UpstreamError } from '../shared/errors.js';
import { SecretScrubber } from '../shared/secret-scrubber.js';

/** Option names that hold credentials or signing material (Bedrock's AWS keys, a session token). */
const SECRET_OPTION = /key|secret|token|password|credential/i;

/**
 * Everything configured for a provider that must never be shown: its api key, the values of its
 * custom headers (they carry credentials as often as not) and secret-looking options.
 */
function providerSecrets(provider: ProviderConfig): string[] {
  const secrets: string[] = [];
  if (provider.apiKey) secrets.push(provider.apiKey);
  secrets.push(...Object.values(provider.headers));
  for (const [name, value] of Object.entries(provider.options)) {
    if (typeof value === 'string' && SECRET_OPTION.test(name)) secrets.push(value);
  }
  return secrets;
}

export function allProviderSecrets(providers: readonly ProviderConfig[]): string[] {
  return providers.flatMap(providerSecrets);
}

export interface UpstreamErrorLog {
  warn(details: object, message: string): void;
}

/**
 * An upstream's error on its way to the client. Its text is the provider's and may echo what it
 * was sent (the Authorization header, a custom header): the provider's secrets are scrubbed from
 * it. A 401 or 403 is about the gateway's credentials, not the client's request: the client gets
 * a generic 502 `upstream_auth_failed` (other endpoints are tried) and the provider's words go
 * only to the log, scrubbed.
 */
export function guardUpstreamError(
  error: GatewayError,
  provider: ProviderConfig,
  log?: UpstreamErrorLog,
): GatewayError {
  const scrubber = new SecretScrubber(providerSecrets(provider));
  if (error instanceof UpstreamClientError && (error.upstreamStatus === 401 || error.upstreamStatus === 403)) {
    log?.warn(
      { provider: provider.id, upstreamStatus: error.upstreamStatus, detail: scrubber.scrub(error.message) },
      'the provider refused the gateway’s credentials',
    );
    return new UpstreamError(
      502,
      'upstream_auth_failed',
      `The provider (${provider.name}) refused the gateway's credentials. The operator can find the details in the gateway's log.`,
    );
  }
  return scrubGatewayError(error, scrubber);
}

/**
 * The same error with the secrets taken out of every text the client sees (message, param, and
 * the type and code an upstream chose); the object itself when it is clean.
 */
function scrubGatewayError(error: GatewayError, scrubber: SecretScrubber): GatewayError {
  if (scrubber.size === 0) return error;
  const message = scrubber.scrub(error.message);
  const param = error.param === null ? null : scrubber.scrub(error.param);
  const type = scrubber.scrub(error.type);
  const code = scrubber.scrub(error.code);
  if (message === error.message && param === error.param && type === error.type && code === error.code) return error;
  // A copy of the same class, so retry and fallback decisions (instanceof) do not change.
  const copy = Object.create(Object.getPrototypeOf(error) as object) as GatewayError;
  Object.assign(copy, error, { message, param, type, code, stack: undefined });
  return copy;
}
