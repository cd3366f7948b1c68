/**
 * Set by our route in front of better-auth to the client address Fastify's trustProxy decided; any
 * client value is replaced. A module of its own: the route is registered at start, better-auth is
 * loaded on first use (lazy-auth.ts).
 */
export const CLIENT_IP_HEADER = 'x-gateway-client-ip';
