import type { FastifyRequest } from 'fastify';

/** What decides which browser origins may act on the account API. */
export interface OriginSettings {
  /** server.public_url (or the default built from host and port). */
  publicUrl: string;
  /** Whether the operator set server.public_url (or GATEWAY_PUBLIC_URL): the address people use. */
  publicUrlConfigured: boolean;
  corsOrigins: readonly string[];
}

const LOOPBACK_HOSTS = new Set(['localhost', '[::1]']);

/** localhost, 127.0.0.0/8 and [::1]: names that can only mean this machine. */
export function isLoopbackHostname(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname.toLowerCase()) || /^127(?:\.\d{1,3}){3}$/.test(hostname);
}

/** The origin a browser named: the Origin header, else the Referer's origin; null when neither. */
export function browserOrigin(request: FastifyRequest): string | null {
  const origin = request.headers.origin;
  if (origin !== undefined) return origin.toLowerCase();
  const referer = request.headers.referer;
  if (!referer) return null;
  try {
    return new URL(referer).origin;
  } catch {
    return null;
  }
}

/**
 * Whether a browser page at `origin` may act with the session cookie (issue 16, finding 7; issue
 * 28, item 6): the gateway's public address, a configured CORS origin, the address the request
 * itself was sent to (same origin), and, while no public_url is set, any loopback origin on the
 * port the request arrived on. A local install is reached as localhost, 127.0.0.1 or [::1] alike;
 * another local program on another port stays foreign. Once public_url is set, it is the address.
 */
export function isTrustedOrigin(origin: string, request: FastifyRequest, settings: OriginSettings): boolean {
  if (origin === 'null') return false;
  if (origin === new URL(settings.publicUrl).origin) return true;
  if (settings.corsOrigins.some((trusted) => trusted.toLowerCase() === origin)) return true;
  if (origin === `${request.protocol}://${request.host}`.toLowerCase()) return true;
  if (settings.publicUrlConfigured) return false;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  return (
    (url.protocol === 'http:' || url.protocol === 'https:') &&
    isLoopbackHostname(url.hostname) &&
    port === request.socket.localPort
  );
}

/** The words of a refusal: which origin was refused, and where to open the console instead. */
export function untrustedOriginMessage(origin: string | null, settings: OriginSettings): string {
  if (!origin)
    return 'Cross-site request refused: a request signed in with the session cookie must carry an Origin or Referer header.';
  const where = settings.publicUrlConfigured
    ? ` Open the console at ${new URL(settings.publicUrl).origin} (server.public_url) instead.`
    : '';
  return `Cross-site request refused: ${origin} is not an origin this gateway trusts (server.public_url, server.cors_origins).${where}`;
}
