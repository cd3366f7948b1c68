import { UpstreamError } from '../../shared/errors.js';

/**
 * Parses a JSON document from an upstream (a whole body or one stream event). A provider that
 * sends something that is not a JSON object is a bad gateway, never a crash.
 */
export function parseUpstreamJson(text: string, providerName: string, what: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new UpstreamError(502, 'upstream_bad_response', `${providerName} sent ${what} that is not JSON.`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new UpstreamError(502, 'upstream_bad_response', `${providerName} sent ${what} that is not a JSON object.`);
  }
  return parsed as Record<string, unknown>;
}

export function decodeUtf8(bytes: Uint8Array): string {
  return new TextDecoder().decode(bytes);
}
